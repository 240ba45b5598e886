"""BALROG's aggregation (``specs/balrog.md`` §5, B3, B17): pure functions of episode records.

Each BALROG episode's ``score`` is its progression in [0, 1]. Per environment: the pooled mean of
all scored episodes (BALROG's number) and the task-balanced mean (mean of task means), with standard
errors both the compat way (population SD / sqrt(n), 0 when n <= 1) and the sample way (n - 1).
Overall: the plain mean of the environment means, its error ``sqrt(sum se_env^2) / N_env``, and
``partial`` when one of the six environments has no scored episode (the mean is then over those that
have, as the original silently does). Values are percentages.
"""

import math
from collections import defaultdict
from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.core.suite import SummaryHooks
from playbench.stats.intervals import interval
from playbench.stats.metric import Metric
from playbench.suites.balrog.facts import ENVS as ENV_ROWS
from playbench.suites.balrog.facts import PARTIAL, env_names
from playbench.suites.balrog.figures import figures

ENVS: tuple[str, ...] = env_names()
#: Column titles of the paper's tables (from the facts' environment rows).
ENV_TITLES: dict[str, str] = {e.name: e.title for e in ENV_ROWS}
#: What each environment's progression is (a success rate or a partial progression), from the facts.
ENV_METRICS: dict[str, Metric] = {e.name: e.progression for e in ENV_ROWS}


def mean(xs: list[float]) -> float:
    """Arithmetic mean (0 for an empty list)."""
    return sum(xs) / len(xs) if xs else 0.0


def stderr_population(xs: list[float]) -> float:
    """BALROG's standard error: population SD / sqrt(n); 0 when n <= 1."""
    n = len(xs)
    if n <= 1:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / n) / math.sqrt(n)


def stderr_sample(xs: list[float]) -> float:
    """Standard error with the sample SD (n - 1); 0 when n <= 1."""
    n = len(xs)
    if n <= 1:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) / math.sqrt(n)


def combine_stderr(errors: list[float]) -> float:
    """The overall error of a mean of independent means: sqrt(sum se^2) / N."""
    return math.sqrt(sum(e * e for e in errors)) / len(errors) if errors else 0.0


def env_of(task_id: str) -> str:
    """``balrog/babyai/goto`` -> ``babyai``."""
    parts = task_id.split("/")
    return parts[1] if len(parts) > 2 else parts[-1]


def env_metric(env: str) -> Metric:
    """The declared kind of an environment's progression (a partial one in [0, 1] for an unknown name)."""
    return ENV_METRICS.get(env, PARTIAL)


def score_metric(task_id: str) -> Metric:
    """A BALROG task's score is its environment's progression (its interval method follows the facts)."""
    return env_metric(env_of(task_id))


def progressions(records: list[EpisodeRecord]) -> list[float]:
    """The progressions of the scored (``ok``) episodes."""
    return [float(r.score or 0.0) for r in records if r.status == "ok"]


def _block(xs: list[float], metric: Metric) -> dict[str, Any]:
    """Mean, both standard errors and a 95% CI by the environment's declared method (``metric``), in %."""
    if not xs:  # nothing scored: no number rather than a 0 that looks measured
        return {"mean": None, "stderr": None, "stderr_sample": None, "ci95": [None, None], "ci_method": None}
    ci, method = interval(xs, metric)
    return {
        "mean": 100 * mean(xs),
        "stderr": 100 * stderr_population(xs),
        "stderr_sample": 100 * stderr_sample(xs),
        "ci95": [100 * ci[0], 100 * ci[1]] if ci is not None else [None, None],
        "ci_method": method,
    }


def normal_ci(value: float | None, error: float | None) -> list[float | None]:
    """``value ± 1.96 error`` clipped to the 0–100 range of a progression percentage."""
    if value is None or error is None:
        return [None, None]
    return [max(0.0, value - 1.96 * error), min(100.0, value + 1.96 * error)]


def summarize_env(env: str, tasks: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any]:
    """One environment's summary from its tasks' records."""
    metric = env_metric(env)
    pooled: list[float] = []
    per_task: dict[str, Any] = {}
    for tid in sorted(set(tasks) | set(scheduled)):
        xs = progressions(tasks.get(tid, []))
        pooled += xs
        per_task[tid] = {**_block(xs, metric), "episodes_scored": len(xs),
                         "episodes_scheduled": scheduled.get(tid, len(tasks.get(tid, [])))}
    scored_tasks = [t for t in per_task.values() if t["episodes_scored"]]
    balanced = mean([t["mean"] for t in scored_tasks]) if scored_tasks else None
    balanced_se = combine_stderr([t["stderr_sample"] for t in scored_tasks]) if scored_tasks else None
    return {
        **_block(pooled, metric),
        "mean_task_balanced": balanced,
        "stderr_task_balanced": balanced_se,
        "episodes_scored": len(pooled),
        "episodes_scheduled": sum(t["episodes_scheduled"] for t in per_task.values()),
        "tasks": per_task,
    }


