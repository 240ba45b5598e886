"""A loopback server of the OpenAI, Anthropic and Gemini batch APIs (and their live endpoints), for ``--batch`` tests.

OpenAI: ``POST /v1/files`` (multipart, purpose ``batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}``,
``GET /v1/files/{id}/content``. Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``,
``GET /v1/messages/batches/{id}/results``. Gemini: ``POST /v1beta/models/{model}:batchGenerateContent``
(inline requests), ``GET /v1beta/batches/{id}`` (an operation; the inline responses in ``response`` once it is
done). Live ``/v1/chat/completions``, ``/v1/messages`` and ``/v1beta/models/{model}:generateContent`` answer
too (the requests a batch did not answer are sent there). Every answer is the deterministic one of
:mod:`playbench.models.mockbrain`, as :mod:`playbench.models.fakeserver` gives, so a batch run and a live
run get the same answers.

A batch stays ``in_progress`` for ``delay`` seconds after it is created (``math.inf``: it never ends; a
cancel request ends it cancelled). ``errored`` and ``expired`` are
shares of the items (picked by a hash of the ``custom_id``, the same on every run) that end with an error
(HTTP 500 inside the result) or expired (the whole batch then ends ``expired``; a Gemini batch that expires
answers nothing, as Google's do). ``submissions`` logs every
batch created (its id and custom_ids), ``live`` every live request's body, ``polls`` the status requests,
``cancelled`` the batches a client cancelled.

The large bodies (OpenAI's files content, Anthropic's results, Gemini's poll answers) can come as a real
server sends them over TLS: ``piece`` bytes at a time, ``piece_delay`` seconds apart, with a Content-Length;
the first ``cut`` of them stop halfway and the connection drops. ``pad`` adds that many bytes of filler to
each result row (long answers, without changing what the answer says).
"""

import argparse
import asyncio
import hashlib
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from playbench.models.fakeserver import _parse_request, reply_body
from playbench.models.mockbrain import answer


@dataclass
class _Batch:
    api: str
    requests: list[dict[str, Any]]
    created: float
    results: bytes | None = None
    status: str = "in_progress"
    output_file: str | None = None
    error_file: str | None = None
    model: str = ""
    output: list[dict[str, Any]] | None = None


def _share(item_id: str, salt: str) -> float:
    """A number in [0, 1) fixed by the item id: which items fail."""
    return int(hashlib.sha256(f"{salt}:{item_id}".encode()).hexdigest()[:8], 16) / 2**32


