"""Several runs in one table (``callbank leaderboard``), from their manifests and scores."""
