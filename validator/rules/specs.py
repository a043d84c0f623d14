"""Rules for API specs: standard, complete, bilingual parameter schemas."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from validator.corpus.index import Corpus
from validator.corpus.params import CompileError, compile_schema
from validator.corpus.records import Spec
from validator.corpus.schemawalk import iter_property_schemas, plain
from validator.diagnostics import Finding, join_pointer
from validator.gitage import oldest_first
from validator.loading import Document
from validator.rules.registry import rule
from validator.text import cjk_outside_quotes, has_cjk

STANDARD_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")


def _parameters(document: Document) -> Any:
    return document.data.get("parameters") if isinstance(document.data, dict) else None


def _object_schemas(parameters: Any) -> Iterator[tuple[dict[str, Any], str]]:
    if isinstance(parameters, dict):
        yield parameters, "/parameters"
    for _, schema, pointer in iter_property_schemas(parameters):
        if "properties" in schema or schema.get("type") == "object":
            yield schema, pointer


@rule("SPC001", "duplicate-api-name", "Two spec files declare the same API name.", on="document", kinds="api")
def duplicate_api_name(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports an API `name` already declared by another spec file.
    ## Why is this bad?
    Cases name APIs by `name`; two specs with one name make every reference ambiguous.
    ## Example
    `specs/food/login.yaml` and `specs/bank/login.yaml`, both `name: login`.
    ## Use instead
    Prefix generic names with their domain: `food_login`, `bank_login`.
    """
    name = document.data.get("name") if isinstance(document.data, dict) else None
    paths = corpus.spec_paths.get(name, []) if isinstance(name, str) else []
    if len(paths) > 1:
        first = oldest_first(corpus.root, paths)[0]  # the spec that had the name first keeps it
        if first != document.path:
            yield Finding(f"API name {name!r} is already declared in {first}; choose a unique name", "/name")


