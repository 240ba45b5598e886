"""The MANGO report of a run: DF/RF × easy/hard with strict, loose, reasoning and length-weighted success."""

from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.core.suite import SummaryHooks
from playbench.stats import wilson
from playbench.stats.metric import Metric
from playbench.suites.mango.aggregate import Row, summarize_rows
from playbench.suites.mango.facts import SCORE
from playbench.suites.mango.facts import TASKS as ROWS
from playbench.suites.mango.figures import figures

# task id -> its DF/RF part of the report
_TASKS = {row.id: row.question for row in ROWS if row.question is not None}


def rows_from_records(records: list[EpisodeRecord]) -> list[Row]:
    """Aggregation rows from the metrics of ``ok`` episodes."""
    out = []
    for r in records:
        m = r.metrics
        if r.status != "ok" or "status" not in m:
            continue
        out.append({**m, "id": m.get("id"), "game": m.get("game", "?")})
    return out


def summarize(records_by_task: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any] | None:
    """``{"df": {...}, "rf": {...}, "minigame": {...}}`` for the MANGO tasks present in the run."""
    out: dict[str, Any] = {}
    for task_id, kind in _TASKS.items():
        rows = rows_from_records(records_by_task.get(task_id, []))
        if rows:
            out[kind] = summarize_rows(rows)
    games = [r for r in records_by_task.get("mango/minigame", []) if r.status == "ok"]
    if games:
        wins = sum(float(r.metrics.get("success", 0.0)) for r in games)
        ci = wilson(wins, len(games))
        out["minigame"] = {"n": len(games), "successes": wins, "success_rate": wins / len(games),
                           "ci95": None if ci is None else list(ci)}
    return out or None


def score_metric(task_id: str) -> Metric:
    """A MANGO score is a 0/1 success (``facts.SCORE``): a rate."""
    return SCORE


def task_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    """Easy/hard success rates of a DF/RF task, merged into its entry of the report."""
    if task_id not in _TASKS:
        return {}
    rows = rows_from_records(records)
    if not rows:
        return {}
    s = summarize_rows(rows)
    return {"mango": {part: s["overall"][part] for part in ("easy", "hard")}}


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _rate(b: dict[str, Any], key: str) -> str:
    """A success rate over its 95% Wilson interval (second line)."""
    value = b.get(key)
    ci = (b.get("ci95") or {}).get(key)
    if value is None:
        return "-"
    return f"{value:.2f}" if not ci else f"{value:.2f}\n{ci[0]:.2f}–{ci[1]:.2f}"


def render(summary: dict[str, Any]) -> list[Any]:
    """A rich table: one row per task and difficulty; rates over their 95% Wilson intervals."""
    from rich import box
    from rich.table import Table

    table = Table(title="MANGO (fixed evaluator unless the run says compat)", box=box.SIMPLE_HEAD,
                  caption="rates over their 95% interval (Wilson; bootstrap for loose); path len: mean ± SE")
    for col in ("task", "valid", "strict", "loose", "reasoning", "weighted", "path len"):
        table.add_column(col, justify="left" if col == "task" else "right", no_wrap=True)
    for kind in ("df", "rf"):
        if kind not in summary:
            continue
        for part in ("easy", "hard", "all"):
            b = summary[kind]["overall"][part]
            path = _fmt(b["path_len"]) if b.get("path_len_stderr") is None or b["path_len"] is None else \
                f"{b['path_len']:.2f} ± {b['path_len_stderr']:.2f}"
            table.add_row(f"{kind.upper()} {part}", str(b["valid"]), _rate(b, "success_rate"), _rate(b, "loose"),
                          _rate(b, "reasoning"), _fmt(b["weighted"]), path)
    out: list[Any] = [table]
    if "minigame" in summary:
        mg = summary["minigame"]
        ci = mg.get("ci95")
        interval = f" (95% CI {ci[0]:.3f}–{ci[1]:.3f})" if ci else ""
        out.append(f"minigame: {mg['successes']:.0f}/{mg['n']} = {mg['success_rate']:.3f}{interval}")
    return out


#: what ``playbench report`` and ``plot`` call (``SUITE.summary`` names it)
SUMMARY = SummaryHooks(summarize=summarize, task_extras=task_extras, render=render,
                       score_metric=score_metric, figures=figures)
