"""On-disk response cache: identical requests (model, messages, settings) are answered from disk."""

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import platformdirs

from playbench.models.types import GenerateConfig, Message, ModelOutput


def default_cache_dir() -> Path:
    """``$PLAYBENCH_CACHE_DIR`` or the user cache directory."""
    env = os.environ.get("PLAYBENCH_CACHE_DIR")
    return Path(env) if env else Path(platformdirs.user_cache_dir("playbench")) / "model-cache"


def cache_key(model: str, messages: list[Message], config: GenerateConfig) -> str:
    """SHA-256 of the canonical request (images by content hash)."""
    blob = json.dumps(
        {"model": model, "messages": [m.record() for m in messages], "settings": config.wire()},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    """One JSON file per request under ``root/ab/<key>.json``, written atomically."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root else default_cache_dir()

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelOutput | None:
        """The cached answer, or ``None`` (a damaged entry counts as missing)."""
        try:
            data: dict[str, Any] = json.loads(self._file(key).read_text())
            return ModelOutput(text=data["text"], input_tokens=int(data["input_tokens"]),
                               output_tokens=int(data["output_tokens"]), reasoning=data.get("reasoning"),
                               cached=True, attempts=0, stop_reason=data.get("stop_reason"))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, output: ModelOutput) -> None:
        """Store a well-formed answer."""
        file = self._file(key)
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_name(f"{file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"text": output.text, "input_tokens": output.input_tokens,
                                   "output_tokens": output.output_tokens, "reasoning": output.reasoning,
                                   "stop_reason": output.stop_reason}))
        os.replace(tmp, file)
