"""The office sandbox: spec parity, business rules and determinism.

These tests read the sandbox's own files (state.yaml, specs/office) so that a change to any of
them that breaks the contract of docs/data-model.md fails here before `callbank exec`.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from validator.sandbox.base import ApiError, Sandbox

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_DIR = ROOT / "sandboxes" / "office"
SPEC_DIR = ROOT / "specs" / "office"


def _load_class() -> type[Sandbox]:
    # sandboxes/ is not a package: load the module from its file, as the runtime does.
    spec = importlib.util.spec_from_file_location("callbank_sandbox_office", SANDBOX_DIR / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.OfficeSandbox


OfficeSandbox = _load_class()
STATE: dict[str, Any] = yaml.safe_load((SANDBOX_DIR / "state.yaml").read_text(encoding="utf-8"))
ALL_SPECS: dict[str, dict[str, Any]] = {
    path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(SPEC_DIR.glob("*.yaml"))
}
SPECS = {name: spec for name, spec in ALL_SPECS.items() if not spec.get("spec_only")}
DISTRACTORS = {name: spec for name, spec in ALL_SPECS.items() if spec.get("spec_only")}


# ----------------------------------------------------------------------------- helpers


def deep_merge(base: Any, patch: Any) -> Any:
    """Mappings merge key by key; anything else in the patch replaces the base value."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            merged[key] = deep_merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(patch)


def fresh(patch: dict[str, Any] | None = None, clock: str | None = None) -> Sandbox:
    state = copy.deepcopy(STATE)
    if patch:
        state["data"] = deep_merge(state["data"], patch)
    if clock:
        state["clock"] = clock
    return OfficeSandbox(state)


