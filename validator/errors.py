"""The one exception class for mistakes a user can fix (bad option, missing file)."""

from __future__ import annotations


class UserError(Exception):
    """Printed as one line without a traceback; the CLI exits with status 2."""
