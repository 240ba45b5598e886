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

A shard may come from anyone, so reading one is bounded: a chunk holds less than ``CHUNK_BYTES`` of
step lines plus one more line of at most ``MAX_STEP_BYTES``, so no chunk this code writes inflates past
``max_inflated()`` bytes (its payload, compressed, is never larger either). A chunk claiming more, or
inflating to more (a "zip bomb"), is damaged: reading stops there, and that episode's steps are reported
as not readable while the rest of the run is read as usual. Reading a chunk holds at most that many bytes.
"""

import os
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from playbench.core.records import StepRecord
from playbench.log.durable import StoreWriteError, describe
from playbench.log.steps import StepDecoder, StepEncoder

#: raw (uncompressed) bytes an episode buffers before it writes a chunk
CHUNK_BYTES = 64 * 1024
#: the longest step line a shard takes (a step with a longer one stops the run with a StoreWriteError)
MAX_STEP_BYTES = 32 * 1024 * 1024
_HEADER = struct.Struct("<3sBQII")
_MAGIC, _FIRST, _LAST = b"PBT", 1, 2
_PIECE = 1 << 20  # bytes inflated at a time
_LEVEL = 1  # zlib level: 1 already shrinks step lines ~15x; higher levels cost more CPU for a few %


def max_inflated() -> int:
    """The most bytes a chunk's payload holds once inflated: less than ``CHUNK_BYTES`` plus one step line."""
    return CHUNK_BYTES + MAX_STEP_BYTES


def max_payload() -> int:
    """The most bytes a chunk's compressed payload takes (deflate's worst case for ``max_inflated`` bytes)."""
    raw = max_inflated()
    return raw + raw // 1000 + 1024


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
        """Encode a step; write a chunk once enough are buffered (StoreWriteError for a step too long to keep)."""
        line = self._encoder.line(step)
        if len(line) > MAX_STEP_BYTES:
            raise StoreWriteError(f"step {step.step} of {self._name} takes {len(line)} bytes, more than the "
                                  f"{MAX_STEP_BYTES} a trajectory shard keeps of one step")
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


def _inflate(payload: bytes, tag: int) -> bytes:
    """A chunk's step lines; ShardCorrupt if they do not decompress or would take more than a chunk holds.

    Inflated a piece at a time, so a chunk that inflates past the bound is caught holding little more than it.
    """
    limit = max_inflated()
    inflater = zlib.decompressobj()
    pieces: list[bytes] = []
    size = 0
    pending = payload
    try:
        while True:
            piece = inflater.decompress(pending, _PIECE)
            size += len(piece)
            if size > limit:
                raise ShardCorrupt(f"a chunk of episode {tag >> 16} is damaged: it inflates past the {limit} "
                                   "bytes a chunk holds")
            pieces.append(piece)
            pending = inflater.unconsumed_tail
            if inflater.eof or not (piece or pending):
                break
    except zlib.error as exc:
        raise ShardCorrupt(f"a chunk of episode {tag >> 16} does not decompress ({exc})") from None
    if not inflater.eof:
        raise ShardCorrupt(f"a chunk of episode {tag >> 16} does not decompress (it ends too early)")
    return b"".join(pieces)


def _chunks(fh: IO[bytes], check: bool) -> Iterator[tuple[int, int, int, int]]:
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
            if _crc(fh, length) != crc:
                return
        else:
            fh.seek(end)
        yield offset, kind, tag, length
        offset = end


def _crc(fh: IO[bytes], length: int) -> int:
    """The CRC-32 of the next ``length`` bytes, read a piece at a time (a chunk's length is untrusted)."""
    crc = 0
    while length > 0:
        piece = fh.read(min(length, 1 << 20))
        if not piece:
            break
        crc = zlib.crc32(piece, crc)
        length -= len(piece)
    return crc


def repair(fd: int) -> int:
    """Cut a torn or damaged tail off the shard open (for reading and writing) as ``fd``.

    Such a tail is left by a kill or a power loss, after everything recorded. Returns its new size.
    """
    with os.fdopen(fd, "r+b", closefd=False) as fh:
        end = 0
        for offset, _, _, length in _chunks(fh, check=True):
            end = offset + _HEADER.size + length
        if end != os.fstat(fh.fileno()).st_size:
            fh.truncate(end)
            os.fsync(fh.fileno())
        return end


class ShardIndex:
    """Where each episode's recorded steps start in a shard: one scan of its chunk headers.

    ``open_shard`` opens the shard for reading (the run's reader opens it inside the run, never through
    a link), once for the scan and once per episode read.
    """

    def __init__(self, open_shard: Callable[[], IO[bytes]]) -> None:
        self._open = open_shard
        self._start: dict[int, int] = {}
        started: dict[int, int] = {}
        with open_shard() as fh:
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
        with self._open() as fh:
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
                if length > max_payload():
                    raise ShardCorrupt(f"a chunk of episode {tag >> 16} is damaged: it claims {length} bytes, "
                                       "more than a chunk holds")
                payload = fh.read(length)
                if len(payload) < length or zlib.crc32(payload) != crc:
                    raise ShardCorrupt(f"a chunk of episode {tag >> 16} is damaged")
                for line in _inflate(payload, tag).split(b"\n"):
                    if line:
                        yield decoder.step(line)
                if kind & _LAST:
                    return
