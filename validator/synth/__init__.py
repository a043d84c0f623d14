"""`callbank synth`: grow the corpus with language models, verified by execution and cycle consistency.

A run draws recipes (``plan``), asks a generator model for a bilingual request and its reference
calls (``generate``), runs the calls in the real sandbox (``execute``), asks a simulator model to
solve the request blind and scores it against the reference (``consistency``, optionally with a
best-first ``search`` over its steps), runs every rule of `callbank check` and `callbank exec`
(``checks``), drops near-duplicates (``dedupe``) and writes the survivors with ``pending`` review
records (``write``). Every model answer is cached (``cache``) and every candidate's path through
the stages is logged and counted (``report``); ``pipeline`` ties the stages together.
"""
