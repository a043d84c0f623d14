"""The null model: answers nothing, ever. It must score 0 except where doing nothing is right."""

from __future__ import annotations

from validator.models.base import ModelContext, Reply, Request


class NullModel:
    name = "null"

    def complete(self, request: Request) -> Reply:
        return Reply("", [] if request.syntax == "tool_calls" else None)


def create(context: ModelContext) -> NullModel:
    return NullModel()