def plain_schema(schema: Any) -> Any:
    """A spec's schema with each bilingual description reduced to English, as rendering does."""
    if isinstance(schema, dict):
        return {
            key: (value["en"] if key == "description" and isinstance(value, dict) else plain_schema(value))
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [plain_schema(item) for item in schema]
    return schema


def run(sandbox: Sandbox, api: str, **args: Any) -> Any:
    """Call one API with schema-valid arguments; check the result against its spec, or that the error is declared."""
    Draft202012Validator(plain_schema(SPECS[api]["parameters"])).validate(args)
    try:
        result = getattr(sandbox, api)(**args)
    except ApiError as error:
        assert error.kind in SPECS[api].get("errors", {}), f"{api} raised undeclared error {error.kind}"
        json.dumps(error.details)
        raise
    json.dumps(result)  # results are JSON data
    Draft202012Validator(SPECS[api]["returns"]).validate(result)
    return result


def error_kind(sandbox: Sandbox, api: str, **args: Any) -> str:
    before = copy.deepcopy(sandbox.state)
    with pytest.raises(ApiError) as caught:
        run(sandbox, api, **args)
    assert sandbox.state == before, f"{api} failed with {caught.value.kind} but changed the state"
    return caught.value.kind


# ----------------------------------------------------------------------------- specs and parity


def test_state_shape() -> None:
    assert STATE["sandbox"] == "office"
    assert set(STATE) == {"sandbox", "clock", "counters", "data"}


def test_every_method_has_a_spec_and_back() -> None:
    assert OfficeSandbox.name == "office"
    assert sorted(SPECS) == OfficeSandbox.api_names()
    assert len(SPECS) >= 8
    assert 1 <= len(DISTRACTORS) <= 2
    for name, spec in DISTRACTORS.items():
        assert "sandbox" not in spec and not hasattr(OfficeSandbox, name)


@pytest.mark.parametrize("api", sorted(SPECS))
def test_spec_matches_signature(api: str) -> None:
    spec = SPECS[api]
    assert spec["name"] == api and spec["sandbox"] == "office" and spec["domain"].startswith("office.")
    params = spec["parameters"]
    required = set(params.get("required", []))
    signature = inspect.signature(getattr(OfficeSandbox, api))
    keywords = {name: p for name, p in signature.parameters.items() if name != "self"}
    assert set(keywords) == set(params["properties"])
    for name, parameter in keywords.items():
        assert parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        has_default = parameter.default is not inspect.Parameter.empty
        assert has_default == (name not in required), f"{api}.{name}: default iff not required"
        if "default" in params["properties"][name]:
            assert parameter.default == params["properties"][name]["default"]


def _declared_errors(api: str) -> set[str]:
    """Error kinds a method can raise, read from its source and the helpers it calls."""
    tree = ast.parse((SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8"))
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    seen: set[str] = set()
    kinds: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in methods:
            return
        seen.add(name)
        for node in ast.walk(methods[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ApiError":
                if node.args and isinstance(node.args[0], ast.Constant):
                    kinds.add(node.args[0].value)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                visit(node.attr)

    visit(api)
    return kinds


@pytest.mark.parametrize("api", sorted(SPECS))
def test_every_raisable_error_is_declared(api: str) -> None:
    assert _declared_errors(api) <= set(SPECS[api].get("errors", {})), api


@pytest.mark.parametrize("api", sorted(ALL_SPECS))
def test_spec_descriptions_bilingual_at_every_depth(api: str) -> None:
    def walk(schema: dict[str, Any], where: str) -> None:
        assert set(schema["description"]) == {"en", "zh"}, where
        assert re.search(r"[\u4e00-\u9fff]", schema["description"]["zh"]), f"{where}: zh is not Chinese"
        unquoted = re.sub(r'"[^"]*"|“[^”]*”', "", schema["description"]["en"])
        assert not re.search(r"[\u4e00-\u9fff]", unquoted), f"{where}: en has Chinese outside quotes"
        for name, child in schema.get("properties", {}).items():
            walk(child, f"{where}.{name}")
        if "items" in schema:
            walk(schema["items"], f"{where}[]")
        if schema.get("type") == "array":
            assert "items" in schema, where

    spec = ALL_SPECS[api]
    assert set(spec["description"]) == {"en", "zh"}
    for name, prop in spec["parameters"]["properties"].items():
        walk(prop, f"{api}.{name}")


def test_method_names_do_not_shadow_the_base_class() -> None:
    assert not set(OfficeSandbox.api_names()) & set(vars(Sandbox))


def test_no_nondeterministic_sources() -> None:
    tree = ast.parse((SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    assert imported <= {"__future__", "copy", "datetime", "typing", "validator"}
    source = (SANDBOX_DIR / "sandbox.py").read_text(encoding="utf-8")
    for forbidden in ("datetime.now(", "datetime.today(", "date.today(", "open(", "utcnow(", "random"):
        assert forbidden not in source


# ----------------------------------------------------------------------------- data


def test_ids_and_references_are_consistent() -> None:
    data = STATE["data"]
    for table, counter, prefix in [
        ("tasks", "task", "T-"), ("documents", "document", "D-"), ("emails", "email", "EM-"),
        ("drafts", "draft", "DR-"), ("expenses", "expense", "X-"), ("reports", "report", "ER-"),
    ]:
        ids = [int(key.removeprefix(prefix)) for key in data[table]]
        assert max(ids) <= STATE["counters"][counter], f"counter {counter} would reissue an id"
    for report_id, report in data["reports"].items():
        for expense_id in report["expense_ids"]:
            assert data["expenses"][expense_id]["report_id"] == report_id
    for expense in data["expenses"].values():
        assert expense["currency"] in data["rates"]
    for email in [*data["emails"].values(), *data["drafts"].values()]:
        assert set(email["attachments"]) <= set(data["documents"])


# ----------------------------------------------------------------------------- business rules


def test_tasks() -> None:
    sandbox = fresh()
    listed = run(sandbox, "list_tasks")["tasks"]
    assert listed[0]["task_id"] == "T-48" and listed[0]["overdue"] is True
    assert listed[-1]["task_id"] == "T-46"  # undated last
    assert [t["task_id"] for t in run(sandbox, "list_tasks", status="done")["tasks"]] == ["T-40"]
    assert [t["task_id"] for t in run(sandbox, "list_tasks", project="q3 planning")["tasks"]] == ["T-41", "T-43"]
    assert [t["task_id"] for t in run(sandbox, "list_tasks", due_before="2024-07-17")["tasks"]] == ["T-48", "T-41", "T-44"]
    task = run(sandbox, "create_task", title="Call the printer vendor", due_date="2024-07-17", priority="high")
    assert task["task_id"] == "T-49" and task["status"] == "open"
    assert error_kind(sandbox, "create_task", title="x", due_date="2024-07-14") == "date_in_past"
    assert error_kind(sandbox, "update_task", task_id="T-41") == "nothing_to_update"
    assert run(sandbox, "update_task", task_id="T-41", due_date="2024-07-18")["due_date"] == "2024-07-18"
    assert run(sandbox, "complete_task", task_id="T-44")["status"] == "done"
    assert error_kind(sandbox, "complete_task", task_id="T-44") == "already_done"
    assert error_kind(sandbox, "complete_task", task_id="T-1") == "task_not_found"


def test_documents() -> None:
    sandbox = fresh()
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="okr")["documents"]] == ["D-101"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="报价")["documents"]] == ["D-103"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="onboarding", kind="slides")["documents"]] == ["D-102", "D-109"]
    assert [d["document_id"] for d in run(sandbox, "search_documents", query="onboarding", owned_by_me=True)["documents"]] == ["D-109", "D-105"]
    assert error_kind(sandbox, "share_document", document_id="D-102", people=["Zhang Wei"]) == "not_owner"
    assert error_kind(sandbox, "share_document", document_id="D-104", people=["Nobody"]) == "unknown_recipient"
    shared = run(sandbox, "share_document", document_id="D-104", people=["徐晴", "xu.qing@northpeak.example"], permission="comment")
    assert shared["shared_with"] == {"xu.qing@northpeak.example": "comment"}
    note = run(sandbox, "create_note", title="Ideas", content="Shorter signup", tags=["Onboarding", "onboarding"])
    assert note["document_id"] == "D-110" and note["tags"] == ["onboarding"] and note["folder"] == "Notes"


def test_mail() -> None:
    sandbox = fresh()
    assert run(sandbox, "search_emails", unread_only=True)["count"] == 4
    assert [e["email_id"] for e in run(sandbox, "search_emails", sender="Tom Becker")["emails"]] == ["EM-3292"]
    assert run(sandbox, "search_emails", folder="sent")["count"] == 1
    assert run(sandbox, "search_emails", folder="drafts", query="pricing")["emails"][0]["draft_id"] == "DR-11"
    draft = run(sandbox, "draft_email", to=["Li Nan"], subject="Mockups", body="Looks good")
    assert draft["draft_id"] == "DR-13" and draft["sent"] is False
    assert run(sandbox, "search_emails", folder="sent")["count"] == 1  # a draft is not sent
    sent = run(sandbox, "send_email", to=["张伟"], cc=["Guo Ming"], subject="Launch slides", body="Attached.", attachments=["D-109"])
    assert sent["email_id"] == "EM-3297" and sent["to"] == ["zhang.wei@northpeak.example"]
    assert error_kind(sandbox, "send_email", to=["Zhang"], subject="x", body="y") == "unknown_recipient"
    assert error_kind(sandbox, "send_email", to=["Zhang Wei"], subject="x", body="y", attachments=["D-1"]) == "document_not_found"
    from_draft = run(sandbox, "send_draft", draft_id="DR-11")
    assert from_draft["email_id"] == "EM-3298" and "DR-11" not in sandbox.data["drafts"]
    assert error_kind(sandbox, "send_draft", draft_id="DR-11") == "draft_not_found"


def test_expenses() -> None:
    sandbox = fresh()
    june = run(sandbox, "list_expenses", status="unreported", month="2024-06")
    assert june["count"] == 5 and june["total_cny"] == 3954.0
    usd = run(sandbox, "add_expense", amount=42.5, currency="USD", category="meals", date="2024-07-14", merchant="Blue Door Diner", note="Client lunch")
    assert usd["expense_id"] == "X-87" and usd["amount_cny"] == 303.02
    assert error_kind(sandbox, "add_expense", amount=420, category="meals", date="2024-07-12", merchant="Hai Di Lao") == "note_required"
    assert error_kind(sandbox, "add_expense", amount=20, category="taxi", date="2024-07-16", merchant="DiDi") == "date_in_future"
    assert error_kind(sandbox, "add_expense", amount=20, category="taxi", date="2024-04-01", merchant="DiDi") == "too_old"
    assert error_kind(sandbox, "submit_expense_report", title="x", expense_ids=["X-86"]) == "already_reported"
    assert error_kind(sandbox, "submit_expense_report", title="x", expense_ids=["X-81"], approver="lin.yue@northpeak.example") == "self_approval"
    report = run(sandbox, "submit_expense_report", title="June Chengdu trip", expense_ids=["X-81", "X-82", "X-83", "X-84", "X-85"])
    assert report["report_id"] == "ER-10" and report["total_cny"] == 3954.0 and report["approver"] == "guo.ming@northpeak.example"
    assert run(sandbox, "list_expenses", status="unreported")["count"] == 1
    assert error_kind(sandbox, "list_expenses", month="2024-13") == "invalid_month"


def test_same_calls_same_results() -> None:
    def script() -> tuple[list[Any], dict[str, Any]]:
        sandbox = fresh()
        results = [
            run(sandbox, "add_expense", amount=120, currency="HKD", category="taxi", date="2024-07-13", merchant="HK Taxi"),
            run(sandbox, "submit_expense_report", title="HK", expense_ids=["X-87"], approver="Zhao Min"),
            run(sandbox, "send_email", to=["Zhao Min"], subject="Report", body="Submitted."),
        ]
        return results, sandbox.state

    assert script() == script()
