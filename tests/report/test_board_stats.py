"""The statistics the board leans on: rank intervals from bootstrap draws, and the Wilcoxon p of ``compare``'s
pairs, whose exact sign-flip test (scipy's for a few pairs with a zero or a tie, 0.1 s each) is computed at once:
the same p as scipy's, so the board can pair leaderboard rows task by task in its time. The board's pairs are
resampled together, with each pair's own figures to the last bit."""

import json

import numpy as np
import pytest
from scipy import stats

import playbench.stats.compare as S
from playbench.report.board import _ranks
from playbench.stats.compare import paired_aggregate, paired_aggregates, paired_bootstrap_ci, wilcoxon_p


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_p_is_scipys_for_zeros_and_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for n in range(2, 14):
        d = rng.integers(-2, 3, size=n).astype(float) if n % 2 else np.round(rng.uniform(-1, 1, n), 1)
        if not d.any():
            continue
        assert wilcoxon_p(list(d)) == pytest.approx(float(stats.wilcoxon(d).pvalue), abs=1e-12, rel=0), d
        checked += 1
    assert checked >= 10
    # progression differences as floats subtract them (0.3 - 0.1 is not 0.2): ties exactly as scipy sees them
    d = np.array([0.3, 0.5, 0.2, 0.2, 0.0]) - np.array([0.1, 0.3, 0.0, 0.1, 0.0])
    assert wilcoxon_p(list(d)) == pytest.approx(float(stats.wilcoxon(d).pvalue), abs=1e-12, rel=0)


def test_rank_intervals_follow_the_draws() -> None:
    rng = np.random.default_rng(0)
    far = {0: rng.normal(0.9, 0.01, 2000), 1: rng.normal(0.1, 0.01, 2000)}
    assert _ranks({0: 0.9, 1: 0.1}, far) == {0: {"rank": 1, "low": 1, "high": 1}, 1: {"rank": 2, "low": 2, "high": 2}}
    # two rows that cannot be told apart: both may be first or second; a third far below is third
    close = {0: rng.normal(0.5, 0.1, 2000), 1: rng.normal(0.5, 0.1, 2000), 2: rng.normal(0.0, 0.01, 2000)}
    ranks = _ranks({0: 0.51, 1: 0.5, 2: 0.0}, close)
    assert ranks[0] == {"rank": 1, "low": 1, "high": 2} and ranks[1] == {"rank": 2, "low": 1, "high": 2}
    assert ranks[2] == {"rank": 3, "low": 3, "high": 3}
    # equal figures share the better rank
    assert _ranks({0: 0.5, 1: 0.5}, {0: np.full(10, 0.5), 1: np.full(10, 0.5)})[1]["rank"] == 1


def _pairs(rng: np.random.Generator, sizes: tuple[int, ...], count: int, kind: str) -> list:
    """``count`` (a, b) pairs of groups of ``sizes``: progressions on 0.01 steps, 0/1 outcomes, or equal halves."""
    out = []
    for _ in range(count):
        if kind == "steps":
            a = [list(np.round(rng.uniform(0, 1, n), 2)) for n in sizes]
            b = [list(np.round(rng.uniform(0, 1, n), 2)) for n in sizes]
        elif kind == "outcomes":  # differences of -1, 0, 1: resampled means tie by the hundred
            a = [list(rng.integers(0, 2, n).astype(float)) for n in sizes]
            b = [list(rng.integers(0, 2, n).astype(float)) for n in sizes]
        else:  # one difference of 0.1 and zeros: many sign flips land exactly on the observed aggregate
            a = [[0.0] * n for n in sizes]
            b = [[0.1] + [0.0] * (n - 1) for n in sizes]
        out.append((a, b))
    return out


@pytest.mark.parametrize("kind", ["steps", "outcomes", "flips"])
def test_pairs_resampled_together_give_each_pairs_own_figures(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``paired_aggregates`` (the board's pairs: one draw, one matrix product) is ``paired_aggregate`` of each."""
    rng = np.random.default_rng(len(kind))
    pairs = _pairs(rng, (12, 30), 9, kind) + _pairs(rng, (7,), 5, kind) + _pairs(rng, (40,), 1, kind)
    pairs.append(([[0.5, float("nan")]], [[0.1, 0.2]]))  # not finite: resampled on its own, as before
    pairs.append(([[0.5, 0.25]], [[0.75, 0.0]]))  # its shape's only other member: also on its own
    pairs.append(([[]], [[]]))  # nothing paired
    alone = [paired_aggregate(a, b) for a, b in pairs]
    resampled_alone = []
    direct = S._resampled_aggregate
    monkeypatch.setattr(S, "_resampled_aggregate", lambda groups, *rest: resampled_alone.append(groups)
                        or direct(groups, *rest))
    together = paired_aggregates(pairs)
    assert json.dumps(together) == json.dumps(alone)  # to the last bit (NaN included)
    # only the three that share no shape were resampled alone (interval, and p unless every difference is 0)
    assert 3 <= len(resampled_alone) <= 6 and all(len(groups[0]) in (2, 40) for groups in resampled_alone)
    if kind != "flips":  # (the flips' pairs are alike)
        assert len({json.dumps(f["ci95"]) for f in together}) > 10


def test_a_pairs_bootstrap_drawn_in_chunks_is_the_one_drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``paired_bootstrap_ci`` draws ``_CHUNK`` indices at a time (bounded memory): the same interval as all at once."""
    rng = np.random.default_rng(5)
    for n in (2, 7, 33):
        diffs = list(np.round(rng.uniform(-1, 1, n), 2))
        idx = np.random.default_rng(0).integers(0, n, size=(10_000, n))  # the draw before chunks
        means = np.asarray(diffs)[idx].mean(axis=1)
        expected = [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]
        monkeypatch.setattr(S, "_CHUNK", 3 * n + 1)  # odd chunks of 3 rows: the generator's stream goes on
        assert paired_bootstrap_ci(diffs) == expected
        monkeypatch.undo()
        assert paired_bootstrap_ci(diffs) == expected
