"""Reading a user's data file (MANGO's mazes, GRASP's grids, Boxoban's levels): every fault names the file."""

from pathlib import Path

from playbench.core.errors import PlaybenchError


def read_data_text(path: Path, empty: str | None = "empty file") -> str:
    """The file's UTF-8 text, or a one-line PlaybenchError naming it (and the line, for bytes that are not UTF-8).

    A missing or unreadable file is refused, and so is a blank one with the reason ``empty`` (None: a blank
    file is accepted).
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PlaybenchError(f"{path}: file not found") from None
    except OSError as exc:
        raise PlaybenchError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise PlaybenchError(f"{path}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    if empty is not None and not text.strip():
        raise PlaybenchError(f"{path}: {empty}")
    return text
