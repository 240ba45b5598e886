"""Seeds derived by hashing, so they depend only on their inputs (not order, workers or machine)."""

import hashlib


def derive_seed(*parts: object) -> int:
    """Return a 32-bit seed from the SHA-256 of the parts (32 bits suit every engine's seeding)."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def episode_seed(base_seed: int, task_id: str, index: int) -> int:
    """The seed of episode ``index`` of ``task_id`` in a run with ``base_seed``."""
    return derive_seed("episode", base_seed, task_id, index)
