"""The dataset's configs: one per case category, one per agent mode, plus `apis` and `sandboxes`.

Splits are languages (`en`, `zh`; the one language of a one-language repository): every config
has each, with the same items in the same order (sorted by id or name), so row i of `en` and
row i of `zh` are the same item.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from validator.corpus.categories import CASE_CATEGORIES, SCENARIO_MODES
from validator.corpus.langs import LANGS
from validator.hub.corpus import Sources

SPLITS = LANGS  # a dataset split is a language (the repository's: Corpus.langs): row i of every split is the same item

# the configs in the order the card lists them: case categories, then agent modes
AGENT_MODES = SCENARIO_MODES


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


def configs_of(sources: Sources) -> list[Config]:
    """Every non-empty config of the corpus, in card order."""
    corpus = sources.corpus
    configs: list[Config] = []
    for category in CASE_CATEGORIES:
        items = [dict(case.data) for case in corpus.cases_in((category,))]
        if items:
            configs.append(Config(config_name(category), "case", category, f"cases of category `{category}`", items))
    for mode in AGENT_MODES:
        items = [dict(s.data) for s in corpus.scenarios_in((f"agent/{mode}",))]
        if items:
            doc = f"agent scenarios, mode `{mode}`, with the states and policies of their sandboxes"
            configs.append(Config(f"agent_{mode}", "scenario", f"agent/{mode}", doc, items))
    if corpus.specs:
        specs = [dict(spec.document.data) for _, spec in sorted(corpus.specs.items())]
        configs.append(Config("apis", "api", "apis", "API specs (function schemas per language)", specs))
    if sources.sandboxes:
        sandboxes = [sandbox for _, sandbox in sorted(sources.sandboxes.items())]
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
