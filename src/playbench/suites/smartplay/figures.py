"""SmartPlay's figures for ``playbench plot``: normalized score per game, and the capability radar."""

from playbench.core.figures import Bars, Figure, Panel, Polygon, Radar, RunSummary, Series, ci_err


def games(runs: list[RunSummary]) -> Bars | None:
    """Normalized score per game (human- or range-normalized, as labelled), 95% CI, one bar per run."""
    runs = [(k, s) for k, s in runs if s.get("normalized")]
    if not runs:
        return None
    ids = list(dict.fromkeys(t for _, s in runs for t in s["normalized"]))
    series = []
    for k, s in runs:
        values = [s["normalized"].get(g) for g in ids]
        series.append(Series(k, [(v, ci_err(v, s.get("normalized_ci95", {}).get(g))) for v, g in zip(values, ids,
                                                                                                      strict=True)]))
    kinds = runs[0][1].get("normalization", {})
    groups = [g.split("/", 1)[-1] + ("" if kinds.get(g) != "range" else " (range)") for g in ids]
    return Bars("smartplay_games", "SmartPlay normalized score per game (mean, 95% CI)",
                "normalized score (1 = human / max)", [Panel(groups, series)], size=(1.0 * len(ids) + 3.5, 3.8),
                line=1.0)


def capabilities(runs: list[RunSummary]) -> Radar | None:
    """The nine capabilities as a radar, one polygon per run with two or more games (band: ± SE).

    A capability that no supplied game measures is a gap in the polygon, never a 0.
    """
    runs = [(k, s) for k, s in runs if s.get("capabilities") and len(s.get("capability_tasks", [])) >= 2]
    if not runs:
        return None
    names = list(runs[0][1]["capabilities"])
    polygons = []
    for k, s in runs:
        caps, errs = s["capabilities"], s.get("capabilities_stderr", {})
        polygons.append(Polygon(k, [v if isinstance(v := caps.get(n), int | float) else None for n in names],
                                [errs.get(n) or 0.0 for n in names]))
    return Radar("smartplay_capabilities", "SmartPlay capabilities (band: ± SE; n/a: no supplied game measures it)",
                 names, polygons)


def figures(runs: list[RunSummary]) -> list[Figure]:
    """Every SmartPlay figure the runs have data for."""
    return [f for f in (games(runs), capabilities(runs)) if f is not None]
