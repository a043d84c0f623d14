"""The self-contained HTML report of one or several runs (``callbank report``)."""
