"""Readers for the official GRASP files (§9): grid files, baseline results, OpenAI batch output, o1-mini output.

The official data is never shipped with playbench: users point at it by path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.suites.grasp.grid import DISTRIBUTIONS, OBSTACLES, STARTS, Constraints, Grid


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


def read_grid_file(path: Path) -> list[GridRecord]:
    """Parse one official grid file; a malformed line is a PlaybenchError naming file and line."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            grid = Grid.from_text(d["grid"])
            if list(grid.start) != list(d.get("start", grid.start)):
                raise ValueError(f"start {d['start']} does not match the A cell {list(grid.start)}")
            out.append(
                GridRecord(
                    path.name, int(d["index"]), str(d["energy"]), float(d["energy_probability"]), str(d["obstacle"]),
                    str(d["start_position"]), d["grid"], grid,
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise PlaybenchError(f"{path}:{number}: not a GRASP grid line ({exc})") from None
    return out


@lru_cache(maxsize=8)
def _load_dir(path: str, stamp: float) -> dict[tuple[str, int], GridRecord]:
    root = Path(path)
    files = [root] if root.is_file() else sorted(root.glob("*.jsonl"))
    grids: dict[tuple[str, int], GridRecord] = {}
    for f in files:
        if f.name.split("_")[0] not in STARTS:
            continue  # not a grid file (e.g. a results file in the same folder)
        for rec in read_grid_file(f):
            grids[(rec.file, rec.index)] = rec
    if not grids:
        raise PlaybenchError(f"no GRASP grid files (*_*_*.jsonl) found in {path}")
    return grids


def load_grids(path: str | Path) -> dict[tuple[str, int], GridRecord]:
    """All grids under a directory (or in one file), keyed by (file name, index). Cached per path."""
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
