"""OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, gateways)."""

from typing import Any

from playbench.models.providers.base import Provider, malformed, post_json
from playbench.models.types import GenerateConfig, Message, ModelOutput


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in the chat-completions format; images become ``image_url`` data-URL parts."""
    out = []
    for m in messages:
        if m.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}]
            parts += [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{img.b64}"}}
                      for img in m.images]
            out.append({"role": m.role, "content": parts})
        else:
            out.append(m.record())  # the same {"role", "content"} dict, cached on the message
    return out


class OpenAIProvider(Provider):
    """``POST {base}/chat/completions`` with a bearer key (when one is set)."""

    name = "openai"

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        body: dict[str, Any] = {"model": self.model, "messages": wire_messages(messages)}
        body.update(config.wire())
        return body

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """One attempt."""
        assert client is not None
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = await post_json(client, f"{self.base_url}/chat/completions", headers, self.body(messages, config))
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise malformed("no choices[0].message in the answer") from None
        content = message.get("content") if isinstance(message, dict) else None
        if content is not None and not isinstance(content, str):
            raise malformed("message content is not a string")
        usage = data.get("usage") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        return ModelOutput(
            text=(content or "").strip(),
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            reasoning=reasoning if isinstance(reasoning, str) else None,
            stop_reason=choice.get("finish_reason"),
        )
