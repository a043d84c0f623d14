"""Review: judge models vote on every case, a human decides the rest, the gate reads the outcome.

- ``judges``   the judges file (``review/judges.yaml``): which models vote, and how;
- ``items``    what is reviewed: cases and agent scenarios, with their content hash;
- ``prompts``  the versioned judge prompts (``prompts/<family>.v<N>.<lang>.md``) and their filling;
- ``material`` the case as the judge sees it: rendered specs, dialogue and answers, en and zh;
- ``verdict``  parsing a judge's JSON verdict (malformed replies are retried, then errors);
- ``client``   asking an OpenAI-compatible endpoint, with retries and a reachability probe;
- ``votes``    the append-only vote cache ``review/votes/<id>.jsonl``;
- ``records``  the records ``review/queue/<id>.yaml`` (atomic writes) and how votes fill them;
- ``runner``   ``callbank review run``; ``resolve`` the human side; ``gate`` what blocks publishing.

See docs/review.md for the process and the file formats.
"""

from __future__ import annotations

REVIEW_DIR = "review"
QUEUE_DIR = "review/queue"
VOTES_DIR = "review/votes"
JUDGES_FILE = "review/judges.yaml"
