"""The MANGO report of a run: DF/RF × easy/hard with strict, loose, reasoning and length-weighted success."""

from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.suites.mango.aggregate import summarize_rows
from playbench.suites.mango.facts import TASKS as ROWS

# task id -> its DF/RF part of the report
_TASKS = {row.id: row.question for row in ROWS if row.question is not None}


def rows_from_records(records: list[EpisodeRecord]) -> list[dict]:
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
        out["minigame"] = {"n": len(games), "successes": wins, "success_rate": wins / len(games)}
    return out or None


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


def render(summary: dict[str, Any]) -> list[Any]:
    """A rich table: one row per task and difficulty."""
    from rich.table import Table

    table = Table(title="MANGO (fixed evaluator unless the run says compat)")
    for col in ("task", "bucket", "valid", "strict", "loose", "reasoning", "weighted", "path len"):
        table.add_column(col, justify="left" if col in ("task", "bucket") else "right")
    for kind in ("df", "rf"):
        if kind not in summary:
            continue
        for part in ("easy", "hard", "all"):
            b = summary[kind]["overall"][part]
            table.add_row(kind.upper(), part, str(b["valid"]), _fmt(b["success_rate"]), _fmt(b["loose"]),
                          _fmt(b["reasoning"]), _fmt(b["weighted"]), _fmt(b["path_len"]))
    out: list[Any] = [table]
    if "minigame" in summary:
        mg = summary["minigame"]
        out.append(f"minigame: {mg['successes']:.0f}/{mg['n']} = {mg['success_rate']:.3f}")
    return out
