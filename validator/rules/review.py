"""Review rules (REV): raised by the review gate (validator/review/gate.py), documented here.

`callbank build` and `callbank publish` refuse while the gate reports any of them.
"""

from __future__ import annotations

from validator.rules.registry import declare

declare(
    "REV001",
    "review-pending",
    "A case's review record is pending a human decision.",
    stage="review",
    doc="""
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
    """,
)

declare(
    "REV002",
    "review-rejected",
    "A case was rejected in review and is still in the corpus.",
    stage="review",
    doc="""
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
    """,
)

declare(
    "REV003",
    "changed-after-acceptance",
    "A case's content differs from the content its review accepted.",
    stage="review",
    doc="""
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
    """,
)

declare(
    "REV004",
    "unreadable-review-record",
    "A review record cannot be read, breaks its schema or has an unknown status.",
    stage="review",
    doc="""
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
    """,
)
