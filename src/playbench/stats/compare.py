"""Paired comparison of two sides: mean difference, bootstrap CI, Wilcoxon test; unpaired fallback.

The same for an aggregate over strata (BALROG's mean of environment means), resampled within each stratum.
"""

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


#: Up to this many pairs with a zero or tied difference, scipy's test flips every sign (2**n of them).
_FLIPPED = 13


def wilcoxon_p(diffs: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value; 1.0 when every difference is zero, None for no pairs."""
    d = np.asarray(diffs, dtype=float)
    if len(d) == 0:
        return None
    if np.all(d == 0):
        return 1.0
    nonzero = np.abs(d[d != 0])
    if len(d) <= _FLIPPED and (len(nonzero) < len(d) or len(np.unique(nonzero)) < len(nonzero)):
        return _flipped_p(d, nonzero)
    return float(_st.wilcoxon(d, zero_method="wilcox").pvalue)


def _flipped_p(d: np.ndarray, nonzero: np.ndarray) -> float:
    """The p scipy's ``wilcoxon`` gives by its exact permutation test over every sign flip, computed at once.

    scipy runs that test when a zero or a tie leaves its exact table invalid, calling the statistic once per
    flip (~0.1 s a task); here the null distribution of the rank sum is every subset sum of the ranks of the
    non-zero differences (zeros flip to zeros: they scale every count alike), compared with scipy's tolerance.
    """
    ranks = _st.rankdata(nonzero)
    observed = float(ranks[d[d != 0] > 0].sum())
    flips = (np.arange(1 << len(ranks))[:, None] >> np.arange(len(ranks))) & 1
    null = flips @ ranks
    gamma = abs(observed) * np.finfo(float).eps * 100
    low = np.count_nonzero(null <= observed + gamma) / len(null)
    high = np.count_nonzero(null >= observed - gamma) / len(null)
    return float(min(1.0, 2 * min(low, high)))


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


# -- an aggregate over strata: BALROG's figure (the mean over environments of each one's mean) ----------------

#: Values drawn at once by the stratified resampling (resamples x a stratum's size), to bound memory.
_CHUNK = 2_000_000


def aggregate(groups: Sequence[Sequence[float]]) -> float | None:
    """The mean over ``groups`` of each group's mean (None without a non-empty group)."""
    means = [float(np.mean(g)) for g in groups if len(g)]
    return float(np.mean(means)) if means else None


def _resampled_aggregate(groups: Sequence[np.ndarray], rng: np.random.Generator, resamples: int,
                         signs: bool = False) -> np.ndarray:
    """The aggregate of ``resamples`` resamples, each group resampled within itself (or its signs flipped)."""
    total = np.zeros(resamples)
    for values in groups:
        n = len(values)
        step = max(1, _CHUNK // n)
        for start in range(0, resamples, step):
            rows = min(resamples, start + step) - start
            if signs:
                drawn = values * rng.choice((-1.0, 1.0), size=(rows, n))
            else:
                drawn = values[rng.integers(0, n, size=(rows, n))]
            total[start:start + rows] += drawn.mean(axis=1)
    return total / len(groups)


def bootstrap_aggregates(groups: Sequence[Sequence[float]], resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """``resamples`` bootstrap draws of ``aggregate(groups)``, each group resampled within itself (stratified).

    Empty without a non-empty group. ``board`` ranks rows by such draws, one seed per row.
    """
    kept = [np.asarray(g, dtype=float) for g in groups if len(g)]
    return _resampled_aggregate(kept, np.random.default_rng(seed), resamples) if kept else np.empty(0)


def stratified_paired_ci(diffs: Sequence[Sequence[float]], resamples: int = 10_000,
                         seed: int = 0) -> list[float | None]:
    """95% percentile bootstrap CI of the aggregate of paired differences, pairs resampled within their group."""
    groups = [np.asarray(d, dtype=float) for d in diffs if len(d)]
    if not groups:
        return [None, None]
    means = _resampled_aggregate(groups, np.random.default_rng(seed), resamples)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]


def stratified_sign_flip_p(diffs: Sequence[Sequence[float]], resamples: int = 10_000, seed: int = 0) -> float | None:
    """Two-sided p of the aggregate of paired differences by random sign flips (1.0 when every difference is 0).

    Under "no difference" each pair's difference is as likely negative as positive; flipping signs within
    every group keeps the groups' sizes, so the test weighs groups as the aggregate does.
    """
    groups = [np.asarray(d, dtype=float) for d in diffs if len(d)]
    if not groups:
        return None
    if all(not g.any() for g in groups):
        return 1.0
    observed = abs(float(np.mean([g.mean() for g in groups])))
    flipped = np.abs(_resampled_aggregate(groups, np.random.default_rng(seed), resamples, signs=True))
    # a relative tolerance so that a flip equal to the observed value in exact arithmetic counts as reaching it
    reached = int(np.count_nonzero(flipped >= observed * (1 - 1e-9)))
    return (1 + reached) / (1 + resamples)


def paired_aggregate(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Statistics of ``aggregate(b) - aggregate(a)`` over aligned groups of aligned pairs.

    The interval is a bootstrap of pairs resampled within their group (stratified), the p-value a stratified
    sign-flip test; both seeded, so a comparison is a pure function of its scores.
    """
    diffs = [[y - x for x, y in zip(ga, gb, strict=True)] for ga, gb in zip(a, b, strict=True)]
    mean_a, mean_b = aggregate(a), aggregate(b)
    return {
        "paired": True,
        "n": sum(len(d) for d in diffs),
        "groups": sum(1 for d in diffs if d),
        "mean_a": mean_a,
        "mean_b": mean_b,
        "mean_diff": aggregate(diffs),
        "ci95": stratified_paired_ci(diffs),
        "test": "stratified sign-flip",
        "p_value": stratified_sign_flip_p(diffs),
    }


def unpaired_aggregate(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], resamples: int = 10_000,
                       seed: int = 0) -> dict[str, Any]:
    """``aggregate(b) - aggregate(a)`` over groups both sides hold, for sides that share no episode.

    Each side is resampled within each group on its own (a stratified bootstrap of independent samples);
    there is no p-value.
    """
    kept = [(np.asarray(ga, dtype=float), np.asarray(gb, dtype=float)) for ga, gb in zip(a, b, strict=True)
            if len(ga) and len(gb)]
    out: dict[str, Any] = {"paired": False, "n": 0, "n_a": sum(len(ga) for ga, _ in kept),
                           "n_b": sum(len(gb) for _, gb in kept), "groups": len(kept),
                           "test": "stratified bootstrap (unpaired)", "mean_a": None, "mean_b": None,
                           "mean_diff": None, "ci95": [None, None], "p_value": None}
    if not kept:
        return out
    mean_a = float(np.mean([ga.mean() for ga, _ in kept]))
    mean_b = float(np.mean([gb.mean() for _, gb in kept]))
    rng = np.random.default_rng(seed)
    drawn_a = _resampled_aggregate([ga for ga, _ in kept], rng, resamples)
    drawn_b = _resampled_aggregate([gb for _, gb in kept], rng, resamples)
    out.update(mean_a=mean_a, mean_b=mean_b, mean_diff=mean_b - mean_a,
               ci95=[float(np.percentile(drawn_b - drawn_a, 2.5)), float(np.percentile(drawn_b - drawn_a, 97.5))])
    return out
