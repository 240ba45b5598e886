"""The official MANGO file layout (one folder per game, six files) and its exact serialisation (spec §2).

The readers are strict: a file that cannot be read, is not UTF-8, is empty, is not valid JSON, or holds a record
with a missing key, a wrong type or an out-of-range value is a PlaybenchError naming the file and the line.
Checks that need several files at once are in ``datacheck.py``.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from playbench.core.datafiles import read_data_text
from playbench.core.errors import PlaybenchError

#: A JSON object read from a file (an edge, a DF/RF skeleton, a path step, an answer record), checked before use.
JsonObject = dict[str, Any]
NEVER = 9999  # MANGO's sentinel for "never" (edges, paths, pairs)
SUFFIXES = ("walkthrough", "locations.json", "actions.json", "edges.json", "all2all.jsonl", "all_pairs.jsonl")
STEP_FIELDS = (
    "seen_in_forward",
    "seen_in_reversed",
    "edge_min_step",
    "seen_in_forward_answerable",
    "seen_in_reversed_answerable",
    "edge_min_step_answerable",
)
LABEL_FIELDS = ("min_step_forward", "min_step_total", "min_step_forward_answerable", "min_step_total_answerable")
#: The files ``open_game`` requires (the skeleton files can be rebuilt from them).
REQUIRED = ("walkthrough", "locations.json", "actions.json", "edges.json")
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\r\n]*")


def json_line(obj: Any) -> str:
    """One ``.jsonl`` line as the original wrote it: ``json.dumps`` defaults plus a newline."""
    return json.dumps(obj) + "\n"


def json_file_text(obj: Any) -> str:
    """A ``.json`` file as the original wrote it: 4-space indent, ASCII escapes, no trailing newline."""
    return json.dumps(obj, indent=4)


# -- reading -------------------------------------------------------------------------------------------


def fault(path: Path, line: int | None, what: str) -> PlaybenchError:
    """The one-line user error for a bad data file: ``path:line: what``."""
    return PlaybenchError(f"{path}:{line}: {what}" if line else f"{path}: {what}")


def show(value: Any, limit: int = 40) -> str:
    """A value quoted for an error message, on one line and cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_fault(path: Path, exc: json.JSONDecodeError, line_offset: int = 0) -> PlaybenchError:
    return fault(path, exc.lineno + line_offset, f"invalid JSON: {exc.msg} (column {exc.colno})")


def _skip_space(text: str, pos: int = 0) -> int:
    """The end of the whitespace at ``pos`` (``_SPACE`` matches everywhere, the empty string included)."""
    space = _SPACE.match(text, pos)
    assert space is not None
    return space.end()


def item_line(text: str, index: int) -> int:
    """The line on which element ``index`` of a valid JSON array text starts (for error messages)."""
    pos = _skip_space(text) + 1  # after the opening bracket
    for _ in range(index):
        _, pos = _DECODER.raw_decode(text, _skip_space(text, pos))
        pos = _skip_space(text, pos) + 1  # after the comma
    return text.count("\n", 0, _skip_space(text, pos)) + 1


def read_json_array(path: Path, check: Callable[[Any], None], what: str) -> list[Any]:
    """A ``.json`` file holding a non-empty array whose every element passes ``check`` (ValueError otherwise)."""
    text = read_data_text(path)
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _json_fault(path, exc) from None
    if not isinstance(items, list):
        raise fault(path, 1, f"expected a JSON array of {what}s, found {type(items).__name__}")
    if not items:
        raise fault(path, 1, f"no {what}s (empty array)")
    for i, item in enumerate(items):
        try:
            check(item)
        except ValueError as exc:
            raise fault(path, item_line(text, i), f"{what} {i}: {exc}") from None
    return items


