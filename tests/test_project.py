"""The project's links and citation agree everywhere they are written: validator/project.py,
pyproject's [project.urls], CITATION.cff and the dataset card (whose BibTeX once had no year
and no URL, and which linked to no repository)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from validator import __version__, project

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_urls_are_the_projects() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert data["urls"] == {
        "Homepage": project.HOMEPAGE,
        "Repository": project.REPOSITORY,
        "Documentation": project.DOCUMENTATION,
        "Issues": project.ISSUES,
        "Dataset": project.DATASET_URL,
    }
    assert data["license"] == "Apache-2.0" and data["license-files"] == ["LICENSE"] and (ROOT / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("Apache License")


def test_citation_cff_says_the_same() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "Apache-2.0" and cff["version"] == __version__
    assert cff["repository-code"] == project.REPOSITORY and cff["title"] == project.TITLE
    cited = cff["preferred-citation"]
    assert cited["year"] == project.CITATION_YEAR and cited["url"] == project.DATASET_URL and cited["title"] == project.TITLE
    assert all(author.get("name") for author in cff["authors"] + cited["authors"])


def test_the_dataset_card_links_the_repository_and_cites_with_year_and_url() -> None:
    from tests.hub.helpers import FIXTURE
    from validator.corpus.index import Corpus
    from validator.hub.build import render_folder
    from validator.hub.corpus import Sources
    from validator.review.gate import review_summary

    corpus = Corpus.load(FIXTURE)
    _, files = render_folder(Sources.from_corpus(corpus), review_summary(corpus))
    card = files["README.md"]
    assert f"Repository (the YAML sources, the `callbank` package, issues and contributions): <{project.REPOSITORY}>" in card
    assert f"Homepage: <{project.HOMEPAGE}>" in card
    bibtex = re.search(r"```bibtex\n(.*?)```", card, re.DOTALL)
    assert bibtex is not None
    entry = bibtex.group(1)
    assert f"year         = {{{project.CITATION_YEAR}}}" in entry and f"url          = {{{project.DATASET_URL}}}" in entry
    assert entry.count("{") == entry.count("}")  # a BibTeX parser reads it to the end
