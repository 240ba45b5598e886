"""Paired comparison of two runs: mean difference, bootstrap CI, Wilcoxon test; unpaired fallback."""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as _st


def paired_bootstrap_ci(diffs: Sequence[float], resamples: int = 10_000, seed: int = 0) -> list[float | None]:
    """95% percentile bootstrap CI of the mean of paired differences (seeded, so reports are reproducible)."""
    d = np.asarray(diffs, dtype=float)
    if len(d) == 0:
        return [None, None]
    if len(d) == 1:
        return [float(d[0]), float(d[0])]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(d), size=(resamples, len(d)))
    means = d[idx].mean(axis=1)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]


def wilcoxon_p(diffs: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value; 1.0 when every difference is zero, None for no pairs."""
    d = np.asarray(diffs, dtype=float)
    if len(d) == 0:
        return None
    if np.all(d == 0):
        return 1.0
    return float(_st.wilcoxon(d, zero_method="wilcox").pvalue)


def paired(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Statistics of ``b - a`` over aligned pairs."""
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    return {
        "paired": True,
        "n": n,
        "mean_a": float(np.mean(a)) if n else None,
        "mean_b": float(np.mean(b)) if n else None,
        "mean_diff": float(np.mean(diffs)) if n else None,
        "ci95": paired_bootstrap_ci(diffs),
        "test": "wilcoxon signed-rank",
        "p_value": wilcoxon_p(diffs),
    }


def unpaired(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Welch's t-test and a normal-approximation CI of the difference of means, for runs with no shared episodes."""
    na, nb = len(a), len(b)
    out: dict[str, Any] = {"paired": False, "n": 0, "n_a": na, "n_b": nb, "test": "welch t-test",
                           "mean_a": float(np.mean(a)) if na else None, "mean_b": float(np.mean(b)) if nb else None,
                           "mean_diff": None, "ci95": [None, None], "p_value": None}
    if na and nb:
        diff = float(np.mean(b) - np.mean(a))
        out["mean_diff"] = diff
        if na > 1 and nb > 1:
            se = math.sqrt(np.var(a, ddof=1) / na + np.var(b, ddof=1) / nb)
            out["ci95"] = [diff - 1.96 * se, diff + 1.96 * se]
            if se > 0:
                out["p_value"] = float(_st.ttest_ind(b, a, equal_var=False).pvalue)
            else:
                out["p_value"] = 1.0 if diff == 0 else 0.0
    return out
