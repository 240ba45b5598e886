"""Inspect offline: the tokenizer file Inspect's token estimates load, from the copy playbench already has.

Inspect estimates tokens with tiktoken's ``o200k_base`` where a provider reports none (its ``mockllm``
provider does so for every answer), and tiktoken downloads that file on first use. ``bpe-openai`` (a
playbench dependency) ships the same file; ``prime_tiktoken_cache`` puts it where tiktoken looks
(``TIKTOKEN_CACHE_DIR``), checked against the hash tiktoken expects, so no download is attempted.
"""

import gzip
import hashlib
import os
from importlib.resources import files
from pathlib import Path

from playbench.core.errors import PlaybenchError

_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"  # tiktoken's expected_hash


def prime_tiktoken_cache(cache_dir: str | Path, set_env: bool = True) -> Path:
    """Write ``o200k_base`` into ``cache_dir`` under tiktoken's cache name; with ``set_env``, point tiktoken there."""
    data = gzip.decompress((files("bpe_openai.data") / "o200k_base.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != _SHA256:
        raise PlaybenchError("bpe-openai's o200k_base differs from the file tiktoken expects; not used")
    folder = Path(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / hashlib.sha1(_URL.encode()).hexdigest()  # tiktoken's cache key
    if not target.exists():
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(target)
    if set_env:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    return target
