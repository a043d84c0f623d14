"""callbank's model protocol over an Inspect model: the runner's episodes, unchanged, on Inspect.

A case checkpoint, a retrieval episode or a prompt-mode scenario is run by callbank's own code
(``validator.models``) with this adapter as the model, so the requests are the ones
``callbank run`` sends: in fc mode the messages and ``tools`` as they are, in prompt mode the
conversation flattened to text and no tools (``validator.models.endpoint.text_messages``).
"""

from __future__ import annotations

from inspect_ai.model import Model, ModelOutput

from validator.inspect_task.convert import to_inspect, to_reply, tool_infos
from validator.models.base import Reply, Request
from validator.models.endpoint import native_messages, text_messages


class InspectModel:
    """The Model protocol (``acomplete``) over an Inspect model; ``outputs`` keeps what it said."""

    def __init__(self, model: Model, style: str) -> None:
        self.model = model
        self.name = str(model)
        self.style = style
        self.outputs: list[ModelOutput] = []

    async def acomplete(self, request: Request) -> Reply:
        native = request.syntax == "tool_calls"
        if native:
            messages = to_inspect(native_messages(request.messages))
            output = await self.model.generate(messages, tools=tool_infos(request.tools) if request.tools else [])
        else:
            output = await self.model.generate(to_inspect(text_messages(request.messages, request.lang, request.syntax, self.style)))
        self.outputs.append(output)
        return to_reply(output, native)

    def complete(self, request: Request) -> Reply:
        raise NotImplementedError("an Inspect model is asked from Inspect's event loop: use acomplete")
