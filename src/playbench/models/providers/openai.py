"""OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, gateways)."""

from typing import Any

from playbench.models.providers.base import (
    Provider,
    as_object,
    count,
    label,
    malformed,
    optional_object,
    optional_text,
    reports_tokens,
)
from playbench.models.types import GenerateConfig, Message, ModelOutput


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in the chat-completions format; images become ``image_url`` data-URL parts.

    A message with images, or marked ``parts``, goes as a list of parts (its text, then each image), as
    BALROG's client sends every message; any other as the plain string.
    """
    out = []
    for m in messages:
        if m.images or m.parts:
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
    key_in_authorization = True

    def body(self, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """The request body."""
        body: dict[str, Any] = {"model": self.model, "messages": wire_messages(messages)}
        body.update(config.wire())  # the typed settings keep their names on this API
        body.update(config.extras())
        return body

    def request(self, messages: list[Message], config: GenerateConfig) -> tuple[str, dict[str, str], dict[str, Any]]:
        """(URL, headers, body): the key as a bearer token, else the URL's basic auth, else nothing."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else self.auth_headers()
        return f"{self.base_url}/chat/completions", headers, self.body(messages, config)

    def parse(self, data: Any) -> ModelOutput:
        """``choices[0].message`` (content a string or null) and ``usage``."""
        data = as_object(data, "the answer")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise malformed("no choices in the answer")
        choice = as_object(choices[0], "choices[0]")
        message = as_object(choice.get("message"), "choices[0].message")
        content = optional_text(message.get("content"), "message content")
        usage = optional_object(data.get("usage"), "usage")
        # prompt_tokens counts every prompt token; the cached ones are part of it (None: not reported)
        details = optional_object(usage.get("prompt_tokens_details"), "usage.prompt_tokens_details")
        cached = details.get("cached_tokens")
        reasoning = label(message.get("reasoning_content")) or label(message.get("reasoning"))
        return ModelOutput(
            text=(content or "").strip(),
            input_tokens=count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
            output_tokens=count(usage.get("completion_tokens"), "usage.completion_tokens"),
            reasoning=reasoning or None,
            stop_reason=label(choice.get("finish_reason")),
            cache_read_tokens=None if cached is None else count(cached, "usage.prompt_tokens_details.cached_tokens"),
            tokens_reported=reports_tokens(usage, "prompt_tokens", "completion_tokens"),
        )
