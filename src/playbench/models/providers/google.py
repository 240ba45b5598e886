"""Google Gemini API (``generateContent``)."""

from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.models.providers.base import (
    Provider,
    as_object,
    count,
    label,
    malformed,
    optional_list,
    optional_object,
    optional_text,
    reports_tokens,
)
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
    #: top-level keys playbench writes (``-M`` extras go inside ``generationConfig``)
    reserved = ("contents", "systemInstruction", "generationConfig")

    def check_config(self, config: GenerateConfig) -> None:
        """Also refuse ``reasoning_effort`` beside a ``thinkingConfig`` of one's own (one would be lost)."""
        super().check_config(config)
        if config.reasoning_effort is not None and "thinkingConfig" in config.extras():
            raise PlaybenchError("-M reasoning_effort and -M thinkingConfig both set Gemini's thinkingConfig: give one")

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        body = wire_request(messages)
        gen: dict[str, Any] = {}
        for ours, theirs in (("temperature", "temperature"), ("top_p", "topP"), ("top_k", "topK"),
                             ("seed", "seed"), ("stop", "stopSequences")):
            if getattr(config, ours) is not None:
                gen[theirs] = getattr(config, ours)
        if config.output_budget() is not None:
            gen["maxOutputTokens"] = config.output_budget()
        if config.reasoning_effort is not None:
            gen["thinkingConfig"] = {"thinkingLevel": config.reasoning_effort}
        gen.update(config.extras())  # Google's own names, e.g. responseMimeType, thinkingConfig
        if gen:
            body["generationConfig"] = gen
        return body

    def request(self, messages: list[Message], config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
        """(URL, headers, body): the key in ``x-goog-api-key`` (beside the URL's basic auth, if any)."""
        headers = self.auth_headers()
        if self.api_key:
            headers["x-goog-api-key"] = self.api_key
        url = f"{self.base_url}/v1beta/models/{self.model}:generateContent"
        return url, headers, self.body(messages, config)

    def parse(self, data: Any) -> ModelOutput:
        """The first candidate's text and thought parts (a blocked or empty one is a well-formed empty answer)."""
        data = as_object(data, "the answer")
        if "candidates" not in data and "promptFeedback" not in data:
            raise malformed("neither candidates nor promptFeedback in the answer")
        candidates = optional_list(data.get("candidates"), "candidates")
        texts: list[str] = []
        thoughts: list[str] = []
        if candidates:
            cand = as_object(candidates[0], "candidates[0]")
            finish = label(cand.get("finishReason"))
            content = optional_object(cand.get("content"), "candidates[0].content")
            for part in optional_list(content.get("parts"), "candidates[0].content.parts"):
                part = as_object(part, "a content part")
                if "text" in part:
                    text = optional_text(part["text"], "a part's text") or ""
                    (thoughts if part.get("thought") is True else texts).append(text)
        else:
            feedback = optional_object(data.get("promptFeedback"), "promptFeedback")
            finish = label(feedback.get("blockReason")) or "blocked"
        usage = optional_object(data.get("usageMetadata"), "usageMetadata")
        # promptTokenCount includes the cached tokens; cachedContentTokenCount is left out when nothing was cached
        # (implicit caching), so its absence reads as 0 once the answer carries a usageMetadata at all
        cached = usage.get("cachedContentTokenCount")
        return ModelOutput(
            text="".join(texts).strip(),
            input_tokens=count(usage.get("promptTokenCount"), "usageMetadata.promptTokenCount"),
            output_tokens=count(usage.get("candidatesTokenCount"), "usageMetadata.candidatesTokenCount")
            + count(usage.get("thoughtsTokenCount"), "usageMetadata.thoughtsTokenCount"),
            reasoning="\n".join(thoughts) or None,
            stop_reason=finish,
            cache_read_tokens=count(cached, "usageMetadata.cachedContentTokenCount") if usage else None,
            tokens_reported=reports_tokens(usage, "promptTokenCount", "candidatesTokenCount", "totalTokenCount"),
        )
