"""Review rules (REV): what in review/queue/ forbids building or publishing.

REV001–REV004 run in the ``review`` stage, the publishing gate (``validator.review.gate``):
`callbank build` and `callbank publish` refuse while any of them reports. A record whose case or
scenario no longer exists blocks nothing (that item is not published). REV005 runs in the
``publish`` stage: a case or scenario with no review record yet may be built (a preview to look
at) but not published, unless `callbank publish --allow-unreviewed` says the dataset is a preview.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.canonical import content_hash
from validator.corpus.index import Corpus, LoadedFile
from validator.corpus.records import Case, ReviewRecord, Scenario
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


def review_record_of(corpus: Corpus, item: Case | Scenario) -> ReviewRecord | None:
    """The queue record of a case or scenario: the record with its id (records are named by id)."""
    return corpus.review_records.get(item.id)


@rule("REV005", "unreviewed-item", "A case or scenario has no review record, so it was never accepted.", on=(Case, Scenario), stage="publish")
def unreviewed_item(item: Case | Scenario, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports every case and scenario that has no record in `review/queue/` — nobody, neither
    the judge models nor a person, has accepted it. Only `callbank publish` applies it:
    `callbank build` builds such a corpus (to look at), and `callbank publish
    --allow-unreviewed` publishes it as a preview, which its dataset card then says.
    ## Why is this bad?
    Rule checks and execution prove a case is well formed and runnable, not that its request is
    unambiguous or its answer is what the user meant. Publishing unreviewed items as the
    benchmark would let models be ranked on answers nobody has confirmed.
    ## Example
    `dialogues/normal/single_turn/single/single-0002.yaml` was added after the last
    `callbank review run`; `review/queue/` has no `single-0002.yaml`.
    ## Use instead
    ```console
    $ callbank review run dialogues/normal/single_turn/single/single-0002.yaml
    ```
    The judges vote; a unanimous `valid` accepts it, anything else queues it for two reviewers.
    For a preview, `callbank publish --repo-id ORG/NAME --allow-unreviewed`.
    """
    if review_record_of(corpus, item) is None:
        yield Finding(
            f"{item.id} has no review record in {QUEUE}/, so it was never accepted; run `callbank review run {item.path}` "
            "(or publish a preview with --allow-unreviewed)"
        )
