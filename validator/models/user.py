"""The user side of an agent scenario: the scenario's script, or a simulator model.

A user opens the conversation (:meth:`first`) and, each time the agent answers in text, says
the next thing (:meth:`reply`) — or ``None``: the conversation is over.

- :class:`ScriptedUser` says the scenario's ``user.<lang>.script`` lines in order, then stops.
- :class:`SimulatedUser` is a chat model playing the user from the scenario's goal, what the user
  knows and does not know (prompt ``prompts/<version>/user.<lang>.md``). It sees only the
  text of the conversation — never calls or their results — with the roles swapped, and ends
  the conversation by writing :data:`~validator.models.prompts.STOP_MARKER`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from validator.corpus.records import Scenario
from validator.models.prompts import PROMPT_VERSION, STOP_MARKER, user_prompt
from validator.scoring.transcript import is_call_text, message_text

if TYPE_CHECKING:  # the openai SDK is an optional extra: built-in models run without it
    from validator.models.endpoint import ChatClient


class User(Protocol):
    async def first(self) -> str | None: ...

    async def reply(self, messages: Sequence[Mapping[str, Any]]) -> str | None: ...


UserFactory = Callable[[Scenario, str], User]


class ScriptedUser:
    def __init__(self, script: Sequence[str]) -> None:
        self.script = [str(line) for line in script]
        self.said = 0

    async def first(self) -> str | None:
        return self._next()

    async def reply(self, messages: Sequence[Mapping[str, Any]]) -> str | None:
        return self._next()

    def _next(self) -> str | None:
        if self.said >= len(self.script):
            return None
        self.said += 1
        return self.script[self.said - 1]


def scripted_user(scenario: Scenario, lang: str) -> ScriptedUser:
    return ScriptedUser(scenario.user[lang].script)


def visible_text(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) of what a user sees: user turns and the agent's words (a string or OpenAI
    content parts, also next to tool calls) — never calls, call lists written as text, or tool
    results. The same words the scorer counts as told (``validator.scoring.transcript``)."""
    seen: list[tuple[str, str]] = []
    for message in messages:
        role = message.get("role")
        content = message_text(message.get("content"))
        if role not in ("user", "assistant") or content is None or not content.strip():
            continue
        if role == "assistant" and is_call_text(content):
            continue
        seen.append((str(role), content))
    return seen


class SimulatedUser:
    def __init__(self, client: ChatClient, side: Mapping[str, Any], lang: str, version: str = PROMPT_VERSION) -> None:
        self.client = client
        self.system, self.opening = user_prompt(side, lang, version)

    async def first(self) -> str | None:
        return await self._speak([])

    async def reply(self, messages: Sequence[Mapping[str, Any]]) -> str | None:
        return await self._speak(visible_text(messages))

    async def _speak(self, seen: list[tuple[str, str]]) -> str | None:
        flipped = [{"role": "assistant" if role == "user" else "user", "content": text} for role, text in seen]
        conversation = [{"role": "system", "content": self.system}, {"role": "user", "content": self.opening}]
        for message in flipped:  # keep the turns alternating (the agent may speak twice in a row)
            if conversation[-1]["role"] == message["role"]:
                conversation[-1] = {**conversation[-1], "content": conversation[-1]["content"] + "\n\n" + message["content"]}
            else:
                conversation.append(message)
        if conversation[-1]["role"] == "assistant":  # nothing new from the agent to answer
            return None
        result = await self.client.chat(conversation)
        text = (result.content or "").strip()
        if not text or STOP_MARKER in text:
            return None
        return text


def simulated_users(client: ChatClient, version: str = PROMPT_VERSION) -> UserFactory:
    def make(scenario: Scenario, lang: str) -> User:
        return SimulatedUser(client, scenario.user[lang].data, lang, version)

    return make
