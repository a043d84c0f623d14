"""Frozen, typed records of schema-valid corpus documents.

A record keeps the :class:`~validator.loading.Document` it was built from (its repo-relative
path, its data and text) and the JSON pointer of every part, so a rule that finds a problem
in a record names the exact ``file:line:col``. Values the corpus leaves open — argument values
(literals or matchers), tool results, state patches, an agent scenario's milestones, outputs
and comparison options — stay JSON data (read-only mappings and lists shared with the
document); everything with a fixed shape is a field.

Records are built only from documents that pass their JSON Schema (``validator.corpus.build``),
so their fields need no defensive checks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from validator.corpus.categories import family
from validator.corpus.schemawalk import is_bilingual, localize
from validator.loading import Document
from validator.matchers import is_omittable

JSONValue = Any  # JSON data: dict, list, str, int, float, bool or None


# ----------------------------------------------------------------------------- API specs


@dataclass(frozen=True, slots=True)
class Spec:
    """An API (``specs/<domain>/<name>.yaml``)."""

    document: Document
    name: str
    domain: str
    sandbox: str | None  # None for a spec-only distractor
    spec_only: bool
    description: Mapping[str, str]  # lang -> text
    parameters: Mapping[str, JSONValue]  # the JSON Schema of the arguments object
    properties: Mapping[str, Mapping[str, JSONValue]]  # top-level parameter name -> schema
    required: tuple[str, ...]  # required names that are parameters (SPC004 reports the others)
    returns: Mapping[str, JSONValue]
    errors: Mapping[str, Mapping[str, str]]  # error kind -> lang -> message

    @property
    def path(self) -> str:
        return self.document.path

    @property
    def runnable(self) -> bool:
        """Declared as implemented by a sandbox (whether the sandbox really has it is exec's job)."""
        return not self.spec_only and self.sandbox is not None

    def has_default(self, name: str) -> bool:
        return "default" in self.properties.get(name, {})

    def error_message(self, kind: str, lang: str) -> str | None:
        entry = self.errors.get(kind)
        return entry.get(lang) if entry is not None else None

    def function_schema(self, lang: str) -> dict[str, JSONValue]:
        """``{name, description, parameters}`` in lang: the standard function schema."""
        return {"name": self.name, "description": self.description[lang], "parameters": localize(self.parameters, lang)}

    def tool(self, lang: str) -> dict[str, JSONValue]:
        """The spec as an OpenAI ``tools`` entry in lang."""
        return {"type": "function", "function": self.function_schema(lang)}


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True, slots=True)
class Call:
    """One call of an answer or a scenario: the API and its argument values (matchers allowed)."""

    api: str
    args: Mapping[str, JSONValue]
    pointer: str  # of the call mapping
    # the arguments a scorer counts: all but the ones the answer lets a model omit ({$optional: …})
    judged: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "judged", sum(1 for value in self.args.values() if not is_omittable(value)))

    def arg_pointer(self, name: str) -> str:
        return f"{self.pointer}/args/{_escape(name)}"


@dataclass(frozen=True, slots=True)
class Calls:
    """One acceptable alternative of a checkpoint: calls matched order-insensitively."""

    calls: tuple[Call, ...]
    pointer: str  # of the list of calls


@dataclass(frozen=True, slots=True)
class Special:
    """A special answer: information is missing, a value is wrong, or no API applies."""

    kind: str  # incomplete | error_param | irrelevant
    api: str | None
    missing: tuple[str, ...]  # incomplete: the parameters the user did not give
    params: Mapping[str, JSONValue]  # error_param: parameter -> the bad value the user gave


@dataclass(frozen=True, slots=True)
class UserTurn:
    kind: ClassVar[str] = "user"
    index: int
    pointer: str
    text: str


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    kind: ClassVar[str] = "assistant"
    index: int
    pointer: str
    text: str


@dataclass(frozen=True, slots=True)
class CalledTurn:
    """Calls the assistant made earlier in the dialogue (history): shown to the model with the
    ``tool`` results that follow, never scored and never asked for."""

    kind: ClassVar[str] = "called"
    index: int
    pointer: str
    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class ToolResult:
    api: str
    result: JSONValue
    pointer: str  # of the {api, result} mapping


@dataclass(frozen=True, slots=True)
class ToolTurn:
    """The results of the calls just before (a checkpoint's first alternative, or a ``called``
    history turn), one per call."""

    kind: ClassVar[str] = "tool"
    index: int
    pointer: str
    results: tuple[ToolResult, ...]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """An ``expect`` turn: here the model must act; ``answer`` is what is right.

    The answer is a list of acceptable alternatives (``Calls``; one unless ``one_of``) or a
    ``Special``. ``step`` numbers the checkpoints of a dialogue from 0 (a prediction's step).
    """

    kind: ClassVar[str] = "expect"
    index: int
    pointer: str  # of the turn
    step: int
    answer: Mapping[str, JSONValue]  # the expect mapping as written
    alternatives: tuple[Calls, ...]  # empty for a special answer
    special: Special | None

    @property
    def expect_pointer(self) -> str:
        return self.pointer + "/expect"

    @property
    def first(self) -> tuple[Call, ...]:
        """The calls of the first alternative (what history and the oracle show); () for a special."""
        return self.alternatives[0].calls if self.alternatives else ()


