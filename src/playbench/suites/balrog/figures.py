"""BALROG's figure for ``playbench plot``: average progress per environment and overall."""

from playbench.core.figures import Bars, Figure, Panel, RunSummary, Series, ci_err


def figures(runs: list[RunSummary]) -> list[Figure]:
    """Progress (%) per environment and overall, 95% CI, one bar per run."""
    runs = [(k, s) for k, s in runs if s.get("envs")]
    if not runs:
        return []
    envs = list(dict.fromkeys(e for _, s in runs for e in s["envs"]))
    series = []
    for k, s in runs:
        blocks = [s["envs"].get(e, {}) for e in envs] + [s["overall"]]
        series.append(Series(k, [(b.get("mean"), ci_err(b.get("mean"), b.get("ci95"))) for b in blocks]))
    return [Bars("balrog_progress", "BALROG progress per environment and overall (mean, 95% CI)", "progress (%)",
                 [Panel([*envs, "overall"], series)], size=(1.2 * len(envs) + 4, 3.8), ylim=(0, 100))]
