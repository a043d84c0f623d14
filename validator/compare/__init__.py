"""Paired comparison of two runs on the units both answered (``callbank compare``)."""
