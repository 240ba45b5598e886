"""SmartPlay's native report: normalized scores per task (Table 2 row) and the nine capability scores.

Pure functions of episode records. ``normalized`` holds every SmartPlay task's normalized score: the
human-normalized score (§4.1) for the 7 benchmark games and a range-normalized score for the other 13,
labelled in ``normalization``. Capabilities are computed over the human-normalized games only, as in the
paper (the original cannot normalize the others at all, bug B9).
"""

import math
from typing import Any

from rich.table import Table

from playbench.core.records import EpisodeRecord
from playbench.core.suite import SummaryHooks
from playbench.stats import summarize as summarize_values
from playbench.stats.metric import Metric
from playbench.suites.smartplay.capabilities import CAPABILITIES, Weighting, capability_scores, degrees
from playbench.suites.smartplay.figures import figures
from playbench.suites.smartplay.scoring import benchmark_rows, benchmark_tasks, facts_of, normalize


def table2_columns() -> dict[str, str]:
    """Task id -> its column title in the paper's Table 2, for the benchmark games (from the facts)."""
    return {row.id: str(row.table2) for row in benchmark_rows()}

NOTES = {
    "minecraft": "Minecraft runs on playbench's substitute voxel world: not comparable with the paper's column.",
    "crafter": "The Crafter SmartPlay score is a running sum of unlocked achievements (length-dependent, B6).",
    "range": "Games without a recorded human score are range-normalized over their theoretical bounds.",
}


def _game(task_id: str) -> str | None:
    row = facts_of(task_id)
    return row.game if row is not None else None


def _scores(records: list[EpisodeRecord]) -> list[float]:
    return [float(r.score) for r in records if r.status == "ok" and r.score is not None]


def normalized_values(task_id: str, records: list[EpisodeRecord]) -> tuple[list[float], str] | None:
    """The normalized score of every ``ok`` episode and their kind (``human``/``range``), or None."""
    values = []
    kind = None
    for raw in _scores(records):
        res = normalize(task_id, raw)
        if res is None:
            return None
        values.append(res[0])
        kind = res[1]
    if not values or kind is None:
        return None
    return values, kind


def normalized_score(task_id: str, records: list[EpisodeRecord]) -> tuple[float, str] | None:
    """Mean normalized score over ``ok`` episodes and its kind (``human``/``range``), or None."""
    res = normalized_values(task_id, records)
    return None if res is None else (math.fsum(res[0]) / len(res[0]), res[1])


def normalized_stats(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any] | None:
    """``{"value", "kind", "stderr", "ci95", "ci_method", "n"}`` of a task's normalized score, or None.

    Normalization is linear and increasing, so the statistics are the raw score's, by the method its
    facts row declares (``SmartPlayTask.score``), mapped.
    """
    res = normalized_values(task_id, records)
    row = facts_of(task_id)
    if res is None or row is None:
        return None
    stat = summarize_values(_scores(records), row.score)
    span = row.reference.high - row.reference.low

    def mapped(x: float | None) -> float | None:
        return None if x is None else (x - row.reference.low) / span

    return {"value": math.fsum(res[0]) / len(res[0]), "kind": res[1],
            "stderr": None if stat["stderr"] is None else stat["stderr"] / span,
            "ci95": [mapped(x) for x in stat["ci95"]], "ci_method": stat["ci_method"], "n": stat["n"]}


def capability_errors(stats: dict[str, dict[str, Any]], weighting: Weighting) -> dict[str, float | None]:
    """Standard error of each capability score: ``sqrt(sum w_g^2 se_g^2) / sum w_g`` (independent games).

    None where the score itself is undefined or a contributing game has no standard error (one episode).
    """
    out: dict[str, float | None] = {}
    for cap in CAPABILITIES:
        num = den = 0.0
        known = True
        for tid, stat in stats.items():
            deg = degrees(tid)
            if deg is None:
                continue
            w = deg[cap] - 1 if weighting == "code" else deg[cap]
            if w == 0:
                continue
            if stat.get("stderr") is None:
                known = False
            else:
                num += (w * stat["stderr"]) ** 2
            den += w
        out[cap] = math.sqrt(num) / den if den and known else None
    return out


