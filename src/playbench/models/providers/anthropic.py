"""Anthropic Messages API."""

from typing import Any

from playbench.models.providers.base import Provider, malformed, post_json
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

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        system, turns = wire_request(messages)
        body: dict[str, Any] = {"model": self.model, "messages": turns,
                                "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS}
        if system:
            body["system"] = system
        for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("stop", "stop_sequences")):
            if getattr(config, ours) is not None:
                body[theirs] = getattr(config, ours)
        return body

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """One attempt."""
        assert client is not None
        headers = {"anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        data = await post_json(client, f"{self.base_url}/v1/messages", headers, self.body(messages, config))
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise malformed("no content list in the answer")
        texts, thoughts = [], []
        for block in data["content"]:
            if not isinstance(block, dict):
                raise malformed("content block is not an object")
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "thinking":
                thoughts.append(str(block.get("thinking", "")))
        usage = data.get("usage") or {}
        return ModelOutput(
            text="".join(texts).strip(),
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            reasoning="\n".join(thoughts) or None,
            stop_reason=data.get("stop_reason"),
        )