def overall(envs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The overall mean of the environment means, its error and the ``partial`` flag (B3)."""
    scored = [e for e in envs.values() if e["episodes_scored"]]
    missing = [env for env in ENVS if not envs.get(env, {}).get("episodes_scored")]
    value = mean([e["mean"] for e in scored]) if scored else None
    error = combine_stderr([e["stderr_sample"] for e in scored]) if scored else None
    return {
        "mean": value,
        "stderr": combine_stderr([e["stderr"] for e in scored]) if scored else None,
        "stderr_sample": error,
        "ci95": normal_ci(value, error),
        "ci_method": "normal (sample SE), clipped to 0-100" if scored else None,
        "partial": bool(missing),
        "envs_scored": len(scored),
        "missing_envs": missing,
    }


def summarize(records_by_task: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any] | None:
    """The ``balrog`` part of ``report --json``: ``{"envs": {...}, "overall": {...}}``."""
    by_env: dict[str, dict[str, list[EpisodeRecord]]] = defaultdict(dict)
    sched_env: dict[str, dict[str, int]] = defaultdict(dict)
    for tid, recs in records_by_task.items():
        by_env[env_of(tid)][tid] = recs
    for tid, n in scheduled.items():
        sched_env[env_of(tid)][tid] = n
    names = set(by_env) | set(sched_env)
    if not names:
        return None
    order = [e for e in ENVS if e in names] + sorted(names - set(ENVS))
    envs = {env: summarize_env(env, by_env.get(env, {}), sched_env.get(env, {})) for env in order}
    return {"envs": envs, "overall": overall(envs)}


def task_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    """BALROG's per-task numbers (progression %, standard error) for the ``tasks`` map."""
    xs = progressions(records)
    block = _block(xs, score_metric(task_id))
    extras: dict[str, Any] = {"balrog": {"env": env_of(task_id), "progression_percentage": block["mean"],
                                         "standard_error": block["stderr"], "episodes_played": len(xs)}}
    if env_of(task_id) == "crafter":
        from playbench.suites.crafter.scores import task_extras as crafter_extras

        extras.update(crafter_extras(records))
    return extras


def _cell(mean_: float | None, error: float | None = None, sep: str = " ") -> str:
    """``mean ± error``, or "—" when nothing was scored."""
    if mean_ is None:
        return "—"
    return f"{mean_:.2f}" if error is None else f"{mean_:.2f}{sep}± {error:.2f}"


def _ci(block: dict[str, Any]) -> str:
    lo, hi = block.get("ci95") or (None, None)
    return "—" if lo is None or hi is None else f"{lo:.1f}–{hi:.1f}"


def render(summary: dict[str, Any]) -> list[Any]:
    """The paper's table layout (one row: overall and one column per environment), then details."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    envs, total = summary["envs"], summary["overall"]
    paper = Table(title="BALROG: average progression (%) ± standard error", box=box.SIMPLE_HEAD)
    paper.add_column("Overall" + ("\n(partial)" if total["partial"] else ""), justify="right")
    for env in ENVS:
        paper.add_column(ENV_TITLES[env], justify="right")
    paper.add_row(_cell(total["mean"], total["stderr"], "\n"),
                  *[_cell(envs[e]["mean"], envs[e]["stderr"], "\n") if e in envs else "—" for e in ENVS])

    detail = Table(title="BALROG per environment", box=box.SIMPLE_HEAD)
    for col in ("env", "progress % ± SE", "95% CI", "SE (n-1)", "task-balanced", "scored"):
        detail.add_column(col, justify="left" if col == "env" else "right")
    for env, block in envs.items():
        detail.add_row(ENV_TITLES.get(env, env), _cell(block["mean"], block["stderr"]), _ci(block),
                       _cell(block["stderr_sample"]),
                       _cell(block["mean_task_balanced"], block["stderr_task_balanced"]),
                       f"{block['episodes_scored']}/{block['episodes_scheduled']}")
    if len(envs) > 1:
        detail.add_row("Overall", _cell(total["mean"], total["stderr"]), _ci(total), _cell(total["stderr_sample"]),
                       "", "", style="bold")
    overall_text = "—" if total["mean"] is None else f"{total['mean']:.2f}% ± {total['stderr']:.2f}%"
    line = Text(f"Overall Average Progression: {overall_text}")
    if total["partial"]:
        line.append(f"  (partial: no scored episodes for {', '.join(total['missing_envs'])})", style="yellow")
    return [paper, detail, line]


#: what ``playbench report`` and ``plot`` call (``SUITE.summary`` names it)
SUMMARY = SummaryHooks(summarize=summarize, task_extras=task_extras, render=render,
                       score_metric=score_metric, figures=figures)
