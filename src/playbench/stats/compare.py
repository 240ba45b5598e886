"""Paired comparison of two sides: mean difference, bootstrap CI, Wilcoxon test; unpaired fallback.

The same for an aggregate over strata (BALROG's mean of environment means), resampled within each stratum.
"""

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar, cast

import numpy as np
from scipy import stats as _st

T = TypeVar("T")


def paired_bootstrap_ci(diffs: Sequence[float], resamples: int = 10_000, seed: int = 0) -> list[float | None]:
    """95% percentile bootstrap CI of the mean of paired differences (seeded, so reports are reproducible)."""
    d = np.asarray(diffs, dtype=float)
    if len(d) == 0:
        return [None, None]
    if len(d) == 1:
        return [float(d[0]), float(d[0])]
    # drawn _CHUNK values at a time (a 16,000-pair task took 2.5 GB of indices and values at once): the generator
    # continues its stream across calls, so the draws, and the interval, are those of one draw of them all
    draws = _draws(np.random.default_rng(seed), len(d), resamples, signs=False)
    means = np.concatenate([d[idx].mean(axis=1) for idx in draws])
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

#: Values drawn at once by the resampling (resamples x a stratum's size), to bound memory.
_CHUNK = 2_000_000
#: Many comparisons whose strata have the same sizes share one draw of at most this many values (8 bytes each).
_SHARED = 2_000_000
#: Comparisons resampled together in one matrix product (it holds resamples x this many values).
_BATCH = 128
#: The unit roundoff of float64: one rounded operation's relative error is at most this.
_UNIT = float(np.finfo(float).eps) / 2


def aggregate(groups: Sequence[Sequence[float]]) -> float | None:
    """The mean over ``groups`` of each group's mean (None without a non-empty group)."""
    means = [float(np.mean(g)) for g in groups if len(g)]
    return float(np.mean(means)) if means else None


