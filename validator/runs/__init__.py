"""Runs as the evaluator sees them: prediction files with their manifests (shards merged),
their usage and cost, ready for ``score``, ``report``, ``compare`` and ``leaderboard``."""
