# Types of the compiled reader of the common answer shape (_fastcalls.c, built by hatch_build.py).
from typing import Any, TypeVar

_CallT = TypeVar("_CallT", bound=tuple[Any, ...])

def read(
    text: str, call_type: type[_CallT], max_calls: int, max_depth: int, max_string: int, max_name: int, /
) -> tuple[_CallT, ...] | None: ...
