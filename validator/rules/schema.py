"""File-level rules: schema conformance, the schema comment, names and places of files."""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.categories import CASE_CATEGORIES
from validator.corpus.index import Corpus
from validator.diagnostics import Finding
from validator.loading import SCHEMA_COMMENT, Document
from validator.rules.registry import rule
from validator.schemas import SCHEMA_FILES, schema_comment_target

SCHEMA_KINDS = tuple(SCHEMA_FILES)
MAX_MESSAGE = 240
MAX_LISTED = 20  # allowed values the text lists in full (JSON output always has them all)


def _shorten(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


@rule("SCH010", "schema-violation", "The document does not conform to its JSON Schema.", on="document", kinds=SCHEMA_KINDS)
def schema_violation(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Validates the document against its schema in `schemas/` (draft 2020-12) and reports each
    violation at the place it occurs. A more specific finding at the same place (or below it)
    replaces this one, unless `--select`/`--ignore` leave that finding out.
    ## Why is this bad?
    Every later stage (execution, scoring, publishing) relies on the documented shape: a file
    that breaks its schema has no record, so no other rule, `run` or `score` reads it.
    ## Example
    ```yaml
    category: normal/single-turn
    ```
    ## Use instead
    ```yaml
    category: normal/single_turn/single
    ```
    """
    schema_file = SCHEMA_FILES[document.kind]
    if not corpus.load_file(document.path).schema_errors:
        return
    for violation in corpus.schemas.violations(document.kind, document.data):  # with the complete allowed values
        message = violation.message if 0 < len(violation.allowed) <= MAX_LISTED else _shorten(violation.message)
        yield Finding(f"{message} (schema: schemas/{schema_file})", violation.pointer, allowed=violation.allowed)


@rule("SCH011", "missing-schema-comment", "The first line does not name the file's schema.", on="document", kinds=SCHEMA_KINDS)
def missing_schema_comment(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Checks that the file starts with `# yaml-language-server: $schema=<relative path>` naming
    the schema of its kind.
    ## Why is this bad?
    Without it, contributors' editors cannot complete keys or flag mistakes as they type.
    ## Example
    ```yaml
    id: sp-irrelevant-0001
    ```
    ## Use instead
    ```yaml
    # yaml-language-server: $schema=../../../schemas/case.schema.json
    id: sp-irrelevant-0001
    ```
    """
    expected = schema_comment_target(document.path, document.kind)
    match = SCHEMA_COMMENT.match(document.first_line)
    if match is None:
        yield Finding(f"the first line must be '# yaml-language-server: $schema={expected}'")
    elif match["target"] != expected:
        yield Finding(f"the schema comment points at {match['target']}; it must be {expected}")


@rule("SCH012", "unexpected-file", "A YAML file where no corpus document belongs.", on="document", kinds="unknown")
def unexpected_file(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports YAML files under `specs/ dialogues/ sandboxes/ review/` that are not an API spec, a
    case, a sandbox state, a scenario, the judges file or a review record.
    ## Why is this bad?
    Such a file is never checked nor published, usually because it is misplaced or misnamed.
    ## Example
    `sandboxes/phone/scenario-1.yaml`
    ## Use instead
    `sandboxes/phone/scenarios/phone-0001.yaml`
    """
    yield Finding(
        "this file is not where any corpus document belongs; see docs/data-model.md for the layout "
        "(scenarios go in sandboxes/<name>/scenarios/, queue records in review/queue/)"
    )


@rule("SCH013", "id-not-file-stem", "The `id` (or an API's `name`) differs from the file name.", on="document", kinds=("api", "case", "scenario"))
def id_not_file_stem(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Checks that a case's or scenario's `id`, and an API spec's `name`, equal the file stem.
    ## Why is this bad?
    Ids are how predictions, review records and reports refer to a file; if they differ from
    the file name, people edit the wrong file.
    ## Example
    `dialogues/special/irrelevant/sp-irrelevant-0002.yaml` with `id: sp-irrelevant-0001`
    ## Use instead
    `id: sp-irrelevant-0002`, or rename the file.
    """
    data = document.data
    if not isinstance(data, dict):
        return
    key = "name" if document.kind == "api" else "id"
    value = data.get(key)
    if isinstance(value, str) and value != document.stem:
        yield Finding(f"{key} {value!r} differs from the file name {document.stem!r}; rename one of them", "/" + key)


@rule("SCH014", "misplaced-file", "The file's folder disagrees with its category, domain or sandbox.", on="document", kinds=("api", "case", "scenario", "state"))
def misplaced_file(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    A case lives in `dialogues/<category>/`, a spec in `specs/<first segment of domain>/`, a
    scenario under a sandbox it lists in `sandboxes`, a state's `sandbox` names its folder.
    ## Why is this bad?
    Contributors and reviewers find files by folder; a misplaced file is counted in the wrong
    category by anyone reading the tree.
    ## Example
    `dialogues/normal/atom/bool/atom-bool-0001.yaml` with `category: normal/atom/enum`
    ## Use instead
    Move the file to `dialogues/normal/atom/enum/`, or fix the category.
    """
    data = document.data
    if not isinstance(data, dict):
        return
    parts = document.path.split("/")
    if document.kind == "case" and data.get("category") in CASE_CATEGORIES:  # an unknown one is SCH010's, with the real ones
        folder = "/".join(parts[1:-1])
        if folder != data["category"]:
            yield Finding(f"category {data['category']!r} but the file is in dialogues/{folder}/; move it to dialogues/{data['category']}/", "/category")
    elif document.kind == "api" and isinstance(data.get("domain"), str):
        top = data["domain"].split(".")[0]
        if len(parts) != 3 or parts[1] != top:
            yield Finding(f"domain {data['domain']!r} belongs in specs/{top}/; move the file there", "/domain")
    elif document.kind == "scenario" and isinstance(data.get("sandboxes"), list):
        if parts[1] not in data["sandboxes"]:
            yield Finding(f"the scenario is stored under sandboxes/{parts[1]}/ but does not use that sandbox; list it in sandboxes or move the file", "/sandboxes")
    elif document.kind == "state" and isinstance(data.get("sandbox"), str) and data["sandbox"] != parts[1]:
        yield Finding(f"sandbox {data['sandbox']!r} but the file is in sandboxes/{parts[1]}/; they must agree", "/sandbox")
