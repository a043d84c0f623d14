"""The synth config (``synth.yaml``): the generator and simulator endpoints and the thresholds.

Shape (every key but the two models optional)::

    generator: {base_url: ..., model: ..., api_key_env: ..., temperature: 0.7, seed: 1, lang: en,
                max_tokens: 2048, timeout: 120, max_retries: 4}
    simulator: {base_url: ..., model: ..., syntax: tool_calls}
    dedupe_threshold: 0.5       # Jaccard of character shingles at which a request is a near-duplicate
    search: {width: 3, budget: 24}   # used only with --search

The models are any OpenAI-compatible endpoints, as in ``review/judges.yaml``; ``api_key_env``
names the variable holding the key (a server on this machine may do without one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from validator.errors import UserError
from validator.similarity import TEXT_THRESHOLD

ENDPOINT_KEYS = frozenset({"base_url", "model", "api_key_env", "temperature", "seed", "lang", "max_tokens", "timeout", "max_retries", "syntax"})
TOP_KEYS = frozenset({"generator", "simulator", "dedupe_threshold", "search"})
SYNTAXES = ("tool_calls", "json", "python")


@dataclass(frozen=True)
class ModelConfig:
    role: str  # "generator" | "simulator"
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    seed: int | None = None
    lang: str = "en"  # the language of the generator's instructions (it always writes both)
    max_tokens: int = 2048
    timeout: float = 120.0
    max_retries: int = 4  # retries of a transient failure (connection, 429, 5xx) before the run stops
    syntax: str = "tool_calls"  # how the simulator is asked to answer (the `run` harness's syntaxes)


@dataclass(frozen=True)
class SearchConfig:
    width: int = 3  # sampled next steps per expanded node
    budget: int = 24  # simulator requests per candidate at most


@dataclass(frozen=True)
class SynthConfig:
    generator: ModelConfig
    simulator: ModelConfig
    dedupe_threshold: float = TEXT_THRESHOLD
    search: SearchConfig = SearchConfig()


def _fail(path: Path, where: str, message: str) -> UserError:
    return UserError(f"{path}: {where}: {message}")


def _number(path: Path, where: str, value: Any, kind: type, low: float, high: float | None = None) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise _fail(path, where, f"expected {'an integer' if kind is int else 'a number'}, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise _fail(path, where, f"must be {bound}, got {value!r}")
    return kind(value)


def _model(path: Path, role: str, entry: Any) -> ModelConfig:
    if not isinstance(entry, Mapping):
        raise _fail(path, role, "expected a mapping with at least base_url and model")
    unknown = sorted(set(entry) - ENDPOINT_KEYS)
    if unknown:
        raise _fail(path, role, f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(ENDPOINT_KEYS))}")
    for key in ("base_url", "model"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise _fail(path, f"{role}.{key}", "is required (a non-empty string)")
    if not str(entry["base_url"]).startswith(("http://", "https://")):
        raise _fail(path, f"{role}.base_url", f"{entry['base_url']!r} is not an http(s) URL; give the API root, e.g. http://127.0.0.1:8000/v1")
    fields: dict[str, Any] = {"role": role, "base_url": entry["base_url"], "model": entry["model"]}
    if "api_key_env" in entry:
        fields["api_key_env"] = str(entry["api_key_env"])
    if "temperature" in entry:
        fields["temperature"] = _number(path, f"{role}.temperature", entry["temperature"], float, 0.0, 2.0)
    if entry.get("seed") is not None:
        fields["seed"] = _number(path, f"{role}.seed", entry["seed"], int, 0)
    if "max_tokens" in entry:
        fields["max_tokens"] = _number(path, f"{role}.max_tokens", entry["max_tokens"], int, 1)
    if "timeout" in entry:
        fields["timeout"] = _number(path, f"{role}.timeout", entry["timeout"], float, 0.1)
    if "max_retries" in entry:
        fields["max_retries"] = _number(path, f"{role}.max_retries", entry["max_retries"], int, 0, 20)
    if "lang" in entry:
        if entry["lang"] not in ("en", "zh"):
            raise _fail(path, f"{role}.lang", f"must be en or zh, got {entry['lang']!r}")
        fields["lang"] = entry["lang"]
    if "syntax" in entry:
        if entry["syntax"] not in SYNTAXES:
            raise _fail(path, f"{role}.syntax", f"must be one of {', '.join(SYNTAXES)}, got {entry['syntax']!r}")
        fields["syntax"] = entry["syntax"]
    return ModelConfig(**fields)


def parse_config(data: Any, path: Path) -> SynthConfig:
    if not isinstance(data, Mapping):
        raise _fail(path, "top level", "expected a mapping with generator and simulator")
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise _fail(path, "top level", f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(TOP_KEYS))}")
    for role in ("generator", "simulator"):
        if role not in data:
            raise _fail(path, role, "is required: the OpenAI-compatible endpoint and model of the " + role)
    threshold = TEXT_THRESHOLD
    if "dedupe_threshold" in data:
        threshold = _number(path, "dedupe_threshold", data["dedupe_threshold"], float, 0.05, 1.0)
    search = SearchConfig()
    if "search" in data:
        entry = data["search"]
        if not isinstance(entry, Mapping) or set(entry) - {"width", "budget"}:
            raise _fail(path, "search", "expected a mapping with width and/or budget")
        search = SearchConfig(
            _number(path, "search.width", entry.get("width", search.width), int, 1, 16),
            _number(path, "search.budget", entry.get("budget", search.budget), int, 1),
        )
    return SynthConfig(_model(path, "generator", data["generator"]), _model(path, "simulator", data["simulator"]), threshold, search)


def load_config(path: Path) -> SynthConfig:
    """Read and check the synth config; every problem is a UserError naming the file and key."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"{path}: cannot read the synth config ({error.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "YAML"
        raise UserError(f"{path}: {where}: not valid YAML ({getattr(error, 'problem', error)})") from None
    return parse_config(data, path)
