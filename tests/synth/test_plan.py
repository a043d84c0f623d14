"""Recipes: deterministic per (category, APIs, seed, index), and each category's exercise fits its target."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.corpus.index import Corpus
from validator.errors import UserError
from validator.synth.plan import SUPPORTED, plan, pool, sandbox_clocks
from validator.toolsearch import SEARCH_API

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.load(ROOT, kinds=("api", "state"))


def test_the_same_seed_plans_the_same_recipes_and_another_seed_others(corpus: Corpus) -> None:
    specs = pool(corpus, sandbox="travel")
    first = plan("special/incomplete", specs, sandbox_clocks(corpus), 20, 1)
    assert [r.key for r in first] == [r.key for r in plan("special/incomplete", specs, sandbox_clocks(corpus), 20, 1)]
    assert [r.key for r in first] != [r.key for r in plan("special/incomplete", specs, sandbox_clocks(corpus), 20, 2)]
    assert len({r.key for r in first}) == 20


@pytest.mark.parametrize("category", SUPPORTED)
def test_every_supported_category_plans_what_it_must_exercise(corpus: Corpus, category: str) -> None:
    specs = pool(corpus)
    for recipe in plan(category, specs, sandbox_clocks(corpus), 8, 3, searchable=True):
        if category.startswith("retrieval/"):  # only the search is offered; the answer calls what it finds
            assert recipe.apis == (SEARCH_API,) and SEARCH_API not in recipe.targets and recipe.callable == recipe.targets
            first, *then = (corpus.specs[name] for name in recipe.targets)
            assert recipe.exercise["api"] == first.name and recipe.checkpoints == 1
            assert len(then) == (category == "retrieval/plan") and all(other.sandbox == first.sandbox for other in then)
            continue
        assert set(recipe.targets) <= set(recipe.apis) and len(recipe.apis) == len(set(recipe.apis))
        spec = corpus.specs[recipe.exercise["api"]] if "api" in recipe.exercise else None
        if category == "special/incomplete":
            assert spec is not None and recipe.exercise["param"] in spec.required
        elif category == "special/error_param":
            assert spec is not None and recipe.exercise["param"] in spec.properties
        elif category == "normal/similar_api":
            rival = corpus.specs[recipe.exercise["rival"]]
            assert spec is not None and rival.domain == spec.domain and rival.name in recipe.apis
        elif category.startswith("normal/multi_turn/"):
            assert recipe.checkpoints == 2
        elif category == "special/irrelevant":
            assert recipe.targets == ()
        if spec is not None:  # the dialogue's "now" is the clock of the target's sandbox
            assert recipe.time == sandbox_clocks(corpus)[spec.sandbox or ""]


def test_a_category_that_cannot_be_planned_says_why(corpus: Corpus) -> None:
    with pytest.raises(UserError, match="no sandbox of this repository runs it"):
        plan("retrieval/call", pool(corpus), {}, 1, 0)  # a repository without a tool search
    with pytest.raises(UserError, match="two runnable APIs of one sandbox"):
        plan("retrieval/plan", [corpus.specs["get_weather_forecast"]], {}, 1, 0, searchable=True)
    weather_only = [corpus.specs["get_weather"]] if "get_weather" in corpus.specs else pool(corpus)[:1]
    with pytest.raises(UserError, match="two runnable APIs of one domain"):
        plan("normal/similar_api", weather_only, {}, 1, 0)
