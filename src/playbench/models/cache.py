"""On-disk response cache: a cached run is the same run replayed.

An answer is keyed by everything that could make it differ: the model (provider and name), the server
(base URL without credentials), every generation setting, the messages (images by hash), and where the
call stands in the run (the episode's task, index and seed and the call's position in the episode). So two
episodes, or two calls of one episode, that ask the same thing at ``temperature=1`` keep their own samples,
whatever the concurrency, and one server's answers never stand in for another's.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

from playbench.core.errors import PlaybenchError
from playbench.models.providers.base import split_credentials
from playbench.models.types import GenerateConfig, Message, ModelOutput


def default_cache_dir() -> Path:
    """``$PLAYBENCH_CACHE_DIR`` or the user cache directory."""
    env = os.environ.get("PLAYBENCH_CACHE_DIR")
    return Path(env) if env else Path(platformdirs.user_cache_dir("playbench")) / "model-cache"


def cache_key(*, model: str, api: str, base_url: str, messages: list[Message], config: GenerateConfig,
              episode: dict[str, Any] | None) -> str:
    """SHA-256 of the canonical request.

    ``model`` is ``provider/name``, ``api`` the wire format, ``episode`` where the call stands
    (:meth:`playbench.core.ledger.EpisodeLedger.next_call`) or None outside an episode. A message sent as
    content parts (``Message.parts``) is keyed apart by its record's ``"parts": true``, present only when set,
    so the keys of all other requests are unchanged.
    """
    blob = json.dumps(
        {"model": model, "api": api, "base_url": split_credentials(base_url)[0], "settings": config.cache_identity(),
         "messages": [m.record() for m in messages], "episode": episode},
        sort_keys=True, ensure_ascii=True, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    """One JSON file per request under ``root/ab/<key>.json``, written atomically."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root else default_cache_dir()
        self.check_writable()

    def check_writable(self) -> None:
        """Refuse a cache folder that cannot be written (PlaybenchError), before any run or call; made if missing.

        Tried for real, by creating and deleting a file: permission bits do not stop root, a read-only
        mount does.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=self.root, prefix=".write-check-")
            os.close(fd)
            os.unlink(name)
        except OSError as exc:
            raise PlaybenchError(f"--cache: the answer cache {self.root} cannot be written ({exc.strerror or exc}); "
                                 "make it writable or point PLAYBENCH_CACHE_DIR at a folder that is") from None

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelOutput | None:
        """The cached answer, or ``None`` (a damaged entry counts as missing)."""
        try:
            data: dict[str, Any] = json.loads(self._file(key).read_text(encoding="utf-8"))
            text, reasoning, stop = data["text"], data.get("reasoning"), data.get("stop_reason")
            if not isinstance(text, str) or not all(v is None or isinstance(v, str) for v in (reasoning, stop)):
                return None
            return ModelOutput(text=text, input_tokens=int(data["input_tokens"]),
                               output_tokens=int(data["output_tokens"]), reasoning=reasoning,
                               cached=True, attempts=0, stop_reason=stop)
        except (OSError, ValueError, KeyError, TypeError, OverflowError, RecursionError):
            return None

    def put(self, key: str, output: ModelOutput) -> None:
        """Store a well-formed answer (raises OSError when the directory cannot be written)."""
        file = self._file(key)
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_name(f"{file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"text": output.text, "input_tokens": output.input_tokens,
                                   "output_tokens": output.output_tokens, "reasoning": output.reasoning,
                                   "stop_reason": output.stop_reason}), encoding="utf-8")
        os.replace(tmp, file)
