"""Tokens, requests, retries, latency and cost of a run, read from its records and manifest.

Every record ``callbank run`` writes for an endpoint model carries ``usage``: a case
checkpoint its one completion (tokens, ``latency_s``, ``attempts``), an episode (agent scenario
or retrieval checkpoint) the sum of its completions with ``turns``, ``attempts`` and every
``latencies_s``. The totals therefore cover every session and every shard of a run, however it
was split. Latency is per completion, retries included (what a user of the model waits); p50
and p95 interpolate linearly between the nearest ranks. The user simulator's tokens come from
the manifest's sessions. Cost needs a price table (``validator.runs.prices``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from validator.runs.prices import PriceTable

TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0–100) by linear interpolation between closest ranks."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def usage_totals(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Summed usage of records: completions, requests (attempts), retries, tokens, latency."""
    totals = {"records": 0, "completions": 0, "requests": 0, "retries": 0, "rejected": 0, **dict.fromkeys(TOKENS, 0)}
    latencies: list[float] = []
    reported = False
    for record in records:
        totals["records"] += 1
        if record.get("error"):
            totals["rejected"] += 1
        usage = record.get("usage")
        if not isinstance(usage, Mapping) or not usage:
            continue
        reported = True
        for key in TOKENS:
            totals[key] += _count(usage.get(key))
        if "latencies_s" in usage or "turns" in usage:  # an episode
            completions = _count(usage.get("turns"))
            found = [value for value in usage.get("latencies_s") or [] if isinstance(value, int | float)]
        else:
            completions = 1
            found = [usage["latency_s"]] if isinstance(usage.get("latency_s"), int | float) else []
        attempts = _count(usage.get("attempts")) or completions
        totals["completions"] += completions
        totals["requests"] += attempts
        totals["retries"] += max(0, attempts - completions)
        latencies.extend(found)
    latency = {
        "n": len(latencies),
        "p50": _r(percentile(latencies, 50)),
        "p95": _r(percentile(latencies, 95)),
        "mean": _r(sum(latencies) / len(latencies)) if latencies else None,
    }
    return {**totals, "latency_s": latency, "reported": reported}


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of a predictions file (others are skipped: the scorer reports them)."""
    records = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def simulator_totals(manifests: Iterable[Mapping[str, Any]]) -> dict[str, int] | None:
    """The user simulator's usage summed over every session of the manifests, or None."""
    total: dict[str, int] = {}
    for manifest in manifests:
        for session in manifest.get("sessions") or []:
            usage = session.get("user_usage") if isinstance(session, Mapping) else None
            if isinstance(usage, Mapping):
                for key, value in usage.items():
                    total[key] = total.get(key, 0) + _count(value)
    return total or None


def costs(model: str | None, totals: Mapping[str, Any], user_model: str | None, user: Mapping[str, int] | None, prices: PriceTable) -> dict[str, Any]:
    """The cost of the model's (and the simulator's) tokens, by the user's price table."""
    out: dict[str, Any] = {"currency": prices.currency, "source": prices.source}
    model_cost = prices.cost(model or "", totals["prompt_tokens"], totals["completion_tokens"]) if totals.get("reported") else None
    out["model"] = None if model_cost is None else round(model_cost, 6)
    if user is not None and user_model is not None:
        user_cost = prices.cost(user_model, user.get("prompt_tokens", 0), user.get("completion_tokens", 0))
        out["user"] = None if user_cost is None else round(user_cost, 6)
    missing = [name for name in (model, user_model if user is not None else None) if name and name not in prices.models]
    if missing:
        out["unpriced"] = missing
    return out


def run_totals(out: Path, manifest: Mapping[str, Any], prices: PriceTable | None) -> dict[str, Any]:
    """The ``totals`` a run's manifest keeps: usage over every record in out, the simulator's
    tokens, the sessions' wall time, and the cost when a price table was given."""
    return summarise([out], [manifest], prices)


def summarise(files: Sequence[Path], manifests: Sequence[Mapping[str, Any]], prices: PriceTable | None) -> dict[str, Any]:
    """Usage of a run made of files (several for a sharded run) with their manifests."""
    records = [record for path in files for record in read_records(path)]
    totals = usage_totals(records)
    user = simulator_totals(manifests)
    wall = sum(float(s.get("wall_time_s") or 0) for m in manifests for s in m.get("sessions") or [] if isinstance(s, Mapping))
    summary: dict[str, Any] = {**totals, "wall_time_s": round(wall, 3)}
    if user is not None:
        summary["user"] = user
    first = manifests[0] if manifests else {}
    if prices is not None:
        user_model = (first.get("user") or {}).get("model") if isinstance(first.get("user"), Mapping) else None
        summary["cost"] = costs(first.get("model"), totals, user_model, user, prices)
    return summary
