"""The dataset's configs: one per case category, one per agent mode, plus `apis` and `sandboxes`.

Splits are languages (`en`, `zh`): every config has both, with the same items in the same order
(sorted by id or name), so row i of `en` and row i of `zh` are the same item.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from validator.hub.corpus import Corpus

SPLITS = ("en", "zh")

# The case categories in the order the card lists them (docs/data-model.md).
CASE_CATEGORIES = (
    "normal/single_turn/single",
    "normal/single_turn/parallel",
    "normal/multi_turn/adjust",
    "normal/multi_turn/switch",
    "normal/similar_api",
    "normal/preference",
    "normal/atom/bool",
    "normal/atom/enum",
    "normal/atom/number",
    "normal/atom/list",
    "normal/atom/object",
    "special/incomplete",
    "special/error_param",
    "special/irrelevant",
    "retrieval/call",
    "retrieval/plan",
)
AGENT_MODES = ("multi_turn", "multi_step")


class Config(NamedTuple):
    name: str
    kind: str  # case | scenario | api | sandbox
    category: str  # the category it holds: a case category, agent/<mode>, apis or sandboxes
    doc: str
    items: list[dict[str, Any]]  # source items, sorted by key


def config_name(category: str) -> str:
    """`normal/single_turn/single` → `normal_single_turn_single`."""
    return category.replace("/", "_")


def data_path(config: str, split: str) -> str:
    return f"data/{config}/{split}.parquet"


def configs_of(corpus: Corpus) -> list[Config]:
    """Every non-empty config of the corpus, in card order."""
    configs: list[Config] = []
    categories = list(CASE_CATEGORIES)
    categories += sorted({case.get("category", "") for case in corpus.cases.values()} - set(categories))
    for category in categories:
        items = [case for _, case in sorted(corpus.cases.items()) if case.get("category") == category]
        if items:
            configs.append(Config(config_name(category), "case", category, f"cases of category `{category}`", items))
    for mode in AGENT_MODES:
        items = [s for _, s in sorted(corpus.scenarios.items()) if s.get("mode") == mode]
        if items:
            doc = f"agent scenarios, mode `{mode}`, with the states and policies of their sandboxes"
            configs.append(Config(f"agent_{mode}", "scenario", f"agent/{mode}", doc, items))
    if corpus.specs:
        specs = [spec for _, spec in sorted(corpus.specs.items())]
        configs.append(Config("apis", "api", "apis", "API specs (function schemas per language)", specs))
    if corpus.sandboxes:
        sandboxes = [sb.as_source() for _, sb in sorted(corpus.sandboxes.items())]
        configs.append(Config("sandboxes", "sandbox", "sandboxes", "sandboxes: initial state, policies, code", sandboxes))
    return configs


def kind_of_config(name: str) -> str:
    """The kind of item a config holds, from its name alone."""
    if name == "apis":
        return "api"
    if name == "sandboxes":
        return "sandbox"
    if name.startswith("agent_"):
        return "scenario"
    return "case"
