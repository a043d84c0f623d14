"""Review rules (REV): what in review/queue/ forbids building or publishing.

They run in the ``review`` stage, the publishing gate (``validator.review.gate``): `callbank
build` and `callbank publish` refuse while any of them reports. A record whose case or scenario
no longer exists blocks nothing (that item is not published); cases without a record are not
reviewed yet, and ``callbank review run`` gives them one.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.canonical import content_hash
from validator.corpus.index import Corpus, LoadedFile
from validator.corpus.records import ReviewRecord
from validator.diagnostics import Finding
from validator.loading import Document
from validator.rules.registry import rule

QUEUE = "review/queue"
REVIEWED_KINDS = ("case", "scenario")


def reviewed_document(corpus: Corpus, record: ReviewRecord) -> Document | None:
    """The case or scenario a record is about: by its recorded path, else by its id."""
    documents = [f.document for f in corpus.loaded(REVIEWED_KINDS) if f.document is not None]
    for document in documents:
        if document.path == record.item_path:
            return document
    return next((d for d in documents if isinstance(d.data, dict) and d.data.get("id") == record.id), None)


@rule("REV001", "review-pending", "A case's review record is pending a human decision.", on=ReviewRecord, stage="review")
def review_pending(record: ReviewRecord, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports every record in `review/queue/` whose `status` is `pending`: at least one judge found
    a problem or gave no usable verdict, and the human reviews are not complete (two independent
    reviews that agree, or a final decision by a third reviewer when they disagree).
    ## Why is this bad?
    A flagged case may have a wrong expected answer, an ambiguous request or a Chinese side that
    says something the English side does not. Publishing it would score models against an answer
    nobody has confirmed.
    ## Example
    ```yaml
    # review/queue/single-0007.yaml
    id: single-0007
    status: pending
    votes:
      - {judge: gpt, verdict: invalid, problems: ["the user never says which city"], …}
    reviews: []
    ```
    ## Use instead
    Read the votes with `callbank review show single-0007`, then record two independent reviews:
    ```console
    $ callbank review resolve single-0007 --accept --reviewer alice --note "the city is given in turn 1"
    $ callbank review resolve single-0007 --accept --reviewer bob --note "agree with alice"
    ```
    or fix the case and run `callbank review run` on it again.
    """
    if record.status == "pending" and reviewed_document(corpus, record) is not None:
        yield Finding(f"{record.id} is pending review; decide it with `callbank review resolve {record.id} --accept|--reject --reviewer NAME --note TEXT`", "/status")


@rule("REV002", "review-rejected", "A case was rejected in review and is still in the corpus.", on=ReviewRecord, stage="review")
def review_rejected(record: ReviewRecord, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports every record in `review/queue/` whose `status` is `rejected` while its case (or
    scenario) still exists.
    ## Why is this bad?
    The reviewers decided the case is wrong; publishing it would ship a known-bad test.
    ## Example
    ```yaml
    # review/queue/sp-incomplete-0003.yaml
    id: sp-incomplete-0003
    status: rejected
    reviews:
      - {reviewer: alice, role: review, decision: reject, note: "from_city is optional in the spec"}
      - {reviewer: bob, role: review, decision: reject, note: "agree"}
    ```
    ## Use instead
    Fix the case as the reviews and votes say (its content hash changes), then run
    `callbank review run dialogues/special/incomplete/sp-incomplete-0003.yaml` to review the new
    content, or delete the case.
    """
    reviewed = reviewed_document(corpus, record) if record.status == "rejected" else None
    if reviewed is not None:
        yield Finding(f"{record.id} was rejected in review; fix or remove {reviewed.path}, then run `callbank review run {reviewed.path}`", "/status")


@rule("REV003", "changed-after-acceptance", "A case's content differs from the content its review accepted.", on=ReviewRecord, stage="review")
def changed_after_acceptance(record: ReviewRecord, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Compares the content hash of every case and scenario with `accepted_hash` of its accepted
    review record (the sha256 of the item's canonical JSON when it was accepted).
    ## Why is this bad?
    The judges and reviewers accepted other content. An edit after acceptance, however small, is
    unreviewed: it may change the expected answer or break bilingual parity.
    ## Example
    `dialogues/normal/single_turn/single/single-0001.yaml` was accepted with
    `accepted_hash: sha256:4be1…`; a later commit changed `days: 3` to `days: 2`.
    ## Use instead
    ```console
    $ callbank review run dialogues/normal/single_turn/single/single-0001.yaml
    ```
    The judges vote on the new content; the record is accepted again or queued for humans.
    """
    reviewed = reviewed_document(corpus, record) if record.status == "accepted" else None
    if reviewed is not None and record.accepted_content != content_hash(reviewed.data):
        message = f"{record.id} changed after its review accepted it ({record.path}); run `callbank review run {reviewed.path}`"
        yield Finding(message, path=reviewed.path, line=1, column=1)


@rule("REV004", "unreadable-review-record", "A review record cannot be read, breaks its schema or has an unknown status.", on="file", kinds="review-record", stage="review")
def unreadable_review_record(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reads every file in `review/queue/` and validates it against
    `schemas/review-record.schema.json`.
    ## Why is this bad?
    The gate cannot tell whether the case was accepted, so it must not let it be published. A
    broken record is usually a hand edit or a bad merge.
    ## Example
    ```yaml
    id: single-0001
    status: approved
    ```
    ## Use instead
    ```yaml
    id: single-0001
    status: accepted
    accepted_hash: sha256:…
    ```
    Restore the record from git, or delete it and run `callbank review run` on the case.
    """
    if file.problems or file.document is None:
        problem = file.problems[0] if file.problems else None
        message = problem.message if problem is not None else "the file is empty"
        yield Finding(f"the review record cannot be read: {message}", line=problem.line if problem else None, column=problem.column if problem else None)
    elif not isinstance(file.document.data, dict):
        yield Finding("the review record is not a mapping; fix it or remove it and run `callbank review run`")
    elif file.schema_errors:
        message, pointer = file.schema_errors[0]
        yield Finding(f"the review record breaks its schema: {message} (schema: schemas/review-record.schema.json)", pointer)
