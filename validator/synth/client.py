"""Asking the generator and the simulator, through the answer cache.

Each role is one OpenAI-compatible endpoint (``validator.models.endpoint.ChatClient``: bounded
retries, token and latency totals). A question already answered in this run's folder is read
from the cache and never sent; a new answer is cached the moment it arrives. Per role the asker
counts requests sent, answers read from the cache, tokens and latency: the funnel report's
"tokens and latency per model".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from validator.models.base import EndpointError
from validator.models.endpoint import ChatClient, EndpointConfig, resolve_api_key
from validator.synth.cache import AnswerCache, AnswerKey
from validator.synth.config import ModelConfig


@dataclass(frozen=True)
class Answer:
    content: str | None
    tool_calls: list[dict[str, Any]]
    usage: Mapping[str, Any]
    cached: bool


@dataclass
class RoleTotals:
    model: str
    asked: int = 0  # answers received from the endpoint in this run
    cached: int = 0  # answers read from the cache instead
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        mean = self.latency_s / self.asked if self.asked else 0.0
        return {
            "model": self.model,
            "asked": self.asked,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_s": round(self.latency_s, 3),
            "mean_latency_s": round(mean, 3),
        }


def endpoint_config(model: ModelConfig, seed: int | None = None) -> EndpointConfig:
    return EndpointConfig(
        base_url=model.base_url,
        model=model.model,
        api_key_env=model.api_key_env,
        temperature=model.temperature,
        max_tokens=model.max_tokens,
        timeout=model.timeout,
        max_retries=model.max_retries,
        seed=model.seed if seed is None else seed,
    )


@dataclass
class Asker:
    """The two roles' clients, the cache, and what was spent."""

    models: Mapping[str, ModelConfig]  # role -> config
    cache: AnswerCache
    clients: dict[str, ChatClient] = field(default_factory=dict)
    totals: dict[str, RoleTotals] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for role, model in self.models.items():
            self.totals[role] = RoleTotals(model.model)

    def _client(self, role: str) -> ChatClient:
        client = self.clients.get(role)
        if client is None:
            model = self.models[role]
            client = self.clients[role] = ChatClient(endpoint_config(model), resolve_api_key(model.base_url, model.api_key_env, f"{role}.api_key_env"))
        return client

    def key(self, role: str, prompt_version: str, recipe: str, question: str) -> AnswerKey:
        return AnswerKey(role, self.models[role].model, prompt_version, recipe, question)

    async def ask(self, key: AnswerKey, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None, seed: int | None = None, sample: int = 0) -> Answer:
        """The answer to one question: from the cache, else from the role's endpoint (then cached).

        seed overrides the role's seed (each candidate asks with its own, so a generator at a
        fixed temperature still writes different cases); sample > 0 asks for another sample of
        the same question (the seed moved by sample, the temperature at least 0.7)."""
        totals = self.totals[key.role]
        found = self.cache.get(key)
        if found is not None:
            totals.cached += 1
            return Answer(found.get("content"), list(found.get("tool_calls") or []), found.get("usage") or {}, True)
        client = self._client(key.role)
        if seed is not None or sample:
            config = client.config
            config = replace(config, seed=(config.seed if seed is None else seed) or 0)
            if sample:
                config = replace(config, seed=(config.seed or 0) + sample, temperature=max(config.temperature, 0.7))
            client = ChatClient(config, client.api_key)
        try:
            result = await client.chat(messages, tools=tools)
        finally:
            if client is not self.clients[key.role]:
                await client.close()
        usage = dict(result.usage)
        totals.asked += 1
        totals.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        totals.completion_tokens += int(usage.get("completion_tokens") or 0)
        totals.latency_s += float(usage.get("latency_s") or 0.0)
        self.cache.put(key, {"content": result.content, "tool_calls": result.tool_calls, "usage": usage})
        return Answer(result.content, result.tool_calls, usage, False)

    async def preflight(self) -> None:
        """Prove before any work that each role's endpoint answers and serves its model
        (EndpointError otherwise, naming the role)."""
        for role in self.models:
            try:
                await self._client(role).preflight()
            except EndpointError as error:
                raise EndpointError(f"the {role} ({self.models[role].model}): {error}") from None

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()
