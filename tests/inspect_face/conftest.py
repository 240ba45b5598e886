"""Inspect offline: tiktoken's file from bpe-openai, logs in a temporary folder, and no network at all.

``offline`` (autouse) points tiktoken at a primed cache and Inspect's log folder at a temporary one, and
refuses every connection or name look-up beyond this machine, in this process (``netguard``) and in the
Inspect processes a test starts (``inspect_env``: its ``sitecustomize`` does the same and notes each try).
"""

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from playbench.inspect.offline import prime_tiktoken_cache  # noqa: E402

GUARD = Path(__file__).parent / "netguard"


@pytest.fixture(scope="session")
def tiktoken_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tiktoken")
    prime_tiktoken_cache(folder, set_env=False)
    return folder


@pytest.fixture(autouse=True)
def offline(tiktoken_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The tried network accesses file (must stay absent); the guard is on for the whole test."""
    import socket

    tried = tmp_path / "network-tries.txt"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tiktoken_dir))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))
    monkeypatch.setenv("PLAYBENCH_NETGUARD", str(tried))
    saved = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo
    spec = importlib.util.spec_from_file_location("playbench_netguard", GUARD / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    guard = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guard)  # installs the guard ($PLAYBENCH_NETGUARD is set)
    try:
        yield tried
    finally:
        socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = saved  # type: ignore[method-assign]
    assert not tried.exists(), f"network access was attempted: {tried.read_text()}"


@pytest.fixture
def inspect_env(offline: Path) -> dict[str, str]:
    """The environment of an ``inspect`` process: offline, its guard loaded by ``sitecustomize``."""
    path = os.pathsep.join([str(GUARD), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}
