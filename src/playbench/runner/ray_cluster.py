"""Joining a Ray cluster for ``--executor ray`` (imported only then: the local runner never imports Ray).

The address is ``--ray-address``, else ``$RAY_ADDRESS``, else Ray's own default (a cluster started with
``ray start`` on this machine, or a new local one). A cluster that cannot be reached is one
``PlaybenchError`` line, found by a quick TCP probe first: Ray itself would keep retrying for minutes.
"""

import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError

#: seconds to wait for the head node's port before calling the cluster unreachable
PROBE_TIMEOUT = 5.0

#: what ``pip`` installs for ``--executor ray``
INSTALL = "pip install 'playbench[ray]'"


@dataclass
class Cluster:
    """A joined cluster: how many workers (one per CPU) it offers, and whether we started Ray here."""

    address: str | None
    cpus: int
    started_here: bool

    def leave(self) -> None:
        """Disconnect from the cluster if this call connected (a caller's own ``ray.init`` is left alone)."""
        if self.started_here:
            import ray

            ray.shutdown()


def import_ray() -> Any:
    """The ``ray`` module, or a PlaybenchError saying how to install it."""
    try:
        import ray
    except ModuleNotFoundError:
        raise PlaybenchError(f"--executor ray needs Ray, which is not installed: {INSTALL}") from None
    return ray


def probe(address: str) -> None:
    """Refuse (one line) a ``host:port`` or ``ray://host:port`` address whose port does not answer."""
    bare = address.removeprefix("ray://")
    host, sep, port = bare.rpartition(":")
    if not sep or not port.isdigit():
        raise PlaybenchError(f"--ray-address expects host:port (or ray://host:port, auto), got {address!r}")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=PROBE_TIMEOUT):
            pass
    except OSError as exc:
        raise PlaybenchError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


def _starts_new(address: str | None) -> bool:
    """Whether ``ray.init(address=address)`` would start a new local cluster (Ray's own address lookup)."""
    if address == "local":
        return True
    if address is not None:
        return False
    try:
        from ray._private.services import canonicalize_bootstrap_address

        return canonicalize_bootstrap_address(None) is None  # type: ignore[arg-type]  # (None: Ray's own default)
    except Exception:  # noqa: BLE001  (Ray's private lookup moved or failed: say nothing rather than wrong)
        return False


def _private_token() -> None:
    """Give a new local cluster a token for this process only, unless the user chose how Ray authenticates.

    Ray (2.5x+) turns on token authentication for a cluster ``ray.init`` starts and, finding no token,
    writes one to ``~/.ray/auth_token``; a later ``ray start --head`` then finds that file and requires the
    token from every worker, whose ``ray start --address`` fails ("token missing or incorrect"). A token in
    the environment protects the local cluster the same way and leaves nothing behind.
    """
    chosen = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
    if any(os.environ.get(name) for name in chosen) or (Path.home() / ".ray" / "auth_token").exists():
        return
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)


def named_address(address: str | None) -> str:
    """Where ``connect(address)`` goes, in words (for the line an ``eval`` prints before joining)."""
    from_env = os.environ.get("RAY_ADDRESS") or None
    if address is None and from_env is not None:
        return f"the Ray cluster at {from_env} (from $RAY_ADDRESS)"
    address = address or from_env
    if address is None or address in ("auto", "local"):
        return "a Ray cluster on this machine"
    return f"the Ray cluster at {address}"


def connect(address: str | None, announce: Callable[[str], None] | None = None) -> Cluster:
    """Join the cluster at ``address`` (default: ``$RAY_ADDRESS``, else Ray's default) and count its CPUs.

    ``announce`` is told where the episodes go once the address answers, before joining, and, when a new
    local cluster starts, that it starts and how long it took.
    """
    ray = import_ray()
    where = named_address(address) if not ray.is_initialized() else "the Ray cluster this process already joined"
    address = address or os.environ.get("RAY_ADDRESS") or None
    started_here = False
    if not ray.is_initialized():
        if address and address not in ("auto", "local"):
            probe(address)
    if announce is not None:
        announce(f"Ray: episodes are played on {where}")
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
        if address is None or address == "local":
            kwargs["include_dashboard"] = False
        new = _starts_new(address)
        if new:
            _private_token()
            if announce is not None:
                announce("starting a local Ray cluster (about a minute the first time)…")
        started = time.perf_counter()
        try:
            ray.init(address=address, **kwargs)
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError ... for a bad cluster
            where = address or "the local machine"
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise PlaybenchError(f"cannot join the Ray cluster at {where}: {reason}") from None
        started_here = True
        if new and announce is not None:
            announce(f"local Ray cluster started in {time.perf_counter() - started:.0f} s")
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if cpus < 1:
        cluster = Cluster(address, cpus, started_here)
        cluster.leave()
        raise PlaybenchError(f"the Ray cluster at {address or 'the local machine'} has no CPU to run episodes on")
    return Cluster(address, cpus, started_here)
