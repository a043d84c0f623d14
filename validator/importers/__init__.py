"""`callbank import`: a peer benchmark's data as a callbank repository (docs/importing.md).

One module per peer reads the user's local copy (nothing is fetched) and fills
:class:`~validator.importers.common.Repository` values; ``write`` writes them with the report.
"""
