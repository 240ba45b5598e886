"""Pure aggregation of scored records: buckets, micro/macro averages, the official summary, pairwise comparison.

A *row* is a plain dict with ``game``, ``task``, ``id``, ``status`` (scored / parse_error / id_error /
unanswerable / step_num_error), ``difficulty``, ``strict``, ``loose``, ``reasoning``, ``path_len`` and
``parse_error`` — what ``Score.to_dict()`` and the episode metrics both hold.
"""

from collections import defaultdict
from typing import Any

from playbench.stats import mean_stderr
from playbench.stats.intervals import interval
from playbench.suites.mango.facts import ANSWER_METRICS

#: One scored record (the fields in the module docstring).
Row = dict[str, Any]
ERROR_KEYS = {"parse_error": "parse", "id_error": "id", "unanswerable": "unanswerable", "step_num_error": "step_num"}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


#: the successes of a bucket: report key -> row field (its interval method: ``facts.ANSWER_METRICS``)
RATES = {"success_rate": "strict", "loose": "loose", "reasoning": "reasoning"}


def uncertainty(valid: list[Row]) -> dict[str, Any]:
    """95% intervals of the three success rates and the path length's standard error.

    Each by its declared method (``facts.ANSWER_METRICS``): Wilson for strict and reasoning (0/1), a
    bootstrap inside [0, 1] for ``loose`` (partial credit), whatever values a bucket happens to hold.
    """
    ci95: dict[str, list[float] | None] = {}
    for key, field in RATES.items():
        values = [float(r[field]) for r in valid]
        ci, _ = interval(values, ANSWER_METRICS[field])
        ci95[key] = None if ci is None else list(ci)
    _, path_se = mean_stderr([float(r["path_len"]) for r in valid])
    return {"ci95": ci95, "path_len_stderr": path_se}


def bucket(rows: list[Row], n: int | None = None) -> dict[str, Any]:
    """Counts and means over the valid rows among ``rows`` (``n`` = how many records the bucket covers).

    ``ci95`` holds the 95% intervals of ``success_rate``, ``loose`` and ``reasoning``.
    """
    valid = [r for r in rows if r["status"] == "scored"]
    total_len = sum(r["path_len"] for r in valid)
    return {
        **uncertainty(valid),
        "n": len(rows) if n is None else n,
        "valid": len(valid),
        "success_rate": _mean([r["strict"] for r in valid]),
        "loose": _mean([r["loose"] for r in valid]),
        "reasoning": _mean([r["reasoning"] for r in valid]),
        "weighted": sum(r["strict"] * r["path_len"] for r in valid) / total_len if total_len else None,
        "path_len": _mean([r["path_len"] for r in valid]),
    }


def errors(rows: list[Row]) -> dict[str, Any]:
    """Error counts by kind, plus parse-error sub-kinds."""
    out: dict[str, Any] = {v: 0 for v in ERROR_KEYS.values()}
    kinds: dict[str, int] = defaultdict(int)
    for r in rows:
        if r["status"] in ERROR_KEYS:
            out[ERROR_KEYS[r["status"]]] += 1
        if r.get("parse_error"):
            kinds[r["parse_error"]] += 1
    out["parse_kinds"] = dict(sorted(kinds.items()))
    out["n"] = len(rows)
    return out


def buckets(rows: list[Row]) -> dict[str, Any]:
    """``all``, ``easy`` and ``hard`` buckets of one set of rows."""
    easy = [r for r in rows if r["status"] == "scored" and r.get("difficulty") == "easy"]
    hard = [r for r in rows if r["status"] == "scored" and r.get("difficulty") == "hard"]
    return {"all": bucket(rows), "easy": bucket(easy), "hard": bucket(hard)}


def summarize_rows(rows: list[Row]) -> dict[str, Any]:
    """``{"overall": {all, easy, hard}, "macro": …, "games": {GAME: {all, easy, hard, errors}}, "errors": …}``.

    ``overall`` is micro-averaged (pooled records, as the official cross-game summary); ``macro`` is the
    mean over games of each per-game rate.
    """
    by_game: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_game[r["game"]].append(r)
    games = {g: {**buckets(rs), "errors": errors(rs)} for g, rs in sorted(by_game.items())}
    macro: dict[str, Any] = {}
    for part in ("all", "easy", "hard"):
        macro[part] = {}
        for key in ("success_rate", "loose", "reasoning", "weighted", "path_len"):
            vals = [g[part][key] for g in games.values() if g[part][key] is not None]
            macro[part][key] = _mean(vals)
        macro[part]["games"] = sum(1 for g in games.values() if g[part]["valid"])
    return {"overall": buckets(rows), "macro": macro, "games": games, "errors": errors(rows)}


# -- the official evaluator's summary layout (spec §7.5) ------------------------------------------


def official_bucket(rows: list[Row]) -> dict[str, Any]:
    """``total_task``, ``valid_task``, score sums, error counts and their ``_average`` twins."""
    valid = [r for r in rows if r["status"] == "scored"]
    out: dict[str, Any] = {
        "total_task": len(rows),
        "valid_task": len(valid),
        "loose_score": sum(r["loose"] for r in valid),
        "strict_score": sum(r["strict"] for r in valid),
        "reasoning_score": sum(r["reasoning"] for r in valid),
        "path_len": sum(r["path_len"] for r in valid),
        "parsing_error": sum(r["status"] == "parse_error" for r in rows),
        "id_error": sum(r["status"] == "id_error" for r in rows),
        "step_num_error": sum(r["status"] in ("step_num_error", "unanswerable") for r in rows),
    }
    for key in ("loose_score", "strict_score", "reasoning_score", "path_len"):
        out[f"{key}_average"] = out[key] / len(valid) if valid else 0.0
    for key in ("parsing_error", "id_error", "step_num_error"):
        out[f"{key}_average"] = out[key] / len(rows) if rows else 0.0
    return out


def official_summary(rows: list[Row]) -> dict[str, Any]:
    """The official layout: ``all``/``easy``/``hard`` per game and micro-averaged over games."""
    def three(rs: list[Row]) -> dict[str, Any]:
        scored = [r for r in rs if r["status"] == "scored"]
        return {
            "all": official_bucket(rs),
            "easy": official_bucket([r for r in scored if r.get("difficulty") == "easy"]),
            "hard": official_bucket([r for r in scored if r.get("difficulty") == "hard"]),
        }

    by_game: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_game[r["game"]].append(r)
    return {"overall": three(rows), "games": {g: three(rs) for g, rs in sorted(by_game.items())}}


# -- pairwise intersection (paper Table 1, spec §7.7) ----------------------------------------------


def pairwise(rows_a: list[Row], rows_b: list[Row]) -> dict[str, Any]:
    """Success rates of A and B on the questions both answered validly, easy and hard separately.

    A question enters a bucket only when both records put it there.
    """
    def index(rows: list[Row]) -> dict[tuple[str, str, str | None], Row]:
        return {(r["game"], r["task"], r["id"]): r for r in rows if r["status"] == "scored"}

    a, b = index(rows_a), index(rows_b)
    out: dict[str, Any] = {}
    for part in ("easy", "hard"):
        keys = [k for k in a if k in b and a[k].get("difficulty") == part and b[k].get("difficulty") == part]
        out[part] = {
            "n": len(keys),
            "a": _mean([a[k]["strict"] for k in keys]),
            "b": _mean([b[k]["strict"] for k in keys]),
            "a_reasoning": _mean([a[k]["reasoning"] for k in keys]),
            "b_reasoning": _mean([b[k]["reasoning"] for k in keys]),
        }
    return out
