"""A real local Ray cluster for tests and benchmarks: a head and worker nodes started with ``ray start``.

Every node listens on loopback, offers ``cpus`` CPUs, runs without the dashboard and keeps its files in
its own temporary directory. The processes are found for ``stop`` (and ``worker_pids``) by a marker in
their environment, so only this cluster's processes are ever signalled, never another Ray on the machine.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
MARKER = "PLAYBENCH_TEST_RAY_CLUSTER"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalRayCluster:
    """``ray start --head`` plus ``nodes - 1`` workers on 127.0.0.1; ``address`` is what drivers join."""

    def __init__(self, nodes: int = 2, cpus: int = 1, env: dict[str, str] | None = None) -> None:
        self.nodes, self.cpus = nodes, cpus
        self.temp = Path(tempfile.mkdtemp(prefix="pbray"))  # short: Ray's socket paths must stay < 108 chars
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        src = str(Path(__file__).resolve().parents[1] / "src")
        self.env = {**os.environ, **(env or {}), MARKER: str(self.temp), "RAY_USAGE_STATS_ENABLED": "0",
                    "PYTHONPATH": os.pathsep.join([src, *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.env.pop("RAY_ADDRESS", None)

    def _start(self, *args: str) -> None:
        common = ["--node-ip-address=127.0.0.1", f"--num-cpus={self.cpus}", "--object-store-memory=80000000",
                  f"--dashboard-agent-listen-port={free_port()}", "--disable-usage-stats"]
        res = subprocess.run([RAY, "start", *args, *common], env=self.env, capture_output=True, text=True, timeout=180)
        if res.returncode != 0:
            self.stop()
            raise RuntimeError(f"ray start failed: {res.stderr[-2000:]}")

    def start(self) -> "LocalRayCluster":
        self._start("--head", f"--port={self.port}", "--include-dashboard=false", f"--temp-dir={self.temp}")
        for _ in range(self.nodes - 1):
            self.add_node()
        return self

    def add_node(self) -> None:
        self._start(f"--address={self.address}")

    def pids(self) -> list[int]:
        """Every live process of this cluster: the marker in its environment, or a file open in its directory
        (Ray starts its per-node agents with a trimmed environment, but they log into the cluster's directory).
        """
        mark = f"{MARKER}={self.temp}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if mark in (entry / "environ").read_bytes().split(b"\0") or self._uses_dir(entry):
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    def _uses_dir(self, proc: Path) -> bool:
        prefix = str(self.temp) + "/"
        try:
            return any(os.readlink(fd).startswith(prefix) for fd in (proc / "fd").iterdir())
        except OSError:
            return False

    def worker_pids(self, title: str = "ray::EpisodeWorker") -> list[int]:
        """This cluster's processes whose title starts with ``title`` (Ray names actor processes so)."""
        out = []
        for pid in self.pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if cmd.startswith(title):
                out.append(pid)
        return out

    def stop(self) -> None:
        """Signal this cluster's processes (TERM, then KILL what is left) and remove its directory."""
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
            for pid in self.pids():
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            deadline = time.monotonic() + wait
            while self.pids() and time.monotonic() < deadline:
                time.sleep(0.1)
        shutil.rmtree(self.temp, ignore_errors=True)

    def __enter__(self) -> "LocalRayCluster":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
