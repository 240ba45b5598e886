"""Anthropic's Message Batches (``/v1/messages/batches``)."""

from typing import Any

from playbench.models.providers.batching import BatchFailed, BatchFlow, BatchHttp, Outcome, jsonl_objects, named_id


class AnthropicBatches(BatchFlow):
    """``/v1/messages/batches``: Anthropic's Message Batches."""

    name = "anthropic"

    def line(self, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``{custom_id, params}``: the Messages request."""
        return {"custom_id": item_id, "params": body}

    async def submit(self, http: BatchHttp, lines: list[dict[str, Any]], content: bytes) -> str:
        """``POST /v1/messages/batches`` with every request."""
        created = await http.call("POST", "/v1/messages/batches", "creating a batch", json={"requests": lines})
        return named_id(created, "creating a batch", "batch")

    async def poll(self, http: BatchHttp, batch: str) -> tuple[bool, str, dict[str, Any]]:
        """``GET /v1/messages/batches/{id}``: ended when ``processing_status`` is ``ended``."""
        info = await http.call("GET", f"/v1/messages/batches/{batch}", f"polling batch {batch}")
        status = info.get("processing_status") if isinstance(info, dict) else None
        if not isinstance(status, str):
            raise BatchFailed(f"polling batch {batch}: the answer has no processing_status")
        return status == "ended", status, info

    async def cancel(self, http: BatchHttp, batch: str) -> None:
        """``POST /v1/messages/batches/{id}/cancel``."""
        await http.call("POST", f"/v1/messages/batches/{batch}/cancel", f"cancelling batch {batch}")

    async def results(self, http: BatchHttp, batch: str, info: dict[str, Any],
                      items: list[str]) -> dict[str, Outcome]:
        """The results file (read from the API's own results path, never from a URL the answer names)."""
        content = await http.call("GET", f"/v1/messages/batches/{batch}/results", f"reading batch {batch}'s results",
                                  raw=True)
        out: dict[str, Outcome] = {}
        for row in jsonl_objects(content):
            item, result = row.get("custom_id"), row.get("result")
            if not isinstance(item, str) or not isinstance(result, dict):
                continue
            kind = result.get("type")
            if kind == "succeeded":
                out[item] = self.answer(result.get("message"))
            else:
                error = result.get("error")
                detail = str(error.get("type", "")) if isinstance(error, dict) else ""
                out[item] = Outcome(None, kind if kind in ("errored", "canceled", "expired") else "errored", detail)
        return out
