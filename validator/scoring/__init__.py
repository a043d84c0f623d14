"""Scoring: read predictions, parse them without executing anything, compare, aggregate.

``parse`` turns a model's raw answer into calls or a special answer (or a format error);
``match`` compares calls with a checkpoint's answer; ``agent`` scores agent scenarios by
replaying the agent's calls; ``metrics`` aggregates verdicts; ``report`` renders the result.
``scorer`` ties them together. Every module works on plain data.
"""
