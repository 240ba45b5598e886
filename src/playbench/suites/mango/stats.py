"""Dataset statistics: the paper's Table 3 columns per game (spec §8.1–8.3) and the release-cutoff counts."""

from typing import Any

from playbench.suites.mango.labels import count_labels
from playbench.suites.mango.walkthrough import parse_walkthrough, walkthrough_prefix

TABLE_COLUMNS = (
    ("game", "game"),
    ("locations", "# Locs"),
    ("edges", "# Edges"),
    ("avg_len", "Avg Len"),
    ("steps", "# Steps"),
    ("df_easy", "DF easy"),
    ("df_hard", "DF hard"),
    ("rf_easy", "RF easy"),
    ("rf_hard", "RF hard"),
    ("df", "DF all"),
    ("rf_pairs", "RF pairs"),
    ("rf_reachable", "RF reach"),
    ("cutoff", "c"),
    ("tokens", "tokens"),
    ("df_easy_c", "DF e @c"),
    ("df_hard_c", "DF h @c"),
    ("rf_easy_c", "RF e @c"),
    ("rf_hard_c", "RF h @c"),
)


def game_stats(game: Any) -> dict[str, Any]:
    """One game's row. Table 3 counts use N = last step − 1, as the authors' statistics script."""
    steps = parse_walkthrough(game.walkthrough_text)
    last = steps[-1].num if steps else 0
    n = last - 1
    df, rf = count_labels(game.all2all, n), count_labels(game.all_pairs, n)
    answerable = [s["step_count"] for s in game.all2all if s["min_step_total_answerable"] <= n]
    prefix = walkthrough_prefix(game.walkthrough_text)
    df_c, rf_c = count_labels(game.all2all, prefix.cutoff), count_labels(game.all_pairs, prefix.cutoff)
    return {
        "game": game.name,
        "locations": len(game.locations),
        "edges": len(game.edges),
        "avg_len": round(sum(answerable) / len(answerable), 2) if answerable else None,
        "steps": last,
        "df_easy": df["easy"],
        "df_hard": df["hard"],
        "rf_easy": rf["easy"],
        "rf_hard": rf["hard"],
        "df": len(game.all2all),
        "rf_pairs": len(game.all_pairs),
        "rf_reachable": sum(1 for p in game.all_pairs if p["num_paths"] > 0),
        "cutoff": prefix.cutoff,
        "tokens": prefix.tokens,
        "df_easy_c": df_c["easy"],
        "df_hard_c": df_c["hard"],
        "rf_easy_c": rf_c["easy"],
        "rf_hard_c": rf_c["hard"],
    }


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Column sums (the average path length weighted by the games' answerable DF counts is not defined: None)."""
    out: dict[str, Any] = {"game": "total"}
    for key, _ in TABLE_COLUMNS[1:]:
        if key in ("avg_len", "cutoff"):
            out[key] = None
        else:
            out[key] = sum(r[key] or 0 for r in rows)
    return out
