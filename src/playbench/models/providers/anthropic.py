"""Anthropic Messages API."""

from typing import Any, ClassVar

from playbench.models.providers.base import (
    Provider,
    as_object,
    count,
    label,
    malformed,
    optional_object,
    optional_text,
)
from playbench.models.types import GenerateConfig, Message, ModelOutput

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096  # the Messages API requires max_tokens


def wire_request(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, messages): system messages joined with blank lines; same-role turns merged."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        blocks: list[dict[str, Any]] = [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": img.b64}}
            for img in m.images
        ]
        blocks.append({"type": "text", "text": m.content or " "})
        if turns and turns[-1]["role"] == m.role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": m.role, "content": blocks})
    if turns and turns[0]["role"] != "user":  # the API wants a user turn first
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": "(start)"}]})
    return system, turns


class AnthropicProvider(Provider):
    """``POST {base}/v1/messages`` with ``x-api-key``."""

    name = "anthropic"
    reserved = ("model", "messages", "stream", "system")
    unsupported: ClassVar[dict[str, str]] = {"reasoning_effort": "give extended thinking as -M 'thinking={\"type\": \"enabled\", "
                                       "\"budget_tokens\": 2048}'"}

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        system, turns = wire_request(messages)
        body: dict[str, Any] = {"model": self.model, "messages": turns,
                                "max_tokens": config.output_budget() or DEFAULT_MAX_TOKENS}
        if system:
            body["system"] = system
        # seed: the Messages API has none (not sent, as before: runs recorded with it still resume)
        for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("top_k", "top_k"),
                             ("stop", "stop_sequences")):
            if getattr(config, ours) is not None:
                body[theirs] = getattr(config, ours)
        body.update(config.extras())
        return body

    def request(self, messages: list[Message], config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
        """(URL, headers, body): the key in ``x-api-key`` (beside the URL's basic auth, if any)."""
        headers = {"anthropic-version": API_VERSION, **self.auth_headers()}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return f"{self.base_url}/v1/messages", headers, self.body(messages, config)

    def parse(self, data: Any) -> ModelOutput:
        """Text blocks (joined) and thinking blocks of ``content``, and ``usage``."""
        data = as_object(data, "the answer")
        content = data.get("content")
        if not isinstance(content, list):
            raise malformed("no content list in the answer")
        texts, thoughts = [], []
        for block in content:
            block = as_object(block, "a content block")
            if block.get("type") == "text":
                texts.append(optional_text(block.get("text"), "a text block's text") or "")
            elif block.get("type") == "thinking":
                thoughts.append(label(block.get("thinking")) or "")
        usage = optional_object(data.get("usage"), "usage")
        return ModelOutput(
            text="".join(texts).strip(),
            input_tokens=count(usage.get("input_tokens"), "usage.input_tokens"),
            output_tokens=count(usage.get("output_tokens"), "usage.output_tokens"),
            reasoning="\n".join(thoughts) or None,
            stop_reason=label(data.get("stop_reason")),
        )