@dataclass
class FakeBatchServer:
    """``with FakeBatchServer(delay=0.5) as s:`` … ``s.url`` is ``http://127.0.0.1:PORT``."""

    delay: float = 0.2
    errored: float = 0.0
    expired: float = 0.0
    submissions: list[dict[str, Any]] = field(default_factory=list)
    live: list[dict[str, Any]] = field(default_factory=list)
    polls: int = 0
    cancelled: list[str] = field(default_factory=list)
    piece: int = 0
    piece_delay: float = 0.02
    cut: int = 0
    pad: int = 0
    port: int = 0
    _files: dict[str, bytes] = field(default_factory=dict)
    _batches: dict[str, _Batch] = field(default_factory=dict)
    _ids: Any = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """The server's root URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeBatchServer":
        """Serve in a thread of its own."""
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            app = web.Application(client_max_size=2**30)
            app.add_routes([
                web.post("/v1/files", self._upload), web.post("/v1/batches", self._create_openai),
                web.get("/v1/batches/{id}", self._status_openai), web.get("/v1/files/{id}/content", self._content),
                web.post("/v1/batches/{id}/cancel", self._cancel),
                web.post("/v1/messages/batches", self._create_anthropic),
                web.get("/v1/messages/batches/{id}", self._status_anthropic),
                web.get("/v1/messages/batches/{id}/results", self._results_anthropic),
                web.post("/v1/messages/batches/{id}/cancel", self._cancel),
                web.post("/v1beta/batches/{id}:cancel", self._cancel),
                web.post("/v1/chat/completions", self._live), web.post("/v1/messages", self._live),
                web.post("/v1beta/models/{target}", self._gemini), web.get("/v1beta/batches/{id}", self._status_gemini),
            ])
            self._runner = web.AppRunner(app)
            self._loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", self.port)
            self._loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._runner.cleanup())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Stop serving."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> "FakeBatchServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def submitted_items(self) -> list[str]:
        """Every custom_id of every batch created, in order (one per submission of an item)."""
        return [item for s in self.submissions for item in s["custom_ids"]]

    # -- OpenAI ---------------------------------------------------------------------------------

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            return web.json_response({"error": {"message": "purpose batch and a file are required"}}, status=400)
        name = f"file-{next(self._ids)}"
        self._files[name] = upload.file.read()
        return web.json_response({"id": name, "object": "file", "purpose": "batch", "bytes": len(self._files[name])})

    async def _create_openai(self, request: web.Request) -> web.Response:
        body = await request.json()
        content = self._files.get(body.get("input_file_id", ""))
        if content is None or body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return web.json_response({"error": {"message": "bad batch"}}, status=400)
        lines = [orjson.loads(line) for line in content.splitlines() if line.strip()]
        return web.json_response(self._open("openai", lines))

    async def _status_openai(self, request: web.Request) -> web.Response:
        batch = self._batch(request)
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        return web.json_response({"id": request.match_info["id"], "object": "batch", "status": batch.status,
                                  "output_file_id": batch.output_file, "error_file_id": batch.error_file})

    async def _content(self, request: web.Request) -> web.StreamResponse:
        content = self._files.get(request.match_info["id"])
        if content is None:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        return await self._deliver(request, content, "application/jsonl")

    # -- Anthropic ------------------------------------------------------------------------------

    async def _create_anthropic(self, request: web.Request) -> web.Response:
        body = await request.json()
        lines = body.get("requests")
        if not isinstance(lines, list) or not lines:
            return web.json_response({"type": "error", "error": {"type": "invalid_request_error"}}, status=400)
        return web.json_response(self._open("anthropic", lines))

    async def _status_anthropic(self, request: web.Request) -> web.Response:
        batch = self._batch(request)
        if batch is None:
            return web.json_response({"type": "error", "error": {"type": "not_found_error"}}, status=404)
        ended = batch.status != "in_progress"
        return web.json_response({"id": request.match_info["id"], "type": "message_batch",
                                  "processing_status": "ended" if ended else "in_progress",
                                  "results_url": f"{self.url}/v1/messages/batches/{request.match_info['id']}/results"
                                  if ended else None})

    async def _results_anthropic(self, request: web.Request) -> web.StreamResponse:
        batch = self._batch(request)
        if batch is None or batch.results is None:
            return web.json_response({"type": "error", "error": {"type": "not_found_error"}}, status=404)
        return await self._deliver(request, batch.results, "application/binary")

    # -- Gemini ---------------------------------------------------------------------------------

    async def _gemini(self, request: web.Request) -> web.Response:
        model, _, method = request.match_info["target"].partition(":")
        if method == "generateContent":
            return await self._live(request)
        body = await request.json()
        batch = body.get("batch") if isinstance(body, dict) else None
        config = batch.get("inputConfig", batch.get("input_config")) if isinstance(batch, dict) else None
        inline = config.get("requests") if isinstance(config, dict) else None
        lines = inline.get("requests") if isinstance(inline, dict) else None
        if (method != "batchGenerateContent" or not isinstance(lines, list) or not lines
                or not all(isinstance(line, dict) and isinstance(line.get("request"), dict) for line in lines)):
            return web.json_response({"error": {"code": 400, "status": "INVALID_ARGUMENT"}}, status=400)
        return web.json_response(self._open("google", lines, model))

    async def _status_gemini(self, request: web.Request) -> web.StreamResponse:
        batch = self._batch(request)
        if batch is None:
            return web.json_response({"error": {"code": 404, "status": "NOT_FOUND"}}, status=404)
        return await self._deliver(request, orjson.dumps(self._operation(request.match_info["id"], batch)),
                                   "application/json")

    @staticmethod
    def _operation(name: str, batch: _Batch) -> dict[str, Any]:
        state = {"in_progress": "BATCH_STATE_RUNNING", "completed": "BATCH_STATE_SUCCEEDED",
                 "cancelled": "BATCH_STATE_CANCELLED"}.get(batch.status, "BATCH_STATE_EXPIRED")
        meta: dict[str, Any] = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
                                "model": f"models/{batch.model}", "name": f"batches/{name}",
                                "displayName": "playbench", "state": state}
        operation: dict[str, Any] = {"name": f"batches/{name}", "metadata": meta, "done": batch.status != "in_progress"}
        if batch.output is not None:
            output = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput",
                      "inlinedResponses": {"inlinedResponses": batch.output}}
            operation["response"] = meta["output"] = output
        return operation

    # -- shared ---------------------------------------------------------------------------------

    async def _cancel(self, request: web.Request) -> web.Response:
        """Any API's cancel: an unfinished batch ends cancelled, answering nothing."""
        name = request.match_info["id"]
        batch = self._batches.get(name)
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        self.cancelled.append(name)
        if batch.status == "in_progress":
            batch.status = "cancelled"
            if batch.api == "anthropic":  # ended, every item canceled
                batch.status, batch.results = "ended", b"".join(
                    orjson.dumps({"custom_id": line["custom_id"], "result": {"type": "canceled"}}) + b"\n"
                    for line in batch.requests)
        return web.json_response({"id": name})

    async def _deliver(self, request: web.Request, body: bytes, content_type: str) -> web.StreamResponse:
        """``body`` with its Content-Length, in ``piece``-byte writes ``piece_delay`` s apart (or whole), or cut."""
        with self._lock:
            cut, self.cut = self.cut > 0, max(0, self.cut - 1)
        if not (self.piece or cut):
            return web.Response(body=body, content_type=content_type)
        response = web.StreamResponse(headers={"Content-Type": content_type})
        response.content_length = len(body)
        await response.prepare(request)
        end = len(body) // 2 if cut else len(body)
        step = self.piece or end
        try:
            for start in range(0, end, step):
                await response.write(body[start:min(end, start + step)])
                await asyncio.sleep(self.piece_delay)
        except ConnectionResetError:  # the client stopped reading (and closed the connection)
            return response
        if cut:  # the connection drops mid-body, short of the Content-Length it announced
            assert request.transport is not None
            request.transport.close()
            return response
        await response.write_eof()
        return response

    async def _live(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.live.append(body)
        return web.json_response(self._reply(request.path, body))

    def _reply(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        fmt, model, contents = _parse_request(path, body)
        assert fmt is not None
        return reply_body(fmt, model, answer(model, contents), contents)

    def _open(self, api: str, lines: list[dict[str, Any]], model: str = "") -> dict[str, Any]:
        prefix = {"openai": "batch", "anthropic": "msgbatch", "google": "gbatch"}[api]
        name = f"{prefix}_{next(self._ids)}"
        with self._lock:
            self._batches[name] = _Batch(api, lines, time.monotonic(), model=model)
            self.submissions.append({"batch": name, "api": api, "custom_ids": [_item_id(line) for line in lines]})
        if api == "google":
            return self._operation(name, self._batches[name])
        if api == "openai":
            return {"id": name, "object": "batch", "status": "validating", "output_file_id": None, "error_file_id": None}
        return {"id": name, "type": "message_batch", "processing_status": "in_progress", "results_url": None}

    def _batch(self, request: web.Request) -> _Batch | None:
        self.polls += 1
        batch = self._batches.get(request.match_info["id"])
        if batch is not None and batch.status == "in_progress" and time.monotonic() - batch.created >= self.delay:
            self._finish(request.match_info["id"], batch)
        return batch

    def _finish(self, name: str, batch: _Batch) -> None:
        """Answer every item (but the errored and expired ones) and end the batch."""
        if batch.api == "google":
            self._finish_gemini(batch)
            return
        done, failed = [], []
        expired_any = False
        for line in batch.requests:
            item = line["custom_id"]
            if _share(item, "expired") < self.expired:
                expired_any = True
                failed.append(self._failure(batch.api, item, "expired"))
            elif _share(item, "errored") < self.errored:
                failed.append(self._failure(batch.api, item, "errored"))
            elif batch.api == "openai":
                done.append({"id": f"req_{item}", "custom_id": item, "error": None, "response": {
                    "status_code": 200, "request_id": item, "body": self._reply(line["url"], line["body"])}})
            else:
                done.append({"custom_id": item, "result": {"type": "succeeded",
                                                           "message": self._reply("/v1/messages", line["params"])}})
        for row in done:
            row.update(self._filler())
        jsonl = b"".join(orjson.dumps(row) + b"\n" for row in done + failed)
        if batch.api == "openai":
            if done:
                batch.output_file = f"file-{next(self._ids)}"
                self._files[batch.output_file] = b"".join(orjson.dumps(row) + b"\n" for row in done)
            if failed:
                batch.error_file = f"file-{next(self._ids)}"
                self._files[batch.error_file] = b"".join(orjson.dumps(row) + b"\n" for row in failed)
            batch.status = "expired" if expired_any else "completed"
        else:
            batch.results = jsonl
            batch.status = "ended"

    def _finish_gemini(self, batch: _Batch) -> None:
        """Inline responses in the requests' order (each with its key), or none at all once the batch expired."""
        if any(_share(_item_id(line), "expired") < self.expired for line in batch.requests):
            batch.status = "expired"
            return
        rows = []
        for line in batch.requests:
            item = _item_id(line)
            if _share(item, "errored") < self.errored:
                rows.append({"error": {"code": 13, "message": "Internal error encountered.", "status": "INTERNAL"},
                             "metadata": {"key": item}})
            else:
                path = f"/v1beta/models/{batch.model}:generateContent"
                rows.append({"response": self._reply(path, line["request"]), "metadata": {"key": item},
                             **self._filler()})
        batch.output = rows
        batch.status = "completed"

    def _filler(self) -> dict[str, str]:
        """``pad`` bytes of filler for a result row (a field no client reads)."""
        return {"filler": "x" * self.pad} if self.pad else {}

    @staticmethod
    def _failure(api: str, item: str, kind: str) -> dict[str, Any]:
        if api == "anthropic":
            result: dict[str, Any] = {"type": kind}
            if kind == "errored":
                result["error"] = {"type": "error", "error": {"type": "api_error", "message": "overloaded"}}
            return {"custom_id": item, "result": result}
        if kind == "expired":
            return {"id": f"req_{item}", "custom_id": item, "response": None,
                    "error": {"code": "batch_expired", "message": "This request could not be executed before the "
                                                                  "completion window expired."}}
        return {"id": f"req_{item}", "custom_id": item, "error": None,
                "response": {"status_code": 500, "request_id": item, "body": {"error": {"message": "server error"}}}}


def _item_id(line: dict[str, Any]) -> str:
    """An item's id: its ``custom_id`` (OpenAI, Anthropic) or its metadata ``key`` (Gemini)."""
    if "custom_id" in line:
        return str(line["custom_id"])
    return str(line.get("metadata", {}).get("key", ""))


def main() -> None:
    """Standalone server for manual ``--batch`` runs: ``python -m playbench.models.fakebatch --port 8798``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds a batch stays in progress")
    parser.add_argument("--errored", type=float, default=0.0, help="share of items answered with an error")
    parser.add_argument("--expired", type=float, default=0.0, help="share of items left to expire")
    args = parser.parse_args()
    server = FakeBatchServer(delay=args.delay, errored=args.errored, expired=args.expired, port=args.port).start()
    print(f"PORT {server.port}", flush=True)
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
