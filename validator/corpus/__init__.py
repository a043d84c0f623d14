"""The corpus layer: the repository loaded once and read as frozen, typed records.

Every command reads the corpus through this package: ``index.Corpus`` loads the files (each
parsed once per process), validates every document against its JSON Schema and turns the
schema-valid ones into the records of ``records`` (``Spec``, ``Case`` with its ``Dialogue``,
``Turn`` and ``Checkpoint`` records, ``Scenario``, ``SandboxInfo``, ``ReviewRecord``).
``langs`` and ``categories`` own the language and category lists, ``schemas`` the one walker
over parameter schemas (localise, plain JSON Schema), ``params`` the one per-parameter
validator that rules and the sandbox runtime share.

Nothing is re-exported here, so importing one submodule never imports the others.
"""
