"""Google Gemini API (``generateContent``)."""

from typing import Any

from playbench.models.providers.base import Provider, malformed, post_json
from playbench.models.types import GenerateConfig, Message, ModelOutput


def wire_request(messages: list[Message]) -> dict[str, Any]:
    """``contents`` with roles user/model (images as inline PNG parts) and ``systemInstruction``."""
    system = [m.content for m in messages if m.role == "system"]
    contents: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        role = "model" if m.role == "assistant" else "user"
        parts: list[dict[str, Any]] = [{"text": m.content}]
        parts += [{"inlineData": {"mimeType": "image/png", "data": img.b64}} for img in m.images]
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    return body


class GoogleProvider(Provider):
    """``POST {base}/v1beta/models/{model}:generateContent`` with ``x-goog-api-key``."""

    name = "google"

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        body = wire_request(messages)
        gen: dict[str, Any] = {}
        for ours, theirs in (("temperature", "temperature"), ("max_tokens", "maxOutputTokens"), ("top_p", "topP"),
                             ("seed", "seed"), ("stop", "stopSequences")):
            if getattr(config, ours) is not None:
                gen[theirs] = getattr(config, ours)
        if gen:
            body["generationConfig"] = gen
        return body

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """One attempt. A blocked or empty candidate is a well-formed empty answer (not retried)."""
        assert client is not None
        headers = {"x-goog-api-key": self.api_key} if self.api_key else {}
        url = f"{self.base_url}/v1beta/models/{self.model}:generateContent"
        data = await post_json(client, url, headers, self.body(messages, config))
        if not isinstance(data, dict) or ("candidates" not in data and "promptFeedback" not in data):
            raise malformed("neither candidates nor promptFeedback in the answer")
        candidates = data.get("candidates") or []
        texts, thoughts = [], []
        finish = None
        if candidates:
            cand = candidates[0]
            if not isinstance(cand, dict):
                raise malformed("candidate is not an object")
            finish = cand.get("finishReason")
            for part in (cand.get("content") or {}).get("parts") or []:
                if "text" in part:
                    (thoughts if part.get("thought") else texts).append(str(part["text"]))
        else:
            finish = (data.get("promptFeedback") or {}).get("blockReason", "blocked")
        usage = data.get("usageMetadata") or {}
        return ModelOutput(
            text="".join(texts).strip(),
            input_tokens=int(usage.get("promptTokenCount") or 0),
            output_tokens=int(usage.get("candidatesTokenCount") or 0) + int(usage.get("thoughtsTokenCount") or 0),
            reasoning="\n".join(thoughts) or None,
            stop_reason=finish,
        )
