"""A candidate as the YAML text of a case file, and its place in a repository."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

CASE_KEYS = ("id", "category", "apis", "time", "profile", "en", "zh")


def case_path(category: str, case_id: str) -> str:
    """Where the case lives in a repository: ``dialogues/<category>/<id>.yaml``."""
    return f"dialogues/{category}/{case_id}.yaml"


def schema_comment(path: str) -> str:
    depth = path.count("/")
    return f"# yaml-language-server: $schema={'../' * depth}schemas/case.schema.json\n"


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value repeated in both languages is written twice, never as an anchor


def _flow_calls(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    # one call or one tool result per line, as the hand-written cases are laid out
    flow = set(value) <= {"api", "args", "result"} and "api" in value
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flow or None)


_Dumper.add_representer(dict, _flow_calls)


def render_case(data: Mapping[str, Any]) -> str:
    """The case file's text: the schema comment, then the keys in the documented order."""
    ordered = {key: data[key] for key in CASE_KEYS if key in data}
    body = yaml.dump(ordered, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=4096, default_flow_style=False)
    return schema_comment(case_path(str(data["category"]), str(data["id"]))) + body