def read_jsonl(path: Path, check: Callable[[JsonObject], None] | None = None) -> list[JsonObject]:
    """Every record of a JSON-lines file: each non-blank line must be a JSON object passing ``check``."""
    out = []
    for number, line in enumerate(read_data_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = as_object(json.loads(line))
            if check is not None:
                check(rec)
        except json.JSONDecodeError as exc:
            raise _json_fault(path, exc, number - 1) from None
        except ValueError as exc:
            raise fault(path, number, str(exc)) from None
        out.append(rec)
    return out


# -- record checks (raise ValueError with what is wrong) -----------------------------------------------------


def as_object(value: Any) -> JsonObject:
    """``value`` when it is a JSON object."""
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, found {type(value).__name__}")
    return value


def as_string(value: Any, what: str = "value", lower: bool = False) -> str:
    """A non-empty string (lower-case and trimmed when ``lower``: answers are compared that way)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} {show(value)} is not a non-empty string")
    if lower and value != value.strip().lower():
        raise ValueError(f"{what} {show(value)} is not lower-case and trimmed")
    return value


def as_step(value: Any, what: str) -> int:
    """A step number: an integer from 0 to 9999 (9999 = never)."""
    if type(value) is not int or not 0 <= value <= NEVER:
        raise ValueError(f"{what} is {show(value)}, expected an integer 0-{NEVER}")
    return value


def need(rec: JsonObject, key: str) -> Any:
    """``rec[key]``, or a ValueError naming the missing key."""
    if key not in rec:
        raise ValueError(f"missing key {key!r}")
    return rec[key]


def check_step_fields(rec: JsonObject) -> None:
    """The six step fields of an edge (or a path step) and their invariants (spec §2.3)."""
    fwd, rev, low, fwd_a, rev_a, low_a = (as_step(need(rec, k), repr(k)) for k in STEP_FIELDS)
    if low != min(fwd, rev) or low_a != min(fwd_a, rev_a):
        raise ValueError("'edge_min_step' or 'edge_min_step_answerable' is not the minimum of its two fields")
    for seen, answerable in ((fwd, fwd_a), (rev, rev_a)):
        if answerable < seen or (seen == NEVER) != (answerable == NEVER):
            raise ValueError("an answerable step is before its step, or only one of the pair is 9999")
    if low == NEVER:
        raise ValueError("edge never seen (both 'seen_in_forward' and 'seen_in_reversed' are 9999)")


def check_edge(rec: Any) -> None:
    """One ``edges.json`` object."""
    rec = as_object(rec)
    for key in ("src_node", "dst_node"):
        as_string(need(rec, key), repr(key), lower=True)
    as_string(need(rec, "action"), "'action'")
    check_step_fields(rec)


def check_df_record(rec: JsonObject) -> None:
    """One ``all2all.jsonl`` record on its own (paths against the map: ``datacheck``)."""
    for key in ("src_node", "dst_node"):
        as_string(need(rec, key), repr(key), lower=True)
    as_string(need(rec, "id"), "'id'")
    as_step(need(rec, "diff_shortest"), "'diff_shortest'")
    path = need(rec, "path_details")
    if not isinstance(path, list) or not path:
        raise ValueError(f"'path_details' is {show(path)}, expected a non-empty list of steps")
    for i, step in enumerate(path):
        try:
            step = as_object(step)
            for key in ("prev_node", "node"):
                as_string(need(step, key), repr(key), lower=True)
            as_string(need(step, "action"), "'action'")
            check_step_fields(step)
        except ValueError as exc:
            raise ValueError(f"path step {i}: {exc}") from None
    count = need(rec, "step_count")
    if type(count) is not int or count != len(path):
        raise ValueError(f"'step_count' is {show(count)}, the path has {len(path)} steps")
    for key in LABEL_FIELDS:
        as_step(need(rec, key), repr(key))


def check_rf_record(rec: JsonObject) -> None:
    """One ``all_pairs.jsonl`` record on its own (counts against ``all2all``: ``datacheck``)."""
    for key in ("src_node", "dst_node"):
        as_string(need(rec, key), repr(key), lower=True)
    as_string(need(rec, "id"), "'id'")
    paths = need(rec, "num_paths")
    if type(paths) is not int or paths < 0:
        raise ValueError(f"'num_paths' is {show(paths)}, expected a count")
    for key in LABEL_FIELDS:
        as_step(need(rec, key), repr(key))


def _names(lower: bool) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        as_string(value, "name", lower)

    return check


# -- one game ------------------------------------------------------------------------------------------


@dataclass
class GameFiles:
    """The six files of one game, read lazily from ``folder/<name>.<suffix>`` and checked as they are read."""

    folder: Path
    name: str

    def path(self, suffix: str) -> Path:
        """The path of one of the six files."""
        return self.folder / f"{self.name}.{suffix}"

    @cached_property
    def walkthrough_text(self) -> str:
        """The raw walkthrough text (its blocks are checked by ``datacheck``)."""
        return read_data_text(self.path("walkthrough"))

    @cached_property
    def locations(self) -> list[str]:
        """``locations.json`` in file order (the order is pasted into every prompt)."""
        return read_json_array(self.path("locations.json"), _names(lower=True), "location")

    @cached_property
    def actions(self) -> list[str]:
        """``actions.json`` in file order."""
        return read_json_array(self.path("actions.json"), _names(lower=False), "action")

    @cached_property
    def edges(self) -> list[JsonObject]:
        """``edges.json`` in file order."""
        return read_json_array(self.path("edges.json"), check_edge, "edge")

    @cached_property
    def all2all(self) -> list[JsonObject]:
        """The DF skeletons, in file order."""
        return read_jsonl(self.path("all2all.jsonl"), check_df_record)

    @cached_property
    def all_pairs(self) -> list[JsonObject]:
        """The RF skeletons, in file order."""
        return read_jsonl(self.path("all_pairs.jsonl"), check_rf_record)

    def line_of(self, suffix: str, index: int) -> int:
        """The line where record ``index`` of a ``.json`` or ``.jsonl`` file starts (for error messages)."""
        text = read_data_text(self.path(suffix))
        if suffix.endswith(".jsonl"):
            numbers = [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
            return numbers[index]
        return item_line(text, index)

    def fault(self, suffix: str, index: int, what: str) -> PlaybenchError:
        """The error for record ``index`` of one of the files."""
        return fault(self.path(suffix), self.line_of(suffix, index), what)


def _is_game(folder: Path) -> bool:
    """Whether a folder holds any of the six files of a game named like the folder."""
    return folder.is_dir() and any((folder / f"{folder.name}.{s}").is_file() for s in SUFFIXES)


def open_game(folder: Path | str) -> GameFiles:
    """One game folder (``X/`` holding ``X.edges.json`` ...); a missing file is a PlaybenchError."""
    folder = Path(folder)
    name = folder.name
    if not folder.is_dir():
        raise PlaybenchError(f"{folder} is not a folder")
    missing = [s for s in REQUIRED if not (folder / f"{name}.{s}").is_file()]
    if missing:
        raise PlaybenchError(f"{folder} is not a MANGO game folder (missing {name}.{missing[0]})")
    return GameFiles(folder, name)


def open_data(root: Path | str, games: list[str] | None = None) -> list[GameFiles]:
    """Every game folder of a data folder, sorted by name, optionally filtered to ``games``.

    A sub-folder holding any ``X.<suffix>`` file is a game, so one with a missing file is an error rather than
    silently left out.
    """
    root = Path(root)
    if not root.is_dir():
        raise PlaybenchError(f"{root}: not a folder (MANGO data is a folder of game folders)" if root.exists()
                             else f"{root}: MANGO data folder not found")
    found = {p.name: p for p in sorted(root.iterdir()) if _is_game(p)}
    if not found:
        hint = " (this is one game's folder: give the folder that holds the game folders)" if _is_game(root) else ""
        raise PlaybenchError(f"{root}: no MANGO game folders (X/X.edges.json ...){hint}")
    if games:
        unknown = [g for g in games if g not in found]
        if unknown:
            raise PlaybenchError(f"unknown MANGO game {unknown[0]!r} in {root}; have {', '.join(found)}")
        return [open_game(found[g]) for g in games]
    return [open_game(p) for p in found.values()]


def game_names(games: str | None) -> list[str] | None:
    """The ``games`` task parameter (comma-separated names) as a list; None means every game."""
    names = [g.strip() for g in games.split(",") if g.strip()] if games else []
    return names or None


def write_game(folder: Path, name: str, files: dict[str, Any]) -> Path:
    """Write the six files of one game (``files`` maps suffix to text or objects) into ``folder/name``."""
    out = Path(folder) / name
    out.mkdir(parents=True, exist_ok=True)
    for suffix, content in files.items():
        if suffix.endswith(".jsonl") and not isinstance(content, str):
            content = "".join(json_line(r) for r in content)
        elif suffix.endswith(".json") and not isinstance(content, str):
            content = json_file_text(content)
        (out / f"{name}.{suffix}").write_text(content, encoding="utf-8")
    return out
