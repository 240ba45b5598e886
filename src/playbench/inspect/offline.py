"""Inspect offline: the tokenizer file Inspect's token estimates load, from the copy playbench already has.

Inspect estimates tokens with tiktoken's ``o200k_base`` where a provider reports none (its ``mockllm``
provider does so for every answer), and tiktoken downloads that file on first use. ``bpe-openai`` (a
playbench dependency) ships the same file. When playbench's tasks load, ``prime_default_cache`` puts it in
tiktoken's default cache (``<temp dir>/data-gym-cache``), checked against the hash tiktoken expects, so no
download is attempted; a cache the user named (``TIKTOKEN_CACHE_DIR`` or ``DATA_GYM_CACHE_DIR``, even
empty: no caching) is left alone. ``prime_tiktoken_cache`` fills a folder of one's choosing.
"""

import gzip
import hashlib
import os
import tempfile
import uuid
from importlib.resources import files
from pathlib import Path

from playbench.core.errors import PlaybenchError

_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"  # tiktoken's expected_hash
#: the variables by which a user names tiktoken's cache (tiktoken reads them in this order)
USER_CACHE = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")


def _cache_file(folder: Path) -> Path:
    return folder / hashlib.sha1(_URL.encode()).hexdigest()  # tiktoken's cache key


def _holds_the_file(path: Path) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == _SHA256
    except OSError:
        return False


def prime_tiktoken_cache(cache_dir: str | Path, set_env: bool = True) -> Path:
    """Write ``o200k_base`` into ``cache_dir`` under tiktoken's cache name; with ``set_env``, point tiktoken there."""
    folder = Path(cache_dir)
    target = _cache_file(folder)
    if not _holds_the_file(target):  # absent, or not the file tiktoken checks for (it would download it again)
        data = gzip.decompress((files("bpe_openai.data") / "o200k_base.tiktoken.gz").read_bytes())
        if hashlib.sha256(data).hexdigest() != _SHA256:
            raise PlaybenchError("bpe-openai's o200k_base differs from the file tiktoken expects; not used")
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{target.name}.{uuid.uuid4().hex}.tmp"  # a name of its own: processes may prime at once
        tmp.write_bytes(data)
        tmp.replace(target)
    if set_env:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    return target


def prime_default_cache() -> Path | None:
    """Put ``o200k_base`` in tiktoken's default cache unless the user named one; None when nothing was primed.

    Never raises: a cache that cannot be written leaves tiktoken to its own download, as before.
    """
    if any(name in os.environ for name in USER_CACHE):
        return None
    try:
        return prime_tiktoken_cache(Path(tempfile.gettempdir()) / "data-gym-cache", set_env=False)
    except (OSError, ImportError, PlaybenchError):
        return None