def _manual_source(records: list[EpisodeRecord]) -> dict[str, Any]:
    """Messenger: which manual source the episodes used, and the note shown on the task's report line."""
    from playbench.suites.smartplay.messenger.manual import source_note

    sources = sorted({str(r.instance.get("manual_source")) for r in records if r.instance.get("manual_source")})
    if not sources:
        return {}
    return {"manual_source": sources[0] if len(sources) == 1 else sources,
            "note": "; ".join(source_note(s) for s in sources)}


def score_metric(task_id: str) -> Metric | None:
    """The declared kind of a task's raw score (its facts row's), None for an id with no row."""
    row = facts_of(task_id)
    return None if row is None else row.score


def task_extras(task_id: str, records: list[EpisodeRecord]) -> dict[str, Any]:
    """The task's normalized score (kind, standard error, CI), merged into its entry of the report's ``tasks`` map."""
    extras: dict[str, Any] = {"normalized": normalized_stats(task_id, records)}
    ok = [r for r in records if r.status == "ok"]
    game = _game(task_id)
    if game == "messenger":
        extras.update(_manual_source(records))
    if game == "messenger" and ok:
        extras["picked_message"] = sum(bool(r.metrics.get("picked_message")) for r in ok) / len(ok)
    if task_id == "smartplay/crafter":  # B6: Crafter's native score and achievements beside the running sum
        from playbench.suites.crafter.scores import task_extras as crafter_extras

        extras.update(crafter_extras(records))
    if game == "minecraft":
        extras["substitute_world"] = True
        if ok:
            extras["spawned_in_goal_biome"] = sum(bool(r.metrics.get("spawned_in_goal_biome")) for r in ok)
    return extras


def summarize(records_by_task: dict[str, list[EpisodeRecord]], scheduled: dict[str, int]) -> dict[str, Any] | None:
    """``{"normalized": {task: value}, "capabilities": {name: value or null}, ...}`` for a run."""
    normalized: dict[str, float] = {}
    kinds: dict[str, str] = {}
    stats: dict[str, dict[str, Any]] = {}
    for task_id in sorted(set(records_by_task) | set(scheduled)):
        stat = normalized_stats(task_id, records_by_task.get(task_id, []))
        if stat is not None:
            normalized[task_id], kinds[task_id], stats[task_id] = stat["value"], stat["kind"], stat
    if not normalized and not scheduled:
        return None
    human = {t: v for t, v in normalized.items() if kinds[t] == "human"}
    caps = capability_scores(human, "code")
    caps_paper = capability_scores(human, "paper")
    human_stats = {t: stats[t] for t in human}
    notes = [NOTES["range"]] if any(k == "range" for k in kinds.values()) else []
    if any(_game(t) == "minecraft" for t in normalized):
        notes.append(NOTES["minecraft"])
    crafter: dict[str, Any] = {}
    if "smartplay/crafter" in normalized:
        from playbench.suites.crafter.scores import task_extras as crafter_extras

        native = crafter_extras(records_by_task.get("smartplay/crafter", []))
        crafter = {k: native[k] for k in ("crafter_score", "mean_achievements_unlocked")}
        notes.append(NOTES["crafter"])
        if normalized["smartplay/crafter"] > 1:
            notes.append("Crafter's normalized score exceeds 1: the running-sum score rewards long episodes.")
    return {
        "normalized": normalized,
        "normalization": kinds,
        "normalized_stderr": {t: st["stderr"] for t, st in stats.items()},
        "normalized_ci95": {t: st["ci95"] for t, st in stats.items()},
        "capabilities": {k: c.value for k, c in caps.items()},
        "capabilities_stderr": capability_errors(human_stats, "code"),
        "capability_reasons": {k: c.reason for k, c in caps.items() if c.value is None},
        "capabilities_paper_weighting": {k: c.value for k, c in caps_paper.items()},
        "capability_weighting": "code",
        "capability_tasks": sorted(human),
        "benchmark_complete": all(t in human for t in benchmark_tasks()),
        **({"crafter": crafter} if crafter else {}),
        "notes": notes,
    }


