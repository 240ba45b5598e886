"""``mock/NAME``: an offline, deterministic provider for tests and demos."""

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.models.mockbrain import answer, approx_tokens
from playbench.models.providers.base import Provider
from playbench.models.types import GenerateConfig, Message, ModelOutput


def tagged(messages: list[Message]) -> list[tuple[str, str]]:
    """Each message as (role, text), its images as ``[img:DIGEST]`` tags: what the mock provider reads and counts."""
    return [(m.role, m.content + "".join(f"[img:{i.digest}]" for i in m.images)) for m in messages]


def prompt_tokens(messages: list[Message]) -> int:
    """The mock provider's estimate of a request's tokens: each message's text with its images' tags."""
    return sum(approx_tokens(content) for _, content in tagged(messages))


def load_script(path: str) -> list[Any]:
    """A script: a JSON list of answers (replayed in call order) or of ``{"match", "answer"}`` rules."""
    file = Path(path)
    if not file.is_file():
        raise PlaybenchError(f"mock script {path} not found")
    try:
        data = json.loads(file.read_text())
    except ValueError as exc:
        raise PlaybenchError(f"mock script {path} is not JSON: {exc}") from None
    if not isinstance(data, list) or not data:
        raise PlaybenchError(f"mock script {path} must be a non-empty JSON list")
    for item in data:
        ok = isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("match"), str)
                                       and isinstance(item.get("answer"), str))
        if not ok:
            raise PlaybenchError(f"mock script {path}: items must be strings or {{\"match\", \"answer\"}} objects")
    return data


class MockProvider(Provider):
    """Answers from the prompt's numbered action list (seeded hash), or from a script."""

    name = "mock"
    uses_http = False

    def __init__(self, model: str, config: GenerateConfig) -> None:
        super().__init__(model, "mock://", None)
        self.script = load_script(config.script) if config.script else None
        self._calls = 0

    def _scripted(self, messages: list[Message]) -> str | None:
        if not self.script:
            return None
        if all(isinstance(item, str) for item in self.script):
            text = str(self.script[self._calls % len(self.script)])
            self._calls += 1
            return text
        last = next((m.content for m in reversed(messages) if m.role == "user"), "")
        for item in self.script:
            if isinstance(item, dict) and re.search(item["match"], last):
                return str(item["answer"])
        return None

    async def generate(self, client: Any, messages: list[Message],
                       config: GenerateConfig) -> ModelOutput:
        """A deterministic answer (never fails)."""
        if config.latency:
            await asyncio.sleep(config.latency)
        contents = tagged(messages)
        text = self._scripted(messages)
        if text is None:
            salt = json.dumps(config.wire(), sort_keys=True)
            text = answer(self.model, contents, salt, config.invalid_rate)
        return ModelOutput(text=text.strip(), input_tokens=sum(approx_tokens(c) for _, c in contents),
                           output_tokens=approx_tokens(text))
