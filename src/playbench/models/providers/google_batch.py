"""Gemini's batch mode (``models/{model}:batchGenerateContent`` with inline requests, polled at ``batches/{id}``)."""

import re
from typing import Any

from playbench.models.providers.batching import BatchFailed, BatchFlow, BatchHttp, Outcome

_GEMINI_BATCH = re.compile(r"batches/([A-Za-z0-9_-]{1,200})")
#: Gemini's batch states, as the REST API writes them (``BATCH_STATE_*``) or its SDKs (``JOB_STATE_*``), ended ones
_GEMINI_ENDED = ("succeeded", "failed", "cancelled", "expired")


class GeminiBatches(BatchFlow):
    """``models/{model}:batchGenerateContent`` with inline requests, polled at ``batches/{id}``: Gemini's batch mode."""

    name = "google"
    #: inline requests must stay under 20 MB in all; a larger queue goes out as several batches
    max_bytes = 19 * 2**20
    #: a Gemini batch expires after 48 hours
    window = 48 * 3600.0

    def line(self, item_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``{request, metadata: {key}}``: the generateContent request, its custom_id as the key."""
        return {"request": body, "metadata": {"key": item_id}}

    async def submit(self, http: BatchHttp, lines: list[dict[str, Any]], content: bytes) -> str:
        """``POST /v1beta/models/{model}:batchGenerateContent``; the id of the ``batches/{id}`` it names."""
        created = await http.call("POST", f"/v1beta/models/{self.provider.model}:batchGenerateContent",
                                  "creating a batch", json={"batch": {
                                      "displayName": "playbench", "inputConfig": {"requests": {"requests": lines}}}})
        name = created.get("name") if isinstance(created, dict) else None
        match = _GEMINI_BATCH.fullmatch(name) if isinstance(name, str) else None
        if match is None:
            raise BatchFailed("creating a batch: the answer names no batches/{id}")
        return match.group(1)

    async def poll(self, http: BatchHttp, batch: str) -> tuple[bool, str, dict[str, Any]]:
        """``GET /v1beta/batches/{id}``, an operation with the state in its ``metadata``.

        Ended at succeeded, failed, cancelled or expired; the status is the state's last word, lower-cased.
        """
        info = await http.call("GET", f"/v1beta/batches/{batch}", f"polling batch {batch}")
        meta = info.get("metadata") if isinstance(info, dict) else None
        state = meta.get("state") if isinstance(meta, dict) else None
        if not isinstance(state, str) and isinstance(info, dict):
            state = info.get("state")  # the batch itself rather than its operation
        if not isinstance(state, str):
            raise BatchFailed(f"polling batch {batch}: the answer has no state")
        status = re.sub(r"^(BATCH|JOB)_STATE_", "", state).lower()
        return status in _GEMINI_ENDED, status, info

    async def cancel(self, http: BatchHttp, batch: str) -> None:
        """``POST /v1beta/batches/{id}:cancel``."""
        await http.call("POST", f"/v1beta/batches/{batch}:cancel", f"cancelling batch {batch}")

    async def results(self, http: BatchHttp, batch: str, info: dict[str, Any], items: list[str]) -> dict[str, Outcome]:
        """The inline responses, matched by their metadata key, else by position (they keep the requests' order).

        A batch answered in a responses file instead reports nothing here: its items are sent again live.
        """
        output = info.get("response")
        if not isinstance(output, dict):
            meta = info.get("metadata")
            output = meta.get("output") if isinstance(meta, dict) else None
        inlined = output.get("inlinedResponses") if isinstance(output, dict) else None
        rows = inlined.get("inlinedResponses") if isinstance(inlined, dict) else inlined
        if not isinstance(rows, list):
            return {}
        known, out = set(items), {}
        for number, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            meta = row.get("metadata")
            key = meta.get("key") if isinstance(meta, dict) else None
            if not (isinstance(key, str) and key in known):
                key = items[number] if len(rows) == len(items) else None
            if key is None:
                continue
            if isinstance(row.get("response"), dict):
                out[key] = self.answer(row["response"])
            else:
                error = row.get("error")
                code = error.get("code") if isinstance(error, dict) else None
                out[key] = Outcome(None, "errored", f"code {code}")
        return out
