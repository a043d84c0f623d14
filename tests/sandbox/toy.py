"""A tiny repository with one sandbox, `toy`, whose methods misbehave on purpose.

Written to a temporary folder and loaded through the real path (Corpus.load → Runtime.from_corpus),
so the tests exercise importing sandbox.py by file path too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from validator.corpus.index import Corpus
from validator.sandbox.runtime import Runtime

SOURCE = '''
from __future__ import annotations

import linecache
import os
import socket
import subprocess
import threading
import time
import traceback
from typing import Any

from validator.sandbox.base import ApiError, Sandbox

_LEAK = [0]


class ToySandbox(Sandbox):
    name = "toy"

    def add(self, a: int, b: int = 0) -> dict[str, Any]:
        total = a + b
        self.data["log"].append(total)
        return {"sum": total, "id": self.new_id("entry", "E-")}

    def fail(self, kind: str) -> dict[str, Any]:
        raise ApiError(kind, hint="try again")

    def undeclared(self) -> dict[str, Any]:
        raise ApiError("surprise")

    def bad_result(self) -> dict[str, Any]:
        return {"sum": "seven", "id": "E-0"}

    def not_json(self) -> dict[str, Any]:
        return {"sum": (1, 2), "id": "E-0"}

    def crash(self) -> dict[str, Any]:
        return {"sum": 1 // 0, "id": "E-0"}

    def read_file(self) -> dict[str, Any]:
        with open(__file__, encoding="utf-8") as handle:
            handle.read()
        return {}

    def connect(self) -> dict[str, Any]:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        return {}

    def spawn(self) -> dict[str, Any]:
        subprocess.run(["true"], check=False)
        return {}

    def shell(self) -> dict[str, Any]:
        os.system("true")
        return {}

    def list_dir(self) -> dict[str, Any]:
        return {"names": sorted(os.listdir("."))}

    def nap(self) -> dict[str, Any]:
        time.sleep(0.01)
        return {}

    def late_import(self) -> dict[str, Any]:
        import wave  # noqa: F401

        return {}

    def swallow(self) -> dict[str, Any]:
        try:
            open(__file__, encoding="utf-8").close()
        except BaseException:
            pass
        return {}

    def spin(self) -> dict[str, Any]:
        while True:
            pass

    def spin_swallow(self) -> dict[str, Any]:
        try:
            while True:
                pass
        except BaseException:
            pass
        while True:
            pass

    def wait(self, seconds: float) -> dict[str, Any]:
        threading.Event().wait(seconds)  # blocked, using no CPU (as when descheduled)
        return {"sum": 0, "id": "E-0"}

    def explain(self) -> dict[str, Any]:
        linecache.clearcache()
        try:
            raise ValueError("shown with its source line")
        except ValueError:
            text = traceback.format_exc()
        return {"sum": len(text.splitlines()), "id": "E-0"}

    def allocate(self) -> dict[str, Any]:
        self.data["log"].extend([[i] for i in range(2000)])
        return {"sum": len(self.data["log"]), "id": "E-0"}

    def leak(self) -> dict[str, Any]:
        _LEAK[0] += 1
        self.data["log"].append(_LEAK[0])
        return {"sum": _LEAK[0], "id": "E-0"}

    def mutate_args(self, items: list[int]) -> dict[str, Any]:
        items.append(99)
        self.data["log"].extend(items)
        return {"sum": sum(items), "id": "E-0"}
'''

RESULT = {
    "type": "object",
    "properties": {"sum": {"type": "integer", "description": {"en": "The sum.", "zh": "和。"}}, "id": {"type": "string"}},
    "required": ["sum", "id"],
    "additionalProperties": False,
}
ANY_OBJECT = {"type": "object"}


def _spec(name: str, properties: dict[str, Any] | None = None, required: list[str] | None = None, returns: Any = None, errors: Any = None) -> dict[str, Any]:
    return {
        "name": name,
        "domain": "toy.things",
        "sandbox": "toy",
        "description": {"en": f"{name}.", "zh": f"{name}。"},
        "parameters": {"type": "object", "properties": properties or {}, "required": required or [], "additionalProperties": False},
        "returns": returns if returns is not None else RESULT,
        "errors": errors or {},
    }


def _int(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0, "description": {"en": description, "zh": description}}


SPECS = [
    _spec("add", {"a": _int("First."), "b": {**_int("Second."), "default": 0}}, ["a"]),
    _spec(
        "fail",
        {"kind": {"type": "string", "enum": ["sold_out", "closed"], "description": {"en": "Kind.", "zh": "类型。"}}},
        ["kind"],
        errors={"sold_out": {"en": "It is sold out.", "zh": "已售罄。"}, "closed": {"en": "The shop is closed.", "zh": "店铺已打烊。"}},
    ),
    _spec("undeclared"),
    _spec("bad_result"),
    _spec("not_json"),
    _spec("crash"),
    *(_spec(name, returns=ANY_OBJECT) for name in ("read_file", "connect", "spawn", "shell", "list_dir", "nap", "late_import", "swallow", "spin", "spin_swallow")),
    _spec("explain"),
    _spec("wait", {"seconds": {"type": "number", "minimum": 0, "description": {"en": "Seconds.", "zh": "秒数。"}}}, ["seconds"]),
    _spec("allocate"),
    _spec("leak"),
    _spec("mutate_args", {"items": {"type": "array", "items": {"type": "integer", "description": {"en": "An item.", "zh": "一个条目。"}}, "description": {"en": "Items.", "zh": "条目。"}}}, ["items"]),
]

STATE = {"sandbox": "toy", "clock": "2024-05-06T09:00:00+08:00", "counters": {"entry": 0}, "data": {"log": [], "settings": {"mode": "a", "level": 1}}}


def write_toy_repo(root: Path, source: str = SOURCE) -> Path:
    (root / "sandboxes" / "toy").mkdir(parents=True)
    (root / "specs" / "toy").mkdir(parents=True)
    (root / "sandboxes" / "toy" / "sandbox.py").write_text(source, encoding="utf-8")
    (root / "sandboxes" / "toy" / "state.yaml").write_text(json.dumps(STATE, ensure_ascii=False), encoding="utf-8")
    for spec in SPECS:
        (root / "specs" / "toy" / f"{spec['name']}.yaml").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return root


def toy_runtime(root: Path, source: str = SOURCE) -> Runtime:
    return Runtime.from_corpus(Corpus.load(write_toy_repo(root, source)))
