"""Publishing: compile the corpus to a Hugging Face dataset folder, load it back, push it.

``build`` writes the folder (Parquet per config and language, the dataset card), ``load`` reads
it back as decoded records, ``gates`` decides whether the corpus may be published at all, and
``publish`` is the only module that talks to the Hub. pyarrow and huggingface_hub are imported
inside functions, so importing this package costs nothing for ``callbank check``.
"""
