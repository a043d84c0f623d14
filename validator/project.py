"""Where the project lives and how to cite it: one place for the dataset card, CITATION.cff and
pyproject's ``[project.urls]`` (a test keeps the three equal). Constants, not the installed
package's metadata, so a build reads the same text from a checkout as from a wheel."""

from __future__ import annotations

from typing import Final

REPOSITORY: Final = "https://github.com/callbank/callbank"
DATASET_ID: Final = "callbank/callbank"  # on the Hugging Face Hub
DATASET_URL: Final = f"https://huggingface.co/datasets/{DATASET_ID}"
HOMEPAGE: Final = REPOSITORY
DOCUMENTATION: Final = f"{REPOSITORY}/tree/main/docs"
ISSUES: Final = f"{REPOSITORY}/issues"
CITATION_YEAR: Final = 2026  # the year of the first release; CITATION.cff's preferred-citation says the same
TITLE: Final = "callbank: a bilingual benchmark of tool use, kept as a declarative repository"
