"""A run's answers paid for under ``--cost-limit`` (``RUN/paid-answers.jsonl``): what a resume uses, not buys again.

One JSON line per answer, appended as it arrives (``models/budget.py``'s ``answer_entry``: the call's key,
the answer's text, its token counts, whether a batch answered it, what it cost). Written straight to the
file (not fsynced: a killed process loses nothing, a machine that dies may lose the last lines, whose
requests a resume then sends again). Like every run file it is opened from the run's directory without
following a link (``log/confined.py``); a torn last line (a kill mid-write) is skipped, and a line that is
not such an answer is refused in one line: a run folder may come from anyone.
"""

import json
import os
import re
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.log.confined import open_file, open_root
from playbench.log.durable import StoreWriteError, describe

#: the answers, relative to the run directory
PAID_ANSWERS = "paid-answers.jsonl"

_KEY = re.compile(r"[0-9a-f]{64}")
_COUNTS = ("input_tokens", "output_tokens", "cost_micro_usd")
_OPTIONAL_COUNTS = ("cache_read_tokens", "cache_write_tokens")
_OPTIONAL_TEXT = ("reasoning", "stop_reason")


class AnswerJournal:
    """Reads and appends ``RUN/paid-answers.jsonl``. One per run writer."""

    def __init__(self, root: Path, shown: Path) -> None:
        self.root = root  # the run's resolved directory
        self.shown = shown  # the run's path as the user gave it (for messages)
        self._entries: dict[str, dict[str, Any]] | None = None
        self._torn_checked = False

    def entries(self) -> dict[str, dict[str, Any]]:
        """Every complete answer kept, by key (none when there is no file yet)."""
        if self._entries is not None:
            return self._entries
        fd = open_root(self.root)
        try:
            try:
                file = open_file(fd, PAID_ANSWERS, os.O_RDONLY, self.shown)
            except FileNotFoundError:
                self._entries = {}
                return self._entries
        finally:
            os.close(fd)
        with os.fdopen(file, "rb") as fh:
            content = fh.read()
        found: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(content.split(b"\n")[:-1], 1):  # the last piece: empty, or a torn line
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                entry = None
            if not well_formed(entry):
                raise PlaybenchError(f"{self.shown / PAID_ANSWERS} line {number} is not a paid answer; "
                                     "refusing to resume from it")
            found[entry["key"]] = entry
        self._entries = found
        return found

    def find(self, key: str) -> dict[str, Any] | None:
        """The answer kept under ``key``, or None."""
        return self.entries().get(key)

    def add(self, entry: dict[str, Any]) -> None:
        """Append one answer (a torn last line left by a kill is cut first)."""
        if not well_formed(entry):
            raise ValueError("not a paid answer")
        line = json.dumps(entry, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        try:
            root = open_root(self.root)
            try:
                fd = open_file(root, PAID_ANSWERS, os.O_RDWR | os.O_APPEND | os.O_CREAT, self.shown)
            finally:
                os.close(root)
            try:
                if not self._torn_checked:
                    _cut_torn_end(fd)
                    self._torn_checked = True
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreWriteError(describe(exc, self.shown)) from None
        self.entries()[entry["key"]] = entry


def _cut_torn_end(fd: int) -> None:
    """Drop a torn last line (a kill mid-append) so the next line starts on its own."""
    size = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return
    content = os.pread(fd, size, 0)
    os.ftruncate(fd, content.rfind(b"\n") + 1)


def well_formed(entry: Any) -> bool:
    """Whether ``entry`` is a kept answer: a key, a text, counts that are whole numbers of at least 0."""
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or not _KEY.fullmatch(entry["key"]):
        return False
    if not isinstance(entry.get("text"), str) or not isinstance(entry.get("batch"), bool):
        return False
    if not isinstance(entry.get("tokens_reported", True), bool):
        return False
    counts = [entry.get(k) for k in _COUNTS] + [entry.get(k) for k in _OPTIONAL_COUNTS if entry.get(k) is not None]
    if not all(type(n) is int and n >= 0 for n in counts):
        return False
    return all(entry.get(k) is None or isinstance(entry.get(k), str) for k in _OPTIONAL_TEXT)