def _fmt(value: float | None) -> str:
    return "null" if value is None else f"{value:.2f}"


def _with_error(value: float | None, error: float | None, sep: str = " ") -> str:
    """``0.54 ± 0.12`` (``sep`` between the value and the error), ``-`` when there is no value."""
    if value is None:
        return "-"
    return f"{value:.2f}" if error is None else f"{value:.2f}{sep}± {error:.2f}"


def render(summary: dict[str, Any]) -> list[Any]:
    """The Table 2 row (human-normalized ± SE), other games' range-normalized scores, and the capabilities.

    Capability rows are shown only when at least two games measure them: with one game every capability
    is that game's score. Capabilities no supplied game measures are named on one line, not given a value.
    """
    from rich import box

    out: list[Any] = []
    normalized = summary.get("normalized", {})
    errors = summary.get("normalized_stderr", {})
    kinds = summary.get("normalization", {})
    columns = table2_columns()
    row = Table(title="SmartPlay: human-normalized scores ± SE (paper Table 2)", box=box.SIMPLE_HEAD)
    for title in columns.values():
        row.add_column(title, justify="right")
    row.add_row(*(_with_error(normalized.get(t), errors.get(t), "\n") if t in normalized else "-"
                  for t in columns))
    out.append(row)
    others = {t: v for t, v in normalized.items() if kinds.get(t) == "range"}
    if others:
        table = Table(title="SmartPlay: other games, range-normalized (not human-normalized)", box=box.SIMPLE_HEAD)
        table.add_column("task", overflow="fold")
        table.add_column("range-normalized ± SE", justify="right")
        for t, v in others.items():
            table.add_row(t, _with_error(v, errors.get(t)))
        out.append(table)
    games = summary.get("capability_tasks", [])
    values = summary.get("capabilities", {})
    missing = [name for name in CAPABILITIES if values.get(name) is None]
    if len(games) < 2:
        if games:
            out.append(f"SmartPlay capabilities: only {games[0]} is human-normalized, so every capability would "
                       "repeat its score; supply two or more benchmark games for capability scores.")
    else:
        caps = Table(title=f"SmartPlay capabilities (weighting={summary.get('capability_weighting', 'code')})",
                     box=box.SIMPLE_HEAD)
        caps.add_column("capability")
        caps.add_column("score ± SE", justify="right")
        caps.add_column("paper weighting", justify="right")
        cap_errors = summary.get("capabilities_stderr", {})
        paper = summary.get("capabilities_paper_weighting", {})
        for name in CAPABILITIES:
            if values.get(name) is not None:
                caps.add_row(name, _with_error(values[name], cap_errors.get(name)), _fmt(paper.get(name)))
        out.append(caps)
        if missing:
            out.append("not measured by the supplied games: " + ", ".join(missing))
    crafter = summary.get("crafter")
    if crafter and crafter.get("crafter_score") is not None:
        out.append(f"Crafter native score (Hafner 2021): {crafter['crafter_score']:.2f}; "
                   f"mean achievements unlocked: {crafter['mean_achievements_unlocked']:.2f} of 22")
    out.extend(summary.get("notes", []))
    return out


#: what ``playbench report`` and ``plot`` call (``SUITE.summary`` names it)
SUMMARY = SummaryHooks(summarize=summarize, task_extras=task_extras, render=render,
                       score_metric=score_metric, figures=figures)
