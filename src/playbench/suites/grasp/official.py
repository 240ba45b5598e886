"""Readers for the official GRASP files (§9): grid files, baseline results, OpenAI batch output, o1-mini output.

The official data is never shipped with playbench: users point at it by path.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from playbench.core.datafiles import read_data_text
from playbench.core.errors import PlaybenchError
from playbench.suites.grasp.grid import DISTRIBUTIONS, OBSTACLES, SIZE, STARTS, Constraints, Grid
from playbench.suites.grasp.render import render_grid


@dataclass(frozen=True)
class GridRecord:
    """One line of an official grid file."""

    file: str  # e.g. inner_random_block.jsonl
    index: int
    distribution: str
    energy_probability: float
    obstacle: str
    start_region: str
    text: str
    grid: Grid

    @property
    def blocked(self) -> bool:
        """The file's obstacle flag (decides the prompt, whatever the grid holds)."""
        return self.obstacle == "block"


def grid_file_name(start_region: str, distribution: str, obstacle: str) -> str:
    """The official file name of a setting."""
    return f"{start_region}_{distribution}_{obstacle}.jsonl"


#: The 20 official file names, in playbench's setting order (start, distribution, obstacle).
FILE_NAMES = tuple(grid_file_name(s, d, o) for s in STARTS for d in DISTRIBUTIONS for o in OBSTACLES)


#: The keys of a grid line, in file order.
GRID_KEYS = ("index", "energy", "energy_probability", "obstacle", "start_position", "grid", "start")
_ROW_WIDTH = 3 + 4 * SIZE  # " 7|" then " X |" per cell
_INNER = range(3, 8)  # rows and columns of the inner start region (spec §2.2)


def _show(value: Any, limit: int = 40) -> str:
    """A value quoted for an error message, on one line and cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."





def parse_grid_text(text: Any) -> Grid:
    """The grid of an official ``grid`` text; anything but the exact §3 layout of an 11x11 grid is a ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"'grid' is {_show(text)}, expected the grid text")
    lines = text.split("\n")
    if lines[-1] != "":
        raise ValueError("'grid' does not end with a newline")
    if len(lines) - 1 != 2 * SIZE + 2:
        raise ValueError(f"'grid' has {len(lines) - 1} lines, expected {2 * SIZE + 2} (an {SIZE}x{SIZE} grid)")
    cells = []
    for r, line in enumerate(lines[2:-1:2]):  # the row lines sit between the header, separators and the end
        if not line.startswith(f"{r:>2}|"):
            raise ValueError(f"'grid' row {r} does not start with {f'{r:>2}|'!r}")
        if len(line) != _ROW_WIDTH:
            raise ValueError(f"'grid' row {r} is {len(line)} characters long, expected {_ROW_WIDTH} ({SIZE} cells)")
        chars = line[4::4]
        bad = next((ch for ch in chars if ch not in "EOA "), None)
        if bad is not None:
            raise ValueError(f"'grid' row {r} has the cell {bad!r}; cells are 'E', 'O', 'A' or a space")
        cells.append(chars)
    found = {ch: {(r, c) for r, row in enumerate(cells) for c, x in enumerate(row) if x == ch} for ch in "EOA"}
    if len(found["A"]) != 1:
        raise ValueError(f"'grid' has {len(found['A'])} start cells 'A', expected 1")
    grid = Grid.build(found["E"], found["O"], next(iter(found["A"])))
    expected = render_grid(grid)
    if expected != text:  # anything the checks above let through (header, separators, cell borders)
        k, (got, want) = next((k, p) for k, p in enumerate(zip(lines, expected.split("\n"), strict=True)) if p[0] != p[1])
        raise ValueError(f"'grid' line {k + 1} is {_show(got, 60)}, expected {_show(want, 60)}")
    return grid


