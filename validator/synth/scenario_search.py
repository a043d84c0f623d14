"""Best-first search over the simulator's partial trajectories in an agent scenario.

Plain cycle consistency runs the simulator once through the scenario, as `callbank run` runs an
agent. The search walks the same episode loop (system prompt with the policy, the scenario's
tools, its scripted user, its sandboxes) one agent turn at a time: at every node it samples
``width`` next replies (one request each, different seeds), runs each reply's calls in a fork of
the sandbox session the path so far left behind, and continues from its own results. A node's
cost is

    g = agent turns taken + inconsistency with the reference so far
    h = 1 until the episode has ended (at least one more turn: admissible)

where a turn's inconsistency adds, per call, 0 when it matches a reference call not yet matched
(its API and its arguments, by the matchers, in the episode's language), ½ when it calls the API
of such a reference call with other arguments, and 1 otherwise (an extra call, a minefield); an
episode that ends (the scripted user has nothing more to say, or the turn limit) adds 1 unless
`callbank score`'s agent verdict is right. The first ended episode taken off the queue is the
most consistent the samples allow; when the ``budget`` of requests per language is spent first,
the best ended episode found is the answer, else the search reports the budget. Width 1 is
greedy sampling. Every sample is cached under its path, so a resumed run repeats no request.
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator import matchers
from validator.corpus.canonical import sha256_of
from validator.corpus.records import Scenario, Spec
from validator.models.base import Reply, Request
from validator.models.episode import DEFAULT_MAX_TURNS, reply_calls
from validator.models.prompts import PROMPT_VERSION, system_prompt
from validator.models.render import tool_calls
from validator.models.request import scenario_apis, tools_for
from validator.sandbox import replay as replay_module
from validator.sandbox.replay import scenario_session
from validator.sandbox.runtime import Runtime, Session
from validator.scoring.agent import AgentVerdict, ReferenceCache, SandboxReplayer, score_scenario
from validator.synth.client import Asker
from validator.synth.config import SearchConfig
from validator.synth.consistency import wire

BUDGET_ERROR = "search_budget"
PARTIAL_COST = 0.5  # the right API with other arguments


@dataclass
class Node:
    cost: float  # g
    turns: int  # agent turns taken
    messages: list[dict[str, Any]]  # the transcript so far (no system prompt)
    calls: list[dict[str, Any]]  # the calls so far, each with `at` (the message that made it)
    session: Session
    said: int  # script lines the user has said
    open: tuple[int, ...]  # reference calls not matched yet
    verdict: AgentVerdict | None = None  # set when the episode has ended
    steps: list[dict[str, Any]] = field(default_factory=list)  # per turn: the reply and its inconsistency


@dataclass(frozen=True)
class SearchResult:
    verdict: AgentVerdict
    record: dict[str, Any]  # the chosen episode, as `callbank run` records it
    spent: int  # simulator requests
    steps: list[dict[str, Any]]


class ScenarioSearch:
    """The search for one scenario: its tools, system prompts and scorer, shared by both languages."""

    def __init__(
        self,
        scenario: Scenario,
        doc: Mapping[str, Any],
        specs: Mapping[str, Spec],
        runtime: Runtime,
        policies: Mapping[str, str],
        asker: Asker,
        recipe_key: str,
        syntax: str,
        config: SearchConfig,
    ) -> None:
        self.scenario = scenario
        self.doc = doc
        self.specs = specs
        self.runtime = runtime
        self.policies = policies
        self.asker = asker
        self.recipe_key = recipe_key
        self.syntax = syntax
        self.config = config
        self.replayer = SandboxReplayer(replay_module, runtime)
        self.cache = ReferenceCache(self.replayer)
        self.reference = list(doc.get("reference_calls") or [])
        self.minefields = {str(m.get("api")) for m in doc.get("minefields") or [] if isinstance(m, Mapping)}
        self.limit = int(scenario.max_turns or DEFAULT_MAX_TURNS)

    async def side(self, lang: str) -> SearchResult:
        tools = tools_for(scenario_apis(self.scenario, self.specs), self.specs, lang)
        system = {"role": "system", "content": system_prompt(lang, self.syntax, tools=tools, time=self.scenario.time, policy=self.policies.get(lang, ""), style="standard")}
        script = list(self.scenario.user[lang].script)
        start = Node(0.0, 0, [{"role": "user", "content": script[0]}] if script else [], [], scenario_session(self.runtime, self.doc), 1 if script else 0, tuple(range(len(self.reference))))
        order = itertools.count()  # ties broken first in, first out: deterministic
        queue: list[tuple[float, int, Node]] = [(1.0, next(order), start)]
        spent = 0
        best: Node | None = None
        while queue and spent < self.config.budget:
            _, _, node = heapq.heappop(queue)
            if node.verdict is not None:
                return SearchResult(node.verdict, self._record(node, lang), spent, node.steps)
            request = Request("scenario", self.scenario.id, lang, node.turns, self.scenario.category, [system, *node.messages], tools, self.syntax)
            messages, wired_tools = wire(request, self.syntax)
            path = sha256_of(node.messages)[7:23]
            for sample in range(self.config.width):
                if spent >= self.config.budget:
                    break
                key = self.asker.key("simulator", f"agent-search.{PROMPT_VERSION}.{self.syntax}", self.recipe_key, f"{lang}/{node.turns}/{path}#{sample}")
                answer = await self.asker.ask(key, messages, wired_tools, sample=sample)
                spent += 1
                reply = Reply(answer.content, answer.tool_calls if self.syntax == "tool_calls" else None, dict(answer.usage))
                child = self._advance(node, reply, lang, script)
                if child.verdict is not None and (best is None or child.cost < best.cost):
                    best = child
                heapq.heappush(queue, (child.cost + (0.0 if child.verdict is not None else 1.0), next(order), child))
        if best is not None:
            return SearchResult(best.verdict, self._record(best, lang), spent, best.steps)  # type: ignore[arg-type]
        verdict = AgentVerdict(False, BUDGET_ERROR, f"the search budget ({self.config.budget} requests) ran out before an episode ended", 0, len(self.doc.get("milestones") or []))
        return SearchResult(verdict, {"id": self.scenario.id, "lang": lang, "calls": [], "messages": []}, spent, [])

    def _advance(self, node: Node, reply: Reply, lang: str, script: Sequence[str]) -> Node:
        messages = list(node.messages)
        calls = list(node.calls)
        open_calls = list(node.open)
        session = node.session
        inconsistency = 0.0
        made = reply_calls(reply)
        said = node.said
        ended = False
        if made:
            session = session.fork()
            entries = tool_calls([{"api": c.api, "args": c.args} for c in made], prefix=f"call_{node.turns}")
            messages.append({"role": "assistant", "content": reply.content or None, "tool_calls": entries})
            at = len(messages) - 1
            for call, entry in zip(made, entries, strict=True):
                calls.append({"api": call.api, "args": call.args, "at": at})
                inconsistency += self._cost(call.api, call.args, open_calls, lang)
                observation = session.run(call.api, call.args, lang).observation
                messages.append({"role": "tool", "tool_call_id": entry["id"], "name": call.api, "content": json.dumps(observation, ensure_ascii=False, default=str)})
        else:
            messages.append({"role": "assistant", "content": reply.content or ""})
            if said < len(script):
                messages.append({"role": "user", "content": script[said]})
                said += 1
            else:
                ended = True
        turns = node.turns + 1
        ended = ended or turns >= self.limit
        step = {"turn": node.turns, "content": reply.content, "calls": [{"api": c.api, "args": c.args} for c in made], "inconsistency": inconsistency}
        child = Node(node.cost + 1 + inconsistency, turns, messages, calls, session, said, tuple(open_calls), None, [*node.steps, step])
        if ended:
            child.verdict = score_scenario(self.doc, self._record(child, lang), lang, self.replayer, self.cache)
            if not child.verdict.correct:
                child.cost += 1
        return child

    def _cost(self, api: str, args: Mapping[str, Any], open_calls: list[int], lang: str) -> float:
        """What one call adds to the inconsistency (open_calls loses the reference call it matches)."""
        for index in open_calls:
            reference = self.reference[index]
            if reference.get("api") == api and matchers.matches(reference.get("args") or {}, dict(args), lang, _schema(self.specs, api)):
                open_calls.remove(index)
                return 0.0
        if api not in self.minefields and any(self.reference[index].get("api") == api for index in open_calls):
            return PARTIAL_COST
        return 1.0

    def _record(self, node: Node, lang: str) -> dict[str, Any]:
        return {"id": self.scenario.id, "lang": lang, "calls": list(node.calls), "messages": list(node.messages)}


def _schema(specs: Mapping[str, Spec], api: str) -> Any:
    spec = specs.get(api)
    return spec.parameters if spec is not None else None
