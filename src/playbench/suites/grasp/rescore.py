"""Re-scoring published GRASP answers offline (never calls a model): join to grids, parse, simulate."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from playbench.suites.grasp.official import Problem, load_grids, read_results
from playbench.suites.grasp.parse import ParserOptions, parse_plan
from playbench.suites.grasp.simulate import Scoring, execute
from playbench.suites.grasp.table import Scored, breakdown, dims_of


def rescore(
    paths: list[Path], grids_dir: Path, scoring: Scoring = "fixed", parser: ParserOptions | None = None,
    indices: frozenset[int] | None = None,
) -> dict[str, Any]:
    """Score every answer in ``paths`` against the official grids; return the Table-1 breakdown per agent.

    Baseline answers (action lists) are executed as they are; model answers are parsed first. Lines that
    are malformed, name an unknown instance or a missing grid are listed under ``problems``. ``indices``
    keeps only answers to those grid indices (the paper's Table 1 uses 0–9, o1-mini 0–4).
    """
    options = parser or ParserOptions()
    grids = load_grids(grids_dir)
    read = read_results(list(paths))
    problems = list(read.problems)
    per_agent: dict[str, list[Scored]] = defaultdict(list)
    answers = [a for a in read.answers if indices is None or a.index in indices]
    for ans in answers:
        rec = grids.get((ans.file, ans.index))
        if rec is None:
            file, _, line = ans.source.rpartition(":")
            problems.append(Problem(file, int(line), f"no grid {ans.file} index {ans.index} in {grids_dir}"))
            continue
        if ans.plan is not None:
            plan, rule = ans.plan, "baseline"
        else:
            parsed = parse_plan(ans.text or "", options)
            plan, rule = parsed.plan, parsed.rule
        outcome = execute(rec.grid, ans.constraints, plan)
        dims = dims_of(rec.distribution, rec.obstacle, rec.start_region, ans.constraints)
        per_agent[ans.agent].append(Scored(dims, outcome.length, outcome.energy(scoring), rule))
    return {
        "scoring": scoring,
        "parser": options.name,
        "agents": {name: breakdown(items) for name, items in per_agent.items()},
        "indices": None if indices is None else sorted(indices),
        "counts": {"answers": len(answers), "left_out": len(read.answers) - len(answers), "scored": sum(map(len, per_agent.values())),
                   "problems": len(problems)},
        "problems": [p.as_dict() for p in sorted(problems, key=lambda p: (p.file, p.line))],
    }