Turn = UserTurn | AssistantTurn | CalledTurn | ToolTurn | Checkpoint


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One language side of a case."""

    lang: str
    turns: tuple[Turn, ...]
    checkpoints: tuple[Checkpoint, ...]
    pointer: str  # of the turns list, e.g. "/en/turns"

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(turn.kind for turn in self.turns)

    def user_text(self, upto: int | None = None) -> str:
        """Everything the user said (before turn index upto, when given), one turn per line."""
        return "\n".join(t.text for t in self.turns[:upto] if isinstance(t, UserTurn))

    def calls(self) -> Iterator[tuple[Checkpoint, Calls, Call]]:
        """Every call of every alternative of every checkpoint (history calls are not answers)."""
        for checkpoint in self.checkpoints:
            for alternative in checkpoint.alternatives:
                for call in alternative.calls:
                    yield checkpoint, alternative, call

    def history_calls(self) -> Iterator[tuple[CalledTurn, Call]]:
        """Every call of every ``called`` history turn."""
        for turn in self.turns:
            if isinstance(turn, CalledTurn):
                for call in turn.calls:
                    yield turn, call


@dataclass(frozen=True, slots=True)
class Case:
    """A bilingual case (``dialogues/<category>/<id>.yaml``)."""

    document: Document
    id: str
    category: str
    apis: tuple[str, ...]  # the candidate APIs
    time: str | None  # the fixed "now" (a timestamp, or a date alone) and the sandboxes' clock
    features: tuple[str, ...]
    profile: Mapping[str, str] | None  # lang -> text (preference cases)
    state: Mapping[str, JSONValue] | None  # sandbox name -> data patch
    dialogues: Mapping[str, Dialogue]  # lang -> the dialogue in that language (the repository's languages)

    @property
    def path(self) -> str:
        return self.document.path

    @property
    def data(self) -> Mapping[str, JSONValue]:
        return self.document.data  # type: ignore[no-any-return]

    @property
    def family(self) -> str:
        return family(self.category)

    def calls(self) -> Iterator[tuple[Dialogue, Checkpoint, Calls, Call]]:
        """Every call of every alternative of every checkpoint, in every language."""
        for dialogue in self.dialogues.values():
            for checkpoint, alternative, call in dialogue.calls():
                yield dialogue, checkpoint, alternative, call

    def history_calls(self) -> Iterator[tuple[Dialogue, Call]]:
        """Every call of every ``called`` history turn, in every language."""
        for dialogue in self.dialogues.values():
            for _, call in dialogue.history_calls():
                yield dialogue, call


# ----------------------------------------------------------------------------- scenarios


@dataclass(frozen=True, slots=True)
class UserSide:
    """What the simulated (or scripted) user of a scenario is, in one language."""

    goal: str
    known: tuple[str, ...]
    unknown: tuple[str, ...]
    script: tuple[str, ...]
    data: Mapping[str, JSONValue]  # the side as written (a simulator prompt may use more)


@dataclass(frozen=True, slots=True)
class Scenario:
    """An agent scenario (``sandboxes/<name>/scenarios/<id>.yaml``).

    Milestones, minefields, outputs and comparison options are kept as written: their format
    belongs to agent scoring (``validator.scoring.agent``), which reads them.
    """

    document: Document
    id: str
    mode: str  # multi_turn | multi_step
    sandboxes: tuple[str, ...]
    apis: tuple[str, ...] | None  # None: every API of its sandboxes
    initial_state: Mapping[str, JSONValue] | None  # sandbox name -> data patch
    user: Mapping[str, UserSide]  # lang -> user side
    reference_calls: tuple[Call, ...]
    milestones: tuple[Mapping[str, JSONValue], ...]
    minefields: tuple[Mapping[str, JSONValue], ...]
    compare: Mapping[str, JSONValue]
    outputs: JSONValue  # what the agent must tell the user (None when absent)
    no_change: bool
    max_turns: int | None
    time: str | None  # the scenario's clock, when it sets one

    @property
    def path(self) -> str:
        return self.document.path

    @property
    def data(self) -> Mapping[str, JSONValue]:
        return self.document.data  # type: ignore[no-any-return]

    @property
    def category(self) -> str:
        return f"agent/{self.mode}"

    @property
    def family(self) -> str:
        return "agent"


# ----------------------------------------------------------------------------- sandboxes


@dataclass(frozen=True, slots=True)
class SandboxState:
    """A sandbox's initial state (``sandboxes/<name>/state.yaml``)."""

    document: Document
    sandbox: str
    clock: str
    counters: Mapping[str, int]
    data: Mapping[str, JSONValue]

    @property
    def path(self) -> str:
        return self.document.path


@dataclass(frozen=True, slots=True)
class SandboxInfo:
    """A folder under ``sandboxes/``: its fixed files, and its state when that is valid."""

    name: str
    folder: str  # repo-relative, "sandboxes/<name>"
    state: SandboxState | None
    has_code: bool  # sandbox.py exists

    @property
    def code_path(self) -> str:
        return f"{self.folder}/sandbox.py"

    def policy_path(self, lang: str) -> str:
        return f"{self.folder}/policy.{lang}.md"


# ----------------------------------------------------------------------------- review


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """A review record (``review/queue/<id>.yaml``): the judges' votes and human decisions."""

    document: Document
    id: str
    item_path: str | None  # the reviewed case or scenario, as recorded
    status: str  # pending | accepted | rejected
    content_hash: str | None
    accepted_hash: str | None
    decided_by: str | None

    @property
    def path(self) -> str:
        return self.document.path

    @property
    def data(self) -> Mapping[str, JSONValue]:
        return self.document.data  # type: ignore[no-any-return]

    @property
    def accepted_content(self) -> str | None:
        """The content hash an acceptance covers."""
        return self.accepted_hash or self.content_hash


Record = Spec | Case | Scenario | SandboxState | ReviewRecord


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def bilingual_text(value: Any, lang: str) -> str | None:
    """The text of lang in a bilingual ``{en, zh}`` mapping, else None."""
    return value.get(lang) if is_bilingual(value) else None
