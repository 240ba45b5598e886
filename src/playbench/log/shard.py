"""Trajectory shards: the steps of a task's episodes, appended to one file per task.

A shard is a sequence of chunks. A chunk is a 20-byte header (``PBT`` and a kind byte: bit 1 marks an
episode's first chunk, bit 2 its last; the episode's tag; the payload's length and CRC-32) and a
zlib-compressed payload of step lines (``playbench.log.steps``). An episode's tag packs its index and its
attempt (how many records of that episode the run held when it started), so a record names its steps
``<shard>#<index>`` (``#<index>.<attempt>`` for a re-run): the same name whatever the concurrency, the
order episodes ended in, or the kills and resumes on the way. Each episode buffers its encoded steps up
to ``CHUNK_BYTES`` and then writes them as a chunk (its memory stays flat however long it runs); its last
chunk is written when it ends. Chunks of episodes played at the same time interleave.

A reader scans the chunk headers once (``ShardIndex``) and takes, for each tag, the last complete run of
chunks (a first chunk to a last one): an episode cut short by a kill left an incomplete or unrecorded
run before the one that was recorded. Durability is the store's business: a chunk is one ``write`` (a
process killed mid-write leaves at most a torn chunk at the end), the store fsyncs a shard before it
appends the line of any episode whose chunks it holds, and ``repair`` cuts a torn tail off before a
resumed run appends to the shard again.
"""

import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from playbench.core.records import StepRecord
from playbench.log.durable import StoreWriteError, describe
from playbench.log.steps import StepDecoder, StepEncoder

#: raw (uncompressed) bytes an episode buffers before it writes a chunk
CHUNK_BYTES = 64 * 1024
_HEADER = struct.Struct("<3sBQII")
_MAGIC, _FIRST, _LAST = b"PBT", 1, 2
_LEVEL = 1  # zlib level: 1 already shrinks step lines ~15x; higher levels cost more CPU for a few %


class ShardFile:
    """One shard open for appending (this process's writing session owns it)."""

    def __init__(self, path: Path, fd: int, size: int) -> None:
        self.path = path
        self._fd = fd
        self.size = size
        self.dirty = False  # written to since its last fsync
        self._broken: str | None = None  # why a write failed: the file is never appended to again

    def append(self, data: bytes) -> int:
        """Write ``data`` at the end in one call; returns the offset it starts at."""
        if self._broken is not None:
            raise StoreWriteError(self._broken)
        offset = self.size
        try:
            written = os.write(self._fd, data)
            while written < len(data):  # a short write (rare: a signal, a nearly full disk)
                written += os.write(self._fd, data[written:])
        except OSError as exc:
            self._broken = describe(exc, self.path)  # whatever part was written is a torn chunk
            raise StoreWriteError(self._broken) from None
        self.size += len(data)
        self.dirty = True
        return offset

    def sync(self) -> None:
        """Fsync the shard (the caller clears ``dirty`` before, so later writes mark it again)."""
        try:
            os.fsync(self._fd)
        except OSError as exc:
            raise StoreWriteError(describe(exc, self.path)) from None

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)


def episode_tag(index: int, attempt: int) -> int:
    """The tag of an episode's chunks: its index and attempt packed in one number."""
    return (index << 16) | min(attempt, 0xFFFF)


def tag_name(index: int, attempt: int) -> str:
    """The tag as a record writes it after ``#``."""
    return f"{index}" if attempt == 0 else f"{index}.{attempt}"


def parse_tag(text: str) -> int | None:
    """The tag a record's ``#...`` names, or None if it names none."""
    index, _, attempt = text.partition(".")
    if not index.isdigit() or (attempt and not attempt.isdigit()):
        return None
    return episode_tag(int(index), int(attempt or 0))


class EpisodeSteps:
    """The steps of one episode on their way into a shard: ``add`` each step, ``finish`` at the end."""

    def __init__(self, shard: ShardFile, relative: str, index: int, attempt: int) -> None:
        self._shard = shard
        self._name = f"{relative}#{tag_name(index, attempt)}"
        self._tag = episode_tag(index, attempt)
        self._encoder = StepEncoder()
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._first = True
        self.count = 0

    def add(self, step: StepRecord) -> None:
        """Encode a step; write a chunk once enough are buffered."""
        line = self._encoder.line(step)
        self._buffer.append(line)
        self._buffered += len(line)
        self.count += 1
        if self._buffered >= CHUNK_BYTES:
            self._write(last=False)

    def finish(self) -> str | None:
        """Write the last chunk; returns what the episode's record names (None when it had no step)."""
        if not self.count:
            return None
        self._write(last=True)
        return self._name

    def _write(self, last: bool) -> None:
        payload = _compress(b"".join(self._buffer))
        self._buffer, self._buffered = [], 0
        kind = (_FIRST if self._first else 0) | (_LAST if last else 0)
        self._first = False
        self._shard.append(_HEADER.pack(_MAGIC, kind, self._tag, len(payload), zlib.crc32(payload)) + payload)


