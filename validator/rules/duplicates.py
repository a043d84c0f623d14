"""Near-duplicate cases (DLG041): a request too close to another case's, or another case's frame.

The similarity itself — shingles, MinHash LSH, skeletons, thresholds — is
:mod:`validator.similarity`, which the synthesis pipeline and the export guard use too; this
module only turns its answers into findings. Of two close cases the one later in path order is
reported, naming the earlier one: the pair needs one rewrite, not two.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.index import Corpus
from validator.corpus.records import Case, UserTurn
from validator.diagnostics import Finding, join_pointer
from validator.rules.registry import CORPUS, rule
from validator.similarity import SHINGLE_SIZE, SKELETON_THRESHOLD, TEXT_THRESHOLD, CorpusSimilarity, Neighbour, api_sequence, skeleton


def _first_user_pointer(case: Case, lang: str) -> str:
    dialogue = case.dialogues[lang]
    first = next((t for t in dialogue.turns if isinstance(t, UserTurn)), None)
    return join_pointer(lang, "turns", first.index, "user") if first is not None else join_pointer(lang)


def _apis(case: Case) -> str:
    parts = [" + ".join(step) if not step[0].startswith("special:") else step[0].removeprefix("special:") for step in api_sequence(case)]
    return " → ".join(parts)


@rule("DLG041", "near-duplicate-case", "A case's request is too close to another case's, or repeats its API sequence and sentence frame.", on=CORPUS)
def near_duplicate_case(corpus: Corpus, context: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Compares every case with every other, in each language: the user's words (normalised,
    cut into character shingles — 5 characters in English, 3 in Chinese) are too close when
    the Jaccard similarity of the shingle sets reaches 0.5; and a case that has another case's
    API sequence (the APIs of every checkpoint, or its special answer) repeats its frame when
    the two requests with the answer's values masked reach 0.6. Of two close cases the later
    one in path order is reported. Runs when the whole corpus is checked (`callbank check`
    with no paths, `callbank validate`), not on the files a pre-commit hook passes.
    ## Why is this bad?
    A near-duplicate counts one test twice: it weighs its category toward one skill, and a
    model that learned one case passes the other. The same frame with other values ("Text Mom:
    …", "What's the city code for …?") teaches the model the template instead of the task.
    ## Example
    ```yaml
    # similar-0071.yaml
    - user: I've completely lost track of when the Harbor Logistics quarterly call is. Can you find it?
    # rt-call-0035.yaml
    - user: I've lost track of when the Harbor Logistics quarterly call is. Can you dig it up for me?
    ```
    ## Use instead
    Rewrite the later case in new words, with its own situation (in both languages, the answer
    key kept right), or drop it:
    ```yaml
    # rt-call-0035.yaml
    - user: Harbor Logistics just emailed about "the usual quarterly sync" — when is it, again?
    ```
    """
    cases = corpus.cases_in()
    index = CorpusSimilarity(cases)
    order = {case.id: case.path for case in cases}
    for case in cases:
        earlier = [n for n in index.neighbours(case) if order[n.case_id] < case.path]
        reported: set[str] = set()
        for neighbour in sorted(earlier, key=lambda n: (n.kind != "request", -n.similarity, order[n.case_id], n.lang)):
            if neighbour.case_id in reported:
                continue  # one finding per pair: the closest reason
            reported.add(neighbour.case_id)
            yield Finding(_message(case, corpus.cases[neighbour.case_id], neighbour), _first_user_pointer(case, neighbour.lang), path=case.path)


def _message(case: Case, other: Case, neighbour: Neighbour) -> str:
    lang = neighbour.lang
    if neighbour.kind == "request":
        return (
            f"the {lang} request is too close to {other.id}'s ({other.path}): Jaccard {neighbour.similarity:.2f} of "
            f"{SHINGLE_SIZE[lang]}-character shingles, threshold {TEXT_THRESHOLD}; rewrite it in new words and its own "
            "situation (both languages, answer key kept right) or drop one of the two cases"
        )
    frame = skeleton(case.dialogues[lang])
    shown = frame if len(frame) <= 80 else frame[:77] + "…"
    return (
        f"repeats {other.id}'s API sequence ({_apis(case)}) and its {lang} sentence frame with other values "
        f"('{shown}', similarity {neighbour.similarity:.2f}, threshold {SKELETON_THRESHOLD}); give the request a shape "
        "of its own (what the user knows, why they ask, what comes first) or drop one of the two cases"
    )
