"""A tiny Hub-compatible HTTP server on 127.0.0.1 for the publish tests.

It implements only the routes the real ``huggingface_hub`` client calls when `callbank publish`
runs: create-repo, repo info at a revision, the file tree, refs, YAML validation of the card,
preupload and the NDJSON commit, tags, and file downloads (`resolve`) for the loader. Every request is logged so tests can assert what was
(or was not) sent. Commits are atomic here as on the Hub: a commit either applies in full or
changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Commit:
    oid: str
    parent: str | None
    files: dict[str, bytes]
    message: str


@dataclass
class FakeRepo:
    repo_id: str
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    pulls: list[str] = field(default_factory=list)

    def head(self, revision: str) -> Commit | None:
        oid = self.branches.get(revision, revision if revision in self.commits else None)
        return self.commits.get(oid) if oid else None


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes


class FakeHub:
    def __init__(self, token: str = "hf_test_token") -> None:
        self.token = token
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[Request] = []
        self.commits_received: list[list[dict[str, Any]]] = []  # every commit payload that was applied
        self.fail_commit_with: int | None = None  # answer commits with this status instead
        self.reject_card: str | None = None  # validate-yaml answers 400 with this message
        self.move_branch_on_preupload = False  # someone else commits while a publish is under way
        self.unknown_routes: list[str] = []
        self._counter = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # ----------------------------------------------------------------------------- lifecycle

    @property
    def endpoint(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}"

    def __enter__(self) -> FakeHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # ----------------------------------------------------------------------------- state

    def _new_oid(self) -> str:
        self._counter += 1
        return hashlib.sha1(f"commit-{self._counter}".encode()).hexdigest()

    def create(self, repo_id: str) -> FakeRepo:
        repo = FakeRepo(repo_id)
        oid = self._new_oid()
        repo.commits[oid] = Commit(oid, None, {".gitattributes": GITATTRIBUTES}, "initial commit")
        repo.branches["main"] = oid
        self.repos[repo_id] = repo
        return repo

    def files(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        head = self.repos[repo_id].head(revision)
        return dict(head.files) if head else {}

    def push_external(self, repo_id: str, path: str, data: bytes, revision: str = "main") -> str:
        """Someone else commits to the branch (to move it under a running publish)."""
        repo = self.repos[repo_id]
        parent = repo.commits[repo.branches[revision]]
        oid = self._new_oid()
        repo.commits[oid] = Commit(oid, parent.oid, {**parent.files, path: data}, "external")
        repo.branches[revision] = oid
        return oid

    def routes(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests]

    # ----------------------------------------------------------------------------- HTTP

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks: list[bytes] = []
                    while True:
                        size = int(self.rfile.readline().strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_file(self, method: str, status: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if method == "GET":
                    self.wfile.write(data)

            def _dispatch(self, method: str) -> None:
                parts = urlsplit(self.path)
                if "/resolve/" in parts.path and method in ("GET", "HEAD"):
                    with hub._lock:
                        hub.requests.append(Request(method, unquote(parts.path), parse_qs(parts.query), {}, b""))
                        status, data, headers = hub.resolve(unquote(parts.path))
                    self._send_file(method, status, data, headers)
                    return
                names = {key.lower(): value for key, value in self.headers.items()}
                request = Request(method, unquote(parts.path), parse_qs(parts.query), names, self._body())
                with hub._lock:
                    hub.requests.append(request)
                    status, payload, answer_headers = hub.handle(request)
                self._send(status, payload, answer_headers)

            def do_GET(self) -> None:
                self._dispatch("GET")

            def do_POST(self) -> None:
                self._dispatch("POST")

            def do_HEAD(self) -> None:
                self._dispatch("HEAD")

        return Handler

    def handle(self, request: Request) -> tuple[int, Any, dict[str, str] | None]:
        if request.method == "GET" and request.path == "/api/agent-harnesses":
            return 200, {"standardEnvVars": [], "harnesses": {}}, None  # the client's user-agent registry
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return 401, {"error": "Invalid credentials in Authorization header"}, None
        path, method = request.path, request.method
        if method == "POST" and path == "/api/repos/create":
            return self._create(json.loads(request.body))
        if method == "POST" and path == "/api/validate-yaml":
            if self.reject_card:
                return 400, {"errors": [{"message": self.reject_card}], "warnings": []}, None
            return 200, {"errors": [], "warnings": []}, None
        if path.startswith("/api/datasets/"):
            segments = path[len("/api/datasets/") :].split("/")
            repo_id, action, rest = "/".join(segments[:2]), (segments[2] if len(segments) > 2 else ""), segments[3:]
            repo = self.repos.get(repo_id)
            if repo is None:
                return 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}
            handler = {
                ("GET", "revision"): self._info,
                ("GET", "tree"): self._tree,
                ("GET", "refs"): self._refs,
                ("POST", "preupload"): self._preupload,
                ("POST", "commit"): self._commit,
                ("POST", "tag"): self._tag,
            }.get((method, action))
            if handler is not None:
                return handler(repo, rest, request)
        self.unknown_routes.append(f"{method} {path}")
        return 404, {"error": f"no route {method} {path}"}, None

    def resolve(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        """GET/HEAD /datasets/ORG/NAME/resolve/REVISION/PATH: a file's bytes, as downloads use it."""
        prefix, _, rest = path.partition("/resolve/")
        repo = self.repos.get(prefix.removeprefix("/datasets/"))
        revision, _, file_path = rest.partition("/")
        head = repo.head(revision) if repo else None
        if head is None or file_path not in head.files:
            return 404, b"", {"X-Error-Code": "EntryNotFound" if head else "RepoNotFound"}
        data = head.files[file_path]
        return 200, data, {"X-Repo-Commit": head.oid, "ETag": f'"{git_blob_oid(data)}"', "Content-Type": "application/octet-stream"}

    def _create(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str] | None]:
        repo_id = f"{body['organization']}/{body['name']}"
        url = f"{self.endpoint}/datasets/{repo_id}"
        if body.get("type") != "dataset":
            return 400, {"error": "this fake hub only holds datasets"}, None
        if repo_id in self.repos:
            return 409, {"error": "You already created this dataset repo", "url": url}, None
        self.create(repo_id)
        return 200, {"url": url, "name": repo_id, "id": repo_id}, None

    def _revision(self, repo: FakeRepo, revision: str) -> Commit | tuple[int, Any, dict[str, str]]:
        head = repo.head(unquote(revision))
        if head is None:
            return 404, {"error": f"Invalid rev id: {revision}"}, {"X-Error-Code": "RevisionNotFound"}
        return head

    def _info(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        head = self._revision(repo, "/".join(rest))
        if not isinstance(head, Commit):
            return head
        siblings = [{"rfilename": p} for p in sorted(head.files)]
        return 200, {"id": repo.repo_id, "sha": head.oid, "private": False, "siblings": siblings}, None

    def _tree(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        head = self._revision(repo, rest[0] if rest else "main")
        if not isinstance(head, Commit):
            return head
        entries: list[dict[str, Any]] = []
        folders = sorted({"/".join(p.split("/")[:i]) for p in head.files for i in range(1, p.count("/") + 1)})
        entries += [{"type": "directory", "oid": git_blob_oid(f.encode()), "size": 0, "path": f} for f in folders]
        entries += [{"type": "file", "oid": git_blob_oid(d), "size": len(d), "path": p} for p, d in sorted(head.files.items())]
        return 200, entries, None

    def _refs(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        branches = [{"name": n, "ref": f"refs/heads/{n}", "targetCommit": o} for n, o in sorted(repo.branches.items())]
        tags = [{"name": n, "ref": f"refs/tags/{n}", "targetCommit": o} for n, o in sorted(repo.tags.items())]
        return 200, {"branches": branches, "tags": tags, "converts": [], "pullRequests": []}, None

    def _preupload(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        if self.move_branch_on_preupload:
            self.push_external(repo.repo_id, "CONCURRENT.md", b"someone else was faster\n")
        head = repo.head(unquote(rest[0]) if rest else "main")
        existing = head.files if head else {}
        files = json.loads(request.body)["files"]
        answer = [
            {
                "path": f["path"],
                "uploadMode": "regular",  # small files: every one goes inline in the commit
                "shouldIgnore": False,
                "oid": git_blob_oid(existing[f["path"]]) if f["path"] in existing else None,
            }
            for f in files
        ]
        return 200, {"files": answer, "commitOid": head.oid if head else None}, None

    def _commit(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        if self.fail_commit_with is not None:
            return self.fail_commit_with, {"error": "Internal Error - We're working hard to fix this as soon as possible!"}, None
        revision = unquote(rest[0]) if rest else "main"
        lines = [json.loads(line) for line in request.body.decode().splitlines() if line.strip()]
        header = lines[0]["value"]
        head = repo.head(revision)
        if head is None:
            return 404, {"error": f"Invalid rev id: {revision}"}, {"X-Error-Code": "RevisionNotFound"}
        create_pr = request.query.get("create_pr") == ["1"]
        parent = header.get("parentCommit")
        if parent is not None and not head.oid.startswith(parent) and not create_pr:
            return 412, {"error": "A commit has happened since. Please refresh and try again."}, None
        base = repo.commits[parent] if (create_pr and parent in repo.commits) else head
        files = dict(base.files)
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file":
                files[value["path"]] = base64.b64decode(value["content"])
            elif key in ("deletedFile", "deletedFolder"):
                prefix = value["path"].rstrip("/") + "/"
                for path in [p for p in files if p == value["path"] or (key == "deletedFolder" and p.startswith(prefix))]:
                    del files[path]
            else:
                return 400, {"error": f"this fake hub does not take {key} operations"}, None
        oid = self._new_oid()
        repo.commits[oid] = Commit(oid, base.oid, files, header["summary"])
        self.commits_received.append(lines)
        pr_url = None
        if create_pr:
            number = len(repo.pulls) + 1
            repo.pulls.append(oid)
            repo.branches[f"refs/pr/{number}"] = oid
            pr_url = f"{self.endpoint}/datasets/{repo.repo_id}/discussions/{number}"
        else:
            repo.branches[revision] = oid
        url = f"{self.endpoint}/datasets/{repo.repo_id}/commit/{oid}"
        return 200, {"success": True, "commitOid": oid, "commitUrl": url, "pullRequestUrl": pr_url}, None

    def _tag(self, repo: FakeRepo, rest: list[str], request: Request) -> tuple[int, Any, dict[str, str] | None]:
        head = self._revision(repo, rest[0] if rest else "main")
        if not isinstance(head, Commit):
            return head
        tag = json.loads(request.body)["tag"]
        if tag in repo.tags:
            return 409, {"error": f"tag {tag} already exists"}, None
        repo.tags[tag] = head.oid
        return 200, {}, None
