"""Loaded at start-up by the Inspect processes the tests run (PYTHONPATH): no network, and a note of any try.

Any connection to, or name look-up of, a host other than this machine raises OSError and is appended to
the file $PLAYBENCH_NETGUARD names, which the test then asserts is absent.
"""

import os
import socket

_LOCAL = {"localhost", "127.0.0.1", "::1", "0.0.0.0", ""}


def _refuse(what: str) -> None:
    path = os.environ.get("PLAYBENCH_NETGUARD")
    if path:
        with open(path, "a") as fh:
            fh.write(what + "\n")
    raise OSError(f"network access refused in tests: {what}")


def _host(address: object) -> str:
    return str(address[0]) if isinstance(address, tuple) and address else ""


def install() -> None:
    connect, connect_ex, getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in _LOCAL:
            _refuse(f"connect {address!r}")
        return connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in _LOCAL:
            _refuse(f"connect {address!r}")
        return connect_ex(self, address)  # type: ignore[arg-type]

    def guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        name = host.decode() if isinstance(host, bytes) else str(host or "")
        if name not in _LOCAL:
            _refuse(f"resolve {name}")
        return getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]

    socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = guarded_getaddrinfo  # type: ignore[assignment]


if os.environ.get("PLAYBENCH_NETGUARD"):
    install()
