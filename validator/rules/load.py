"""Rules the hardened YAML loader enforces: ``validator.loading`` finds the problems while it
reads a file, and each rule here reports the loader's problems of its code."""

from __future__ import annotations

from collections.abc import Iterator

from validator.corpus.index import Corpus, LoadedFile
from validator.diagnostics import Finding
from validator.loading import CORPUS_KINDS
from validator.rules.registry import rule


def _problems(file: LoadedFile, code: str) -> Iterator[Finding]:
    for problem in file.problems:
        if problem.code == code:
            yield Finding(problem.message, line=problem.line, column=problem.column)


@rule("SCH001", "yaml-syntax-error", "The file is not well-formed YAML.", on="file", kinds=CORPUS_KINDS)
def yaml_syntax_error(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports the first place where the YAML parser cannot continue.
    ## Why is this bad?
    Nothing in the file can be checked or published until it parses.
    ## Example
    ```yaml
    description: {en: Send a message, zh: 发送短信
    ```
    ## Use instead
    ```yaml
    description: {en: Send a message, zh: 发送短信}
    ```
    """
    return _problems(file, "SCH001")


@rule("SCH002", "duplicate-key", "A mapping repeats a key.", on="file", kinds=CORPUS_KINDS)
def duplicate_key(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports a key that appears twice in the same mapping.
    ## Why is this bad?
    YAML parsers silently keep the last value, so the first one is lost without notice; a
    ground-truth argument written twice is almost always a mistake.
    ## Example
    ```yaml
    args: {city: Hangzhou, city: Shanghai}
    ```
    ## Use instead
    ```yaml
    args: {city: Hangzhou}
    ```
    """
    return _problems(file, "SCH002")


@rule("SCH003", "yaml-anchor-or-alias", "The file uses YAML anchors or aliases.", on="file", kinds=CORPUS_KINDS)
def yaml_anchor_or_alias(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports `&anchor` and `*alias`.
    ## Why is this bad?
    Aliases hide what a value is from a reader of the diff, and nested aliases can expand
    exponentially (an "alias bomb"). Corpus files spell every value out.
    ## Example
    ```yaml
    en: {turns: &t [{user: hi}]}
    zh: {turns: *t}
    ```
    ## Use instead
    ```yaml
    en: {turns: [{user: Hi}]}
    zh: {turns: [{user: 你好}]}
    ```
    """
    return _problems(file, "SCH003")


@rule("SCH004", "non-string-key", "A mapping key is not a string.", on="file", kinds=CORPUS_KINDS)
def non_string_key(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports keys that YAML reads as numbers, booleans, null or collections.
    ## Why is this bad?
    JSON (and the published dataset) only has string keys; `1:` and `"1":` would silently merge.
    ## Example
    ```yaml
    results: {1: first}
    ```
    ## Use instead
    ```yaml
    results: {"1": first}
    ```
    """
    return _problems(file, "SCH004")


@rule("SCH005", "ambiguous-boolean", "An unquoted yes/no/on/off/y/n.", on="file", kinds=CORPUS_KINDS)
def ambiguous_boolean(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports the YAML 1.1 boolean spellings `yes no on off y n` (any case) written without quotes.
    ## Why is this bad?
    YAML 1.1 parsers read `no` as false, YAML 1.2 parsers as the string "no": the Norway problem.
    A ground-truth value must mean the same thing to every reader.
    ## Example
    ```yaml
    args: {country: no, confirm: yes}
    ```
    ## Use instead
    ```yaml
    args: {country: "no", confirm: true}
    ```
    """
    return _problems(file, "SCH005")


@rule("SCH006", "file-too-large", "The file is over the size limit (1 MiB).", on="file", kinds=CORPUS_KINDS)
def file_too_large(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Refuses files larger than 1 MiB before parsing them.
    ## Why is this bad?
    No case, spec or scenario needs that much; a huge file is a mistake or an attack on the checker.
    ## Example
    A 5 MB `state.yaml` with generated tables.
    ## Use instead
    Keep states small and hand-written; split large data across sandboxes or trim it.
    """
    return _problems(file, "SCH006")


@rule("SCH007", "not-utf8-text", "The file is not UTF-8 text.", on="file", kinds=CORPUS_KINDS)
def not_utf8_text(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports bytes that are not valid UTF-8, and NUL bytes.
    ## Why is this bad?
    Chinese text saved as GBK or a binary file under `dialogues/` would be read as garbage.
    ## Example
    A case saved in GB18030 by an editor.
    ## Use instead
    Save every corpus file as UTF-8.
    """
    return _problems(file, "SCH007")


@rule("SCH008", "multiple-documents", "The file holds more than one YAML document.", on="file", kinds=CORPUS_KINDS)
def multiple_documents(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports a second document after `---`.
    ## Why is this bad?
    One file is one API, case or scenario; a second document would be ignored by some tools.
    ## Example
    ```yaml
    id: a
    ---
    id: b
    ```
    ## Use instead
    Put the second document in its own file.
    """
    return _problems(file, "SCH008")


@rule("SCH009", "ambiguous-scalar", "A YAML 1.1-only number form or an explicit tag.", on="file", kinds=CORPUS_KINDS)
def ambiguous_scalar(file: LoadedFile, corpus: Corpus) -> Iterator[Finding]:
    """
    ## What it does
    Reports unquoted scalars that YAML 1.1 reads as something other than they look: octal `010`,
    sexagesimal `10:30` (read as 630), hex, `1_000`, `.inf`, `.nan`, and explicit tags such as
    `!!binary` or `!!python/object`.
    ## Why is this bad?
    `time: 10:30` silently becomes the number 630 for one parser and a string for another.
    ## Example
    ```yaml
    args: {time: 10:30, code: 0755}
    ```
    ## Use instead
    ```yaml
    args: {time: "10:30", code: "0755"}
    ```
    """
    return _problems(file, "SCH009")