@rule("SPC002", "nonstandard-type", "A parameter uses a type that is not a standard JSON type.", on="document", kinds="api")
def nonstandard_type(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every parameter schema (at any depth) has exactly one `type` among
    `string integer number boolean array object`.
    ## Why is this bad?
    Types such as `float`, `dict`, `tuple` or `any` are not JSON Schema; models and scorers
    read them differently (a published peer declares `float` and `dict`).
    ## Example
    ```yaml
    price: {type: float, description: {en: Price., zh: 价格。}}
    ```
    ## Use instead
    ```yaml
    price: {type: number, description: {en: Price., zh: 价格。}}
    ```
    """
    for name, schema, pointer in iter_property_schemas(_parameters(document)):
        kind = schema.get("type")
        if not isinstance(kind, str) or kind not in STANDARD_TYPES:
            yield Finding(f"{name!r} has type {kind!r}; use one of {', '.join(sorted(STANDARD_TYPES))}", pointer + "/type")


@rule("SPC003", "array-without-items", "An array parameter does not say what its items are.", on=Spec)
def array_without_items(spec: Spec, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every `type: array` schema has an `items` schema.
    ## Why is this bad?
    Without `items`, neither the model nor the checker knows what the list may contain.
    ## Example
    ```yaml
    tags: {type: array, description: {en: Tags., zh: 标签。}}
    ```
    ## Use instead
    ```yaml
    tags: {type: array, items: {type: string, description: {en: A tag., zh: 一个标签。}}, description: {en: Tags., zh: 标签。}}
    ```
    """
    for name, schema, pointer in iter_property_schemas(spec.parameters):
        if schema.get("type") == "array" and not isinstance(schema.get("items"), dict):
            yield Finding(f"array {name!r} has no items schema; add items: {{type: …, description: …}}", pointer)


@rule("SPC004", "required-not-in-properties", "`required` names a parameter that is not defined.", on=Spec)
def required_not_in_properties(spec: Spec, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Every name in a `required` list is a key of the sibling `properties`.
    ## Why is this bad?
    A required parameter that does not exist can never be given: every call is wrong.
    ## Example
    ```yaml
    properties: {city: {type: string, description: {en: City., zh: 城市。}}}
    required: [city, date]
    ```
    ## Use instead
    Define `date` under `properties`, or remove it from `required`.
    """
    for schema, pointer in _object_schemas(spec.parameters):
        properties: Any = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        if isinstance(required, list):
            for i, name in enumerate(required):
                if isinstance(name, str) and name not in properties:
                    yield Finding(f"required names {name!r}, which is not under properties; define it or remove it", pointer + join_pointer("required", i))


def _description_problem(description: Any, langs: tuple[str, ...]) -> str | None:
    if not isinstance(description, dict) or not all(isinstance(description.get(lang), str) for lang in langs):
        return "needs a description with both en and zh" if len(langs) > 1 else f"needs a description in {langs[0]}"
    if not all(description[lang].strip() for lang in langs):
        return "has an empty description"
    if "zh" in langs and not has_cjk(description["zh"]):
        return "has a zh description with no Chinese in it"
    if "en" in langs and cjk_outside_quotes(description["en"]):
        return "has Chinese in its en description"
    return None


@rule("SPC005", "missing-bilingual-description", "An API or parameter lacks a proper en + zh description.", on="document", kinds="api")
def missing_bilingual_description(document: Document, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    The API, every parameter at every depth (an array's `items` may go without one: the
    array's description covers its elements), and every declared error carry a non-empty
    description in English (no Chinese outside quotes) and in Chinese (with Chinese in it) —
    in the repository's one language when `callbank.yaml` names one.
    ## Why is this bad?
    The spec is rendered per language for the model under test; a missing or untranslated
    description makes the two language tracks differ in difficulty.
    ## Example
    ```yaml
    city: {type: string, description: {en: City name., zh: City name.}}
    ```
    ## Use instead
    ```yaml
    city: {type: string, description: {en: City name., zh: 城市名称。}}
    ```
    """
    data = document.data if isinstance(document.data, dict) else {}
    langs = corpus.langs
    problem = _description_problem(data.get("description"), langs)
    if problem:
        yield Finding(f"the API {problem}", "/description")
    for name, schema, pointer in iter_property_schemas(data.get("parameters")):
        if pointer.endswith("/items") and "description" not in schema:
            continue  # an array's elements are described by the array's own description
        problem = _description_problem(schema.get("description"), langs)
        if problem:
            yield Finding(f"parameter {name!r} {problem}", pointer + "/description")
    errors = data.get("errors")
    if isinstance(errors, dict):
        for kind, message in errors.items():
            problem = _description_problem(message, langs)
            if problem:
                yield Finding(f"error {kind!r} {problem.replace('description', 'message')}", join_pointer("errors", kind))


@rule("SPC006", "bad-parameter-name", "A parameter name is not identifier-shaped.", on=Spec)
def bad_parameter_name(spec: Spec, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Parameter names (at any depth) are lower-case identifiers: `[a-z][a-z0-9_]*`.
    ## Why is this bad?
    Names such as `start date` or `城市` cannot be written in the `[Api(k=v)]` call syntax
    and break function-calling APIs that require identifiers.
    ## Example
    ```yaml
    properties: {Start-Date: {type: string, description: {en: Start., zh: 开始日期。}}}
    ```
    ## Use instead
    ```yaml
    properties: {start_date: {type: string, description: {en: Start., zh: 开始日期。}}}
    ```
    """
    for name, _, pointer in iter_property_schemas(spec.parameters):
        if (name != "items" or not pointer.endswith("/items")) and not IDENTIFIER.fullmatch(name):
            yield Finding(f"parameter name {name!r} is not a lower-case identifier; rename it like {_suggest(name)!r}", pointer)


def _suggest(name: str) -> str:
    cleaned = re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()).strip("_")
    return cleaned if cleaned and cleaned[0].isalpha() else "param_" + cleaned


@rule("SPC007", "invalid-parameter-schema", "A parameter schema is not valid JSON Schema, or its default/enum break it.", on=Spec)
def invalid_parameter_schema(spec: Spec, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Checks `parameters` and `returns` against the JSON Schema 2020-12 meta-schema, and that
    every `default` and `enum` value is valid for its own parameter schema (formats asserted,
    as the sandbox runtime asserts them).
    ## Why is this bad?
    An enum value of the wrong type, or a default outside its own range, is ground truth that
    no correct model can match.
    ## Example
    ```yaml
    count: {type: integer, minimum: 1, default: 0, description: {en: Count., zh: 数量。}}
    ```
    ## Use instead
    ```yaml
    count: {type: integer, minimum: 1, default: 1, description: {en: Count., zh: 数量。}}
    ```
    """
    for key, raw in (("parameters", spec.parameters), ("returns", spec.returns)):
        schema = plain(raw)
        if jsonschema_rs.meta.is_valid(schema):
            continue
        # jsonschema's best_match words the problem best; a parameter's nonstandard `type` is SPC002's
        import jsonschema  # only for a broken schema: its import costs every check run 30 ms

        meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)  # formats not asserted: SPC008 compiles patterns
        errors = (e for e in meta.iter_errors(schema) if not (key == "parameters" and _is_type_error(e)))
        error = jsonschema.exceptions.best_match(errors)
        if error is not None:
            yield Finding(f"{key} is not a valid JSON Schema: {error.message}", "/" + key + "".join(join_pointer(t) for t in error.absolute_path))
    for name, schema, pointer in iter_property_schemas(spec.parameters):
        compiled = compile_schema(schema)
        if isinstance(compiled, CompileError):
            continue  # SPC008 (or the meta-schema check above) reports it; it cannot validate values
        if "default" in schema and compiled.problems(schema["default"]):
            yield Finding(f"default {schema['default']!r} of {name!r} is not valid for its own schema", pointer + "/default")
        if isinstance(schema.get("enum"), list):
            without_enum = compile_schema({k: v for k, v in schema.items() if k != "enum"})
            for i, value in enumerate(schema["enum"]):
                if not isinstance(without_enum, CompileError) and without_enum.problems(value):
                    yield Finding(f"enum value {value!r} of {name!r} is not valid for its type/constraints", pointer + join_pointer("enum", i))


@rule("SPC008", "uncompilable-parameter-schema", "A parameter or result schema cannot be compiled into a validator.", on=Spec)
def uncompilable_parameter_schema(spec: Spec, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Compiles every parameter schema, and the `returns` schema, with the validator that checks
    ground truth and every sandbox call (jsonschema-rs, formats asserted), and reports those it
    rejects: most often a `pattern` in a regular-expression dialect it does not read.
    ## Why is this bad?
    A schema that does not compile validates nothing: ground-truth values, `error_param` bad
    values and agents' calls would go unchecked for that parameter.
    ## Example
    ```yaml
    code: {type: string, pattern: "^[A-Z]{,3}$", description: {en: Code., zh: 代码。}}
    ```
    ## Use instead
    ```yaml
    code: {type: string, pattern: "^[A-Z]{0,3}$", description: {en: Code., zh: 代码。}}
    ```
    """
    for key, raw in (("parameters", spec.parameters), ("returns", spec.returns)):
        if not jsonschema_rs.meta.is_valid(plain(raw)):
            continue  # SPC007 says why
        places = [(f"/{key}", raw)] if key == "returns" else [(f"/parameters/properties/{join_pointer(n)[1:]}", s) for n, s in spec.properties.items()]
        for pointer, schema in places:
            compiled = compile_schema(schema)
            if isinstance(compiled, CompileError):
                yield Finding(f"this schema cannot be compiled, so no value is checked against it: {compiled.message}", pointer)


def _is_type_error(error: Any) -> bool:  # a jsonschema ValidationError
    return bool(error.absolute_path) and error.absolute_path[-1] == "type"
