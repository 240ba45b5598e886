"""A run's journal of provider batches (``--batch``): what was submitted, so a resumed run collects it.

``RUN/batches.jsonl`` holds one JSON line per event, appended and fsynced before the run goes on:
``{"kind": "submitted", "api", "batch", "requests", "items": [[custom_id, digest], ...]}`` once the
provider has accepted a batch, ``{"kind": "ended", "batch", "status"}`` once its results were read. The
requests of each batch are kept beside it as ``RUN/batches/NNNNNN.jsonl`` (written atomically before the
batch is sent). Like every run file they are opened from the run's directory without following a link
(``log/confined.py``); a torn last line (a kill mid-write) is skipped, and a line that is not a journal
entry is refused in one line.
"""

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.log.confined import open_file, open_root
from playbench.log.durable import StoreWriteError, describe, write_atomic

#: the journal, relative to the run directory
BATCHES = "batches.jsonl"
#: the folder of the batches' request files
REQUESTS_DIR = "batches"


def requests_path(number: int) -> str:
    """Where the requests of the run's ``number``-th batch are kept, relative to the run directory."""
    return f"{REQUESTS_DIR}/{number:06d}.jsonl"


class BatchJournal:
    """Reads and appends ``RUN/batches.jsonl``; writes the request files. One per run writer."""

    def __init__(self, root: Path, shown: Path) -> None:
        self.root = root  # the run's resolved directory
        self.shown = shown  # the run's path as the user gave it (for messages)
        self._entries: list[dict[str, Any]] | None = None

    @contextlib.contextmanager
    def _folder(self) -> Iterator[int]:
        """The run's directory, open for one operation (a batch is a rare event)."""
        fd = open_root(self.root)
        try:
            yield fd
        finally:
            os.close(fd)

    def entries(self) -> list[dict[str, Any]]:
        """Every complete entry of the journal, in order (none when there is no journal yet)."""
        if self._entries is not None:
            return self._entries
        try:
            with self._folder() as root:
                fd = open_file(root, BATCHES, os.O_RDONLY, self.shown)
        except FileNotFoundError:
            self._entries = []
            return self._entries
        with os.fdopen(fd, "rb") as fh:
            content = fh.read()
        found = []
        for number, line in enumerate(content.split(b"\n")[:-1], 1):  # the last piece: empty, or a torn line
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: JSON nested past Python's stack
                entry = None
            if not _well_formed(entry):
                raise PlaybenchError(f"{self.shown / BATCHES} line {number} is not a batch journal entry; "
                                     "refusing to resume from it")
            found.append(entry)
        self._entries = found
        return found

    def save_requests(self, content: bytes) -> str:
        """Write the next batch's request file (atomically, fsynced); returns its name in the run."""
        name = requests_path(1 + sum(1 for e in self.entries() if e["kind"] == "submitted"))
        try:  # a file left by a batch that was never submitted (a kill before) is replaced
            with self._folder() as root:
                write_atomic(root, name, content, self.shown)
        except OSError as exc:
            raise StoreWriteError(describe(exc, self.shown)) from None
        return name

    def append(self, entry: dict[str, Any]) -> None:
        """Append one entry and fsync it before returning."""
        if not _well_formed(entry):
            raise ValueError(f"not a batch journal entry: {entry!r}")
        line = json.dumps(entry, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        try:
            with self._folder() as root:
                fd = open_file(root, BATCHES, os.O_RDWR | os.O_APPEND | os.O_CREAT, self.shown)
            try:
                _cut_torn_end(fd)
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreWriteError(describe(exc, self.shown)) from None
        self.entries().append(entry)


def _cut_torn_end(fd: int) -> None:
    """Drop a torn last line (a kill mid-append) so the next line starts on its own."""
    size = os.fstat(fd).st_size
    if not size:
        return
    if os.pread(fd, 1, size - 1) == b"\n":
        return
    start = size
    while start > 0:
        chunk = os.pread(fd, min(4096, start), max(0, start - 4096))
        at = chunk.rfind(b"\n")
        if at >= 0:
            start = start - len(chunk) + at + 1
            break
        start -= len(chunk)
    os.ftruncate(fd, start)


#: a batch id as providers write them: it goes into a URL path, so nothing else is taken from a run's file
_BATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


def _well_formed(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("batch"), str):
        return False
    if not _BATCH_ID.fullmatch(entry["batch"]):
        return False
    if entry.get("kind") == "ended":
        return isinstance(entry.get("status"), str)
    if entry.get("kind") != "submitted":
        return False
    items = entry.get("items")
    return (isinstance(entry.get("api"), str) and isinstance(entry.get("requests"), str)
            and isinstance(items, list)
            and all(isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i) for i in items))