def _compress(data: bytes) -> bytes:
    """Compress with zlib at level 1 and a window no larger than the data.

    The default 32 KiB window and full hash table cost ~0.15 ms to set up, more than compressing a short
    episode takes.
    """
    wbits = max(9, min(15, (len(data) - 1).bit_length()))
    compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, wbits, max(1, min(8, wbits - 7)))
    return compressor.compress(data) + compressor.flush()


class ShardCorrupt(ValueError):
    """An episode's chunks cannot be read back whole."""


def _chunks(fh: BinaryIO, check: bool) -> Iterator[tuple[int, int, int, int]]:
    """(offset, kind, tag, length) of each whole chunk from the file's start.

    Up to the first that is not (torn, or with ``check`` damaged).
    """
    offset = 0
    size = os.fstat(fh.fileno()).st_size
    fh.seek(0)
    while offset + _HEADER.size <= size:
        magic, kind, tag, length, crc = _HEADER.unpack(fh.read(_HEADER.size))
        end = offset + _HEADER.size + length
        if magic != _MAGIC or end > size:
            return
        if check:
            if zlib.crc32(fh.read(length)) != crc:
                return
        else:
            fh.seek(end)
        yield offset, kind, tag, length
        offset = end


def repair(file: Path) -> int:
    """Cut a torn or damaged tail off a shard.

    Such a tail is left by a kill or a power loss, after everything recorded. Returns its new size.
    """
    with open(file, "r+b") as fh:
        end = 0
        for offset, _, _, length in _chunks(fh, check=True):
            end = offset + _HEADER.size + length
        if end != os.fstat(fh.fileno()).st_size:
            fh.truncate(end)
            os.fsync(fh.fileno())
        return end


class ShardIndex:
    """Where each episode's recorded steps start in a shard: one scan of its chunk headers."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._start: dict[int, int] = {}
        started: dict[int, int] = {}
        with open(file, "rb") as fh:
            for offset, kind, tag, _ in _chunks(fh, check=False):
                if kind & _FIRST:
                    started[tag] = offset
                if kind & _LAST and tag in started:
                    self._start[tag] = started.pop(tag)

    def has(self, tag: int) -> bool:
        """Whether the shard held complete steps for ``tag`` when it was indexed."""
        return tag in self._start

    def read(self, tag: int) -> Iterator[StepRecord]:
        """The steps of the episode tagged ``tag``, chunk by chunk.

        ShardCorrupt if they are not all there and intact.
        """
        start = self._start.get(tag)
        if start is None:
            raise ShardCorrupt(f"no complete steps for episode {tag >> 16} (attempt {tag & 0xFFFF}) in the shard")
        decoder = StepDecoder()
        with open(self.file, "rb") as fh:
            fh.seek(start)
            while True:
                header = fh.read(_HEADER.size)
                if len(header) < _HEADER.size:
                    raise ShardCorrupt(f"the steps of episode {tag >> 16} end before their last chunk")
                magic, kind, chunk_tag, length, crc = _HEADER.unpack(header)
                if magic != _MAGIC:
                    raise ShardCorrupt(f"no chunk at offset {fh.tell() - _HEADER.size}")
                if chunk_tag != tag:
                    fh.seek(length, os.SEEK_CUR)
                    continue
                payload = fh.read(length)
                if len(payload) < length or zlib.crc32(payload) != crc:
                    raise ShardCorrupt(f"a chunk of episode {tag >> 16} is damaged")
                try:
                    lines = zlib.decompress(payload).split(b"\n")
                except zlib.error as exc:
                    raise ShardCorrupt(f"a chunk of episode {tag >> 16} does not decompress ({exc})") from None
                for line in lines:
                    if line:
                        yield decoder.step(line)
                if kind & _LAST:
                    return