def _probability(distribution: str, value: Any) -> float:
    """``energy_probability``: p in 0-1 (random, skewed), the cluster count 3-5, or -1 (spiral) (spec §2.1)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"'energy_probability' is {_show(value)}, expected a number")
    if distribution == "spiral":
        ok, expected = value == -1, "-1 for spiral grids"
    elif distribution == "cluster":
        ok, expected = value in (3, 4, 5), "the cluster count 3, 4 or 5"
    else:
        ok, expected = 0 <= value <= 1, "a probability 0-1"
    if not ok:
        raise ValueError(f"'energy_probability' is {_show(value)}, expected {expected}")
    return float(value)


def _choice(d: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    if d[key] not in allowed:
        raise ValueError(f"{key!r} is {_show(d[key])}, expected one of {', '.join(allowed)}")
    return str(d[key])  # one of ``allowed``: a str already


def grid_record(file: str, line: str) -> GridRecord:
    """One line of an official grid file; a missing key, a wrong type or value, or a malformed grid is a ValueError."""
    try:
        d = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(d, dict):
        raise ValueError(f"expected a JSON object, found {type(d).__name__}")
    missing = [k for k in GRID_KEYS if k not in d]
    if missing:
        raise ValueError(f"missing key {missing[0]!r}")
    index = d["index"]
    if type(index) is not int or index < 0:
        raise ValueError(f"'index' is {_show(index)}, expected a grid number 0, 1, 2 ...")
    distribution = _choice(d, "energy", DISTRIBUTIONS)
    obstacle, region = _choice(d, "obstacle", OBSTACLES), _choice(d, "start_position", STARTS)
    probability = _probability(distribution, d["energy_probability"])
    grid = parse_grid_text(d["grid"])
    start = d["start"]
    if not isinstance(start, list) or start != list(grid.start):
        raise ValueError(f"'start' is {_show(start)}, the grid's 'A' cell is {list(grid.start)}")
    if obstacle == "free" and grid.obstacles:
        raise ValueError("'obstacle' is 'free' but the grid has obstacle cells 'O'")
    if (grid.start[0] in _INNER and grid.start[1] in _INNER) != (region == "inner"):
        raise ValueError(f"'start_position' is {region!r} but the start {list(grid.start)} is "
                         f"{'not ' if region == 'inner' else ''}in rows and columns 3-7")
    return GridRecord(file, index, distribution, probability, obstacle, region, d["grid"], grid)


def read_grid_file(path: Path) -> list[GridRecord]:
    """Parse one official grid file, strictly: any fault is a PlaybenchError ``file:line: what``.

    With an official file name the records must also match the setting it names.
    """
    # the setting an official file name promises (none for other names)
    setting = dict(zip(("start_position", "energy", "obstacle"), path.stem.split("_"), strict=True)) \
        if path.name in FILE_NAMES else {}
    out: list[GridRecord] = []
    lines: dict[int, int] = {}  # grid index -> line
    for number, line in enumerate(read_data_text(path, empty="empty file (no grid lines)").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = grid_record(path.name, line)
            got = {"start_position": rec.start_region, "energy": rec.distribution, "obstacle": rec.obstacle}
            wrong = next((k for k in setting if got[k] != setting[k]), None)
            if wrong:
                raise ValueError(f"{wrong!r} is {got[wrong]!r} in a file named {path.name}")
            if rec.index in lines:
                raise ValueError(f"grid index {rec.index} already on line {lines[rec.index]}")
        except ValueError as exc:
            raise PlaybenchError(f"{path}:{number}: {exc}") from None
        lines[rec.index] = number
        out.append(rec)
    return out


@lru_cache(maxsize=8)
def _load_dir(path: str, stamp: float) -> dict[tuple[str, int], GridRecord]:
    root = Path(path)
    single = root.is_file()
    files = [root] if single else sorted(root.glob("*.jsonl"))
    grids: dict[tuple[str, int], GridRecord] = {}
    for f in files:
        if not single and f.name.split("_")[0] not in STARTS:
            continue  # not a grid file (e.g. a results file in the same folder)
        if f.name not in FILE_NAMES:  # episodes select grids by file name: another name would never be played
            raise PlaybenchError(f"{f}: not an official GRASP grid file name "
                                 "({inner|outer}_{distribution}_{block|free}.jsonl, e.g. inner_random_block.jsonl)")
        for rec in read_grid_file(f):
            grids[(rec.file, rec.index)] = rec
    if not grids:
        raise PlaybenchError(f"{path}: no GRASP grid files ({{inner|outer}}_{{distribution}}_{{block|free}}.jsonl)")
    return grids


def load_grids(path: str | Path) -> dict[tuple[str, int], GridRecord]:
    """All grids under a directory (or in one file), keyed by (file name, index), read strictly. Cached per path."""
    p = Path(path).expanduser()
    if not p.exists():
        raise PlaybenchError(f"GRASP grid path not found: {p}")
    return _load_dir(str(p.resolve()), p.stat().st_mtime)


def parse_custom_id(custom_id: str) -> tuple[str, int, Constraints]:
    """``inner_leftRight_free.jsonl-3-1-0-1`` -> (file, index, constraints). Raises ValueError if malformed."""
    parts = custom_id.split("-")
    if len(parts) != 5 or not parts[0].endswith(".jsonl"):
        raise ValueError(f"malformed custom_id {custom_id!r}")
    index, move, carry, cost = (int(x) for x in parts[1:])
    if move not in (0, 1) or carry not in (0, 1) or cost not in (0, 1):
        raise ValueError(f"malformed custom_id {custom_id!r}")
    return parts[0], index, Constraints.from_code(move, carry, cost)


def custom_id(file: str, index: int, constraints: Constraints) -> str:
    """The official request id of an instance."""
    m, c, k = constraints.code
    return f"{file}-{index}-{m}-{c}-{k}"


# -- answers --------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """One published answer joined to nothing yet: who, which instance, and either a plan or a text."""

    agent: str
    file: str
    index: int
    constraints: Constraints
    source: str  # "path:line"
    plan: list[str] | None = None  # baseline answers are action lists already
    text: str | None = None  # model answers are free text


@dataclass
class Problem:
    """A line that could not be used (kept, counted and listed; never aborts the rest)."""

    file: str
    line: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"file": self.file, "line": self.line, "reason": self.reason}


@dataclass
class ReadResult:
    """Answers and problems read from result files."""

    answers: list[Answer] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _model_from_name(path: Path) -> str:
    stem = path.stem.removesuffix("_output").removeprefix("batch_")
    return {"gpt_o1_mini": "o1-mini", "gpt35": "gpt-3.5", "gpt4o": "gpt-4o"}.get(stem, stem)


def _answer_from(d: Any, path: Path) -> Answer:
    """One result line -> Answer (raises ValueError/KeyError/TypeError when it is no known format)."""
    if not isinstance(d, dict):
        raise ValueError("not a JSON object")
    if "baseline" in d:  # data/results/{greedy,random}_results/<grid file>.jsonl
        answer = d["answer"]
        if not isinstance(answer, list):
            raise ValueError("'answer' is not a list")
        cons = Constraints.from_baseline(d["movement_prompt"], d["energy_limit_prompt"], d["cost_of_step_prompt"])
        file = d.get("file") or path.name
        return Answer(str(d["baseline"]), file, int(d["index"]), cons, "", plan=[str(a) for a in answer])
    if "custom_id" in d and "response" in d:
        file, index, cons = parse_custom_id(str(d["custom_id"]))
        resp = d["response"]
        if isinstance(resp, str):  # the o1-mini output file: the answer text directly
            return Answer(_model_from_name(path), file, index, cons, "", text=resp)
        if isinstance(resp, dict):  # an OpenAI batch output line
            if d.get("error"):
                raise ValueError(f"request failed: {d['error']}")
            if int(resp.get("status_code", 200)) != 200:
                raise ValueError(f"status {resp.get('status_code')}")
            body = resp["body"]
            text = body["choices"][0]["message"]["content"]
            model = str(body.get("model") or _model_from_name(path))
            return Answer(model, file, index, cons, "", text="" if text is None else str(text))
        raise ValueError("unknown 'response' form")
    if "custom_id" in d and "body" in d:
        raise ValueError("a batch request, not an answer")
    raise ValueError("unknown result format")


def read_results(paths: list[Path]) -> ReadResult:
    """Read baseline results, OpenAI batch output and o1-mini output files; bad lines become problems."""
    out = ReadResult()
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            out.problems.append(Problem(str(path), 0, f"cannot read: {exc.strerror or exc}"))
            continue
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                answer = _answer_from(json.loads(line), path)
            except json.JSONDecodeError:
                out.problems.append(Problem(str(path), number, "malformed JSON"))
                continue
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                out.problems.append(Problem(str(path), number, str(exc) or type(exc).__name__))
                continue
            answer.source = f"{path}:{number}"
            out.answers.append(answer)
    return out
