"""Every API of the repository, as fc mode sends it, compiles to a grammar llama.cpp can parse.

llama-cpp-python's function-calling chat format constrains a call's arguments with a grammar made
from the tool's JSON schema; a schema ``pattern`` with ``\\d`` or ``\\.`` became a grammar llama.cpp
could not parse, and the server died on the request (72 of the 241 specs when this test was
written). ``validator.models.endpoint.wire_tools`` spells those escapes out. The grammars are
compiled against SmolLM2's vocabulary, loaded alone (no weights), in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.local_llm import smollm_gguf
from validator.corpus.index import Corpus
from validator.models.endpoint import wire_tools

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def vocab() -> Any:
    llama_cpp = pytest.importorskip("llama_cpp")
    gguf = smollm_gguf()
    if gguf is None:
        pytest.skip("the SmolLM2 GGUF is not installed (extra: local-llm)")
    model = llama_cpp.Llama(str(gguf), vocab_only=True, verbose=False)
    yield llama_cpp.llama_model_get_vocab(model.model)
    model.close()


def parses(vocab: Any, schema: dict[str, Any]) -> bool:
    import llama_cpp
    from llama_cpp import llama_grammar

    grammar = llama_grammar.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar._grammar.encode(), grammar._root.encode())
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def test_every_spec_sent_in_fc_mode_compiles_to_a_llama_cpp_grammar(vocab: Any) -> None:
    corpus = Corpus.load(ROOT, ["api"])
    assert len(corpus.specs) > 200
    broken = [
        (name, lang)
        for name, spec in sorted(corpus.specs.items())
        for lang in ("en", "zh")
        if not parses(vocab, wire_tools([spec.tool(lang)])[0]["function"]["parameters"])
    ]
    assert broken == []


def test_a_raw_digit_escape_is_what_llama_cpp_cannot_parse(vocab: Any) -> None:
    schema = {"type": "object", "properties": {"day": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}}, "required": ["day"]}
    assert parses(vocab, wire_tools([{"function": {"parameters": schema}}])[0]["function"]["parameters"])
    if parses(vocab, schema):  # pragma: no cover - a llama-cpp-python that converts \d itself
        pytest.skip("this llama-cpp-python turns \\d into a grammar itself")