def _draws(rng: np.random.Generator, n: int, resamples: int, signs: bool) -> Iterator[np.ndarray]:
    """One group's draws, up to ``_CHUNK`` values at a time: ``resamples`` rows of ``n`` indices (or signs)."""
    step = max(1, _CHUNK // n)
    for start in range(0, resamples, step):
        rows = min(resamples, start + step) - start
        yield rng.choice((-1.0, 1.0), size=(rows, n)) if signs else rng.integers(0, n, size=(rows, n))


def _aggregate_of(groups: Sequence[np.ndarray], draws: Iterable[Iterable[np.ndarray]], resamples: int,
                  signs: bool) -> np.ndarray:
    """The aggregate of each resample, each group resampled by its draws (``_draws``: indices, or signs)."""
    total = np.zeros(resamples)
    for values, chunks in zip(groups, draws, strict=True):
        start = 0
        for drawn in chunks:
            total[start:start + len(drawn)] += (values * drawn if signs else values[drawn]).mean(axis=1)
            start += len(drawn)
    return total / len(groups)


def _resampled_aggregate(groups: Sequence[np.ndarray], rng: np.random.Generator, resamples: int,
                         signs: bool = False) -> np.ndarray:
    """The aggregate of ``resamples`` resamples, each group resampled within itself (or its signs flipped)."""
    return _aggregate_of(groups, (_draws(rng, len(g), resamples, signs) for g in groups), resamples, signs)


#: Which resamples of a batch of comparisons (their indices; aggregates, a row each; bounds) need exact values.
Near = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _many_aggregates(many: Sequence[Sequence[np.ndarray]], resamples: int, seed: int, signs: bool, near: Near,
                     finish: Callable[[int, np.ndarray], T]) -> list[T]:
    """``finish(i, _resampled_aggregate(many[i], default_rng(seed), resamples, signs))`` for each of ``many``.

    A seeded draw depends only on the groups' sizes, so comparisons of the same sizes share one draw, and
    their aggregates come from one matrix product (each resample's counts of each index, or its signs, times
    every comparison's values) instead of one gather each. A product sums in another order, so its
    aggregates may differ from ``_resampled_aggregate``'s in the last bits. Both are within ``n + groups + 3``
    roundings of the value in exact arithmetic (any order of a sum of ``n`` terms is within ``(n - 1) u
    sum|x|``), so each is within a bound (8 times that, for the largest magnitude) of the other, and the
    resamples ``near`` picks from it, those a percentile or a count could turn on, are computed as
    ``_resampled_aggregate`` computes them: ``finish`` gives what it gives on the exact aggregates.
    """
    out: list[T | None] = [None] * len(many)
    classes: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for i, groups in enumerate(many):
        classes[tuple(len(g) for g in groups)].append(i)
    for sizes, members in classes.items():
        together = [i for i in members if all(np.isfinite(g).all() for g in many[i])]
        if len(together) < 2 or resamples * sum(sizes) > _SHARED:  # nothing to share, or too large to hold
            together = []
        for i in sorted(set(members) - set(together)):
            out[i] = finish(i, _resampled_aggregate(many[i], np.random.default_rng(seed), resamples, signs))
        if together:
            rng = np.random.default_rng(seed)
            drawn = [np.concatenate(list(_draws(rng, n, resamples, signs))) for n in sizes]
            weights = drawn if signs else [_counts(d, n) for d, n in zip(drawn, sizes, strict=True)]
            for start in range(0, len(together), _BATCH):
                batch = together[start:start + _BATCH]
                for i, means in zip(batch, _refined(many, batch, drawn, weights, signs, near), strict=True):
                    out[i] = finish(i, means)
    return cast(list[T], out)


def _counts(drawn: np.ndarray, n: int) -> np.ndarray:
    """Per resample (row of ``drawn`` indices), how many times each of the ``n`` values was drawn."""
    rows = len(drawn)
    flat = (drawn + n * np.arange(rows)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)


def _refined(many: Sequence[Sequence[np.ndarray]], batch: list[int], drawn: list[np.ndarray],
             weights: list[np.ndarray], signs: bool, near: Near) -> np.ndarray:
    """The batch's aggregates by matrix products (a row each), exact in the resamples ``near`` picks."""
    sizes = [len(d[0]) for d in drawn]
    approx = sum(w @ np.column_stack([many[i][g] for i in batch]) / n
                 for g, (w, n) in enumerate(zip(weights, sizes, strict=True))) / len(sizes)
    means = np.ascontiguousarray(np.asarray(approx).T)
    tops = np.array([max(float(np.abs(g).max()) for g in many[i]) for i in batch])
    picked = near(np.array(batch), means, 8 * (max(sizes) + len(sizes) + 3) * _UNIT * tops)
    for j, i in enumerate(batch):
        rows = np.flatnonzero(picked[j])
        if len(rows):
            means[j, rows] = _aggregate_of(many[i], [[d[rows]] for d in drawn], len(rows), signs)
    return means


def _near_percentiles(_: np.ndarray, means: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The resamples whose exact value may be an order statistic that the 2.5th or 97.5th percentile reads.

    The k-th smallest exact value is within ``bound`` of the k-th smallest approximation, so a resample whose
    approximation is farther than ``2 bound`` from that is below or above it in exact values too: with every
    resample within that distance exact, the order statistic is exact (one ``bound`` more covers the rounding
    of the distance itself).
    """
    last = means.shape[1] - 1
    picked = np.zeros(means.shape, dtype=bool)
    for q in (0.025, 0.975):  # the two order statistics np.percentile interpolates between, and one more each side
        positions = [min(last, max(0, int(q * last) + k)) for k in (-1, 0, 1, 2)]
        stats = np.partition(means, positions, axis=1)[:, positions]
        margin = 3 * bounds
        picked |= (means >= (stats[:, 0] - margin)[:, None]) & (means <= (stats[:, -1] + margin)[:, None])
    return picked


def bootstrap_aggregates(groups: Sequence[Sequence[float]], resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """``resamples`` bootstrap draws of ``aggregate(groups)``, each group resampled within itself (stratified).

    Empty without a non-empty group. ``board`` ranks rows by such draws, one seed per row.
    """
    kept = [np.asarray(g, dtype=float) for g in groups if len(g)]
    return _resampled_aggregate(kept, np.random.default_rng(seed), resamples) if kept else np.empty(0)


def stratified_paired_ci(diffs: Sequence[Sequence[float]], resamples: int = 10_000,
                         seed: int = 0) -> list[float | None]:
    """95% percentile bootstrap CI of the aggregate of paired differences, pairs resampled within their group."""
    return stratified_paired_cis([diffs], resamples, seed)[0]


def stratified_paired_cis(many: Sequence[Sequence[Sequence[float]]], resamples: int = 10_000,
                          seed: int = 0) -> list[list[float | None]]:
    """``stratified_paired_ci`` of each of ``many``: the same intervals, drawn once for comparisons of one shape."""
    kept = [[np.asarray(d, dtype=float) for d in diffs if len(d)] for diffs in many]
    some = [i for i, groups in enumerate(kept) if groups]

    def ci(_: int, means: np.ndarray) -> list[float | None]:
        return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]

    out: list[list[float | None]] = [[None, None] for _ in many]
    for i, found in zip(some, _many_aggregates([kept[i] for i in some], resamples, seed, False, _near_percentiles,
                                               ci), strict=True):
        out[i] = found
    return out


def stratified_sign_flip_p(diffs: Sequence[Sequence[float]], resamples: int = 10_000, seed: int = 0) -> float | None:
    """Two-sided p of the aggregate of paired differences by random sign flips (1.0 when every difference is 0).

    Under "no difference" each pair's difference is as likely negative as positive; flipping signs within
    every group keeps the groups' sizes, so the test weighs groups as the aggregate does.
    """
    return stratified_sign_flip_ps([diffs], resamples, seed)[0]


def stratified_sign_flip_ps(many: Sequence[Sequence[Sequence[float]]], resamples: int = 10_000,
                            seed: int = 0) -> list[float | None]:
    """``stratified_sign_flip_p`` of each of ``many``: the same p-values, drawn once for comparisons of one shape."""
    kept = [[np.asarray(d, dtype=float) for d in diffs if len(d)] for diffs in many]
    out: list[float | None] = [None if not groups else 1.0 for groups in kept]
    some = [i for i, groups in enumerate(kept) if any(g.any() for g in groups)]
    # a relative tolerance so that a flip equal to the observed value in exact arithmetic counts as reaching it
    bars = np.array([abs(float(np.mean([g.mean() for g in kept[i]]))) * (1 - 1e-9) for i in some])

    def near(batch: np.ndarray, means: np.ndarray, bounds: np.ndarray) -> np.ndarray:  # either side of the bar
        return np.abs(np.abs(means) - bars[batch][:, None]) <= 2 * bounds[:, None]

    def p(j: int, flipped: np.ndarray) -> float:
        return (1 + int(np.count_nonzero(np.abs(flipped) >= bars[j]))) / (1 + resamples)

    for i, found in zip(some, _many_aggregates([kept[i] for i in some], resamples, seed, True, near, p), strict=True):
        out[i] = found
    return out


def paired_aggregate(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Statistics of ``aggregate(b) - aggregate(a)`` over aligned groups of aligned pairs.

    The interval is a bootstrap of pairs resampled within their group (stratified), the p-value a stratified
    sign-flip test; both seeded, so a comparison is a pure function of its scores.
    """
    return paired_aggregates([(a, b)])[0]


def paired_aggregates(pairs: Sequence[tuple[Sequence[Sequence[float]], Sequence[Sequence[float]]]]) -> list[dict[str, Any]]:
    """``paired_aggregate`` of each of ``pairs``: the same figures, those of one shape resampled together."""
    diffs = [[[y - x for x, y in zip(ga, gb, strict=True)] for ga, gb in zip(a, b, strict=True)] for a, b in pairs]
    cis, ps = stratified_paired_cis(diffs), stratified_sign_flip_ps(diffs)
    return [{
        "paired": True,
        "n": sum(len(g) for g in d),
        "groups": sum(1 for g in d if g),
        "mean_a": aggregate(a),
        "mean_b": aggregate(b),
        "mean_diff": aggregate(d),
        "ci95": ci,
        "test": "stratified sign-flip",
        "p_value": p,
    } for (a, b), d, ci, p in zip(pairs, diffs, cis, ps, strict=True)]


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
