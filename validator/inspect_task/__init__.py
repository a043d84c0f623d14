"""callbank as an Inspect task (``inspect_ai``, the ``inspect`` extra).

``inspect eval validator/inspect_task/task.py --model openai-api/local/NAME`` runs the corpus'
cases and scenarios through any provider Inspect supports, and scores them with callbank's own
scorer, so the numbers equal ``callbank score`` on the same outputs. See docs/evaluating.md.
"""
