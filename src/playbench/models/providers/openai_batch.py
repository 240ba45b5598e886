"""The OpenAI Batch API (``/files`` with purpose ``batch``, then ``/batches``), and servers that copy it."""

from typing import Any
from urllib.parse import urlsplit

import aiohttp

from playbench.models.providers.batching import (
    BatchFailed,
    BatchFlow,
    BatchHttp,
    Outcome,
    is_name,
    jsonl_objects,
    named_id,
)


class OpenAIBatches(BatchFlow):
    """``/files`` (purpose ``batch``) and ``/batches``: the OpenAI Batch API, and servers that copy it."""

    name = "openai"
    ENDED = ("completed", "failed", "expired", "cancelled")

    def line(self, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``{custom_id, method, url, body}``: the chat-completions request as its own endpoint's path."""
        path = urlsplit(f"{self.provider.base_url}/chat/completions").path
        return {"custom_id": item_id, "method": "POST", "url": path, "body": body}

    async def submit(self, http: BatchHttp, lines: list[dict[str, Any]], content: bytes) -> str:
        """Upload the requests, then create the batch over them."""
        def form() -> aiohttp.FormData:
            data = aiohttp.FormData()
            data.add_field("purpose", "batch")
            data.add_field("file", content, filename="requests.jsonl", content_type="application/jsonl")
            return data

        uploaded = await http.call("POST", "/files", "uploading a batch's requests", form=form)
        file_id = named_id(uploaded, "uploading a batch's requests", "file")
        created = await http.call("POST", "/batches", "creating a batch", json={
            "input_file_id": file_id, "endpoint": lines[0]["url"], "completion_window": "24h"})
        return named_id(created, "creating a batch", "batch")

    async def poll(self, http: BatchHttp, batch: str) -> tuple[bool, str, dict[str, Any]]:
        """``GET /batches/{id}``: ended at completed, failed, expired or cancelled."""
        info = await http.call("GET", f"/batches/{batch}", f"polling batch {batch}")
        status = info.get("status") if isinstance(info, dict) else None
        if not isinstance(status, str):
            raise BatchFailed(f"polling batch {batch}: the answer has no status")
        return status in self.ENDED, status, info

    async def cancel(self, http: BatchHttp, batch: str) -> None:
        """``POST /batches/{id}/cancel``."""
        await http.call("POST", f"/batches/{batch}/cancel", f"cancelling batch {batch}")

    async def results(self, http: BatchHttp, batch: str, info: dict[str, Any],
                      items: list[str]) -> dict[str, Outcome]:
        """The output file's answers and the error file's errors (expired and cancelled items among them)."""
        out: dict[str, Outcome] = {}
        for key in ("error_file_id", "output_file_id"):  # an answer wins over an error for the same id
            file_id = info.get(key)
            if file_id is None or file_id == "":
                continue
            if not is_name(file_id):  # it goes into a URL path
                raise BatchFailed(f"batch {batch}: its {key} is not a file id")
            content = await http.call("GET", f"/files/{file_id}/content", f"reading batch {batch}'s results", raw=True)
            for row in jsonl_objects(content):
                item = row.get("custom_id")
                if isinstance(item, str):
                    out[item] = self._outcome(row)
        return out

    def _outcome(self, row: dict[str, Any]) -> Outcome:
        response, error = row.get("response"), row.get("error")
        if isinstance(response, dict) and response.get("status_code") == 200 and not error:
            return self.answer(response.get("body"))
        code = error.get("code") if isinstance(error, dict) else None
        fault = {"batch_expired": "expired", "batch_cancelled": "canceled"}.get(str(code), "errored")
        status = response.get("status_code") if isinstance(response, dict) else None
        return Outcome(None, fault, f"code {code}" if code else f"HTTP {status}")
