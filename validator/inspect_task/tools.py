"""A scenario's sandbox APIs as Inspect tools, and the agent loop that uses them (fc mode).

Each API the scenario offers becomes an Inspect ``ToolDef`` with the spec's description and
parameters in the run's language; calling it runs the call in the episode's sandbox session (the
same ``validator.models.episode`` environment ``callbank run`` uses) and returns the observation
as JSON text, exactly as ``callbank run`` shows it. The loop is ``callbank run``'s episode
(``validator.models.episode.run_episode_async``) written with Inspect's ``generate`` and
``execute_tools``, so Inspect's log shows every call as a tool event, and the prediction record it
keeps — calls with ``at``, messages in OpenAI shape — is the one ``callbank run`` writes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, Model, execute_tools
from inspect_ai.tool import ToolDef, ToolParams

from validator.corpus.records import Scenario, Spec
from validator.inspect_task.convert import openai_tool_calls, to_inspect, to_reply
from validator.models.episode import DEFAULT_MAX_TURNS, Environment, add_usage
from validator.models.prompts import system_prompt
from validator.models.request import scenario_apis, tools_for
from validator.models.user import User


def sandbox_tools(tools: list[dict[str, Any]], environment: Environment) -> list[ToolDef]:
    """The OpenAI ``tools`` of a scenario as Inspect tools executing in environment."""

    def runner(api: str) -> Any:
        async def run(**arguments: Any) -> str:
            return json.dumps(environment.call(api, dict(arguments)), ensure_ascii=False, default=str)

        return run

    defs = []
    for tool in tools:
        function = tool["function"]
        parameters = ToolParams.model_validate(function.get("parameters") or {"type": "object", "properties": {}})
        # parallel=False: the calls of one turn run one after another, in order, as callbank runs them (state depends on order)
        defs.append(ToolDef(runner(function["name"]), name=function["name"], description=function.get("description") or function["name"], parameters=parameters, parallel=False))
    return defs


async def run_scenario(
    model: Model, scenario: Scenario, lang: str, specs: Mapping[str, Spec], environment: Environment, policy: str, user: User, *, style: str = "standard", max_turns: int | None = None
) -> tuple[dict[str, Any], list[ChatMessage]]:
    """One scenario in fc mode with the APIs as Inspect tools: (the prediction record, Inspect's messages)."""
    syntax = "tool_calls"
    tools = tools_for(scenario_apis(scenario, specs), specs, lang)
    defs = sandbox_tools(tools, environment)
    system = {"role": "system", "content": system_prompt(lang, syntax, tools=tools, time=scenario.time, policy=policy, style=style)}
    messages: list[dict[str, Any]] = []  # the conversation as callbank records it (OpenAI shape, no system prompt)
    inspect_messages: list[ChatMessage] = to_inspect([system])
    calls: list[dict[str, Any]] = []
    usage: dict[str, Any] = {}
    record: dict[str, Any] = {"id": scenario.id, "lang": lang, "step": 0, "calls": calls, "messages": messages}
    opening = await user.first()
    if opening is not None:
        messages.append({"role": "user", "content": opening})
        inspect_messages.append(ChatMessageUser(content=opening))
    for _ in range(int(max_turns or scenario.max_turns or DEFAULT_MAX_TURNS)):
        output = await model.generate(inspect_messages, tools=defs)
        add_usage(usage, to_reply(output, True).usage)
        message: ChatMessageAssistant = output.message
        inspect_messages.append(message)
        if message.tool_calls:
            entries = openai_tool_calls(message.tool_calls)
            messages.append({"role": "assistant", "content": message.text or None, "tool_calls": entries})
            at = len(messages) - 1
            calls.extend({"api": call.function, "args": dict(call.arguments), "at": at} for call in message.tool_calls)
            result = await execute_tools(inspect_messages, defs)
            for tool_message in result.messages:
                inspect_messages.append(tool_message)
                messages.append({"role": "tool", "tool_call_id": getattr(tool_message, "tool_call_id", None), "name": getattr(tool_message, "function", None), "content": tool_message.text})
            continue
        messages.append({"role": "assistant", "content": message.text or ""})
        said = await user.reply(messages)
        if said is None:
            break
        messages.append({"role": "user", "content": said})
        inspect_messages.append(ChatMessageUser(content=said))
    if usage:
        record["usage"] = usage
    return record, inspect_messages
