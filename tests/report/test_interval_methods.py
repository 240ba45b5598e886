"""One interval method per metric, declared with it: an all-zero run and a mixed run of BALROG Crafter's
progression get the same method in report, compare, the viewer and plots, and the all-zero run's interval
is the method's own bound, not a Wilson interval beside a bootstrap one (issue 28)."""

import json
from pathlib import Path
from typing import Any

import pytest
from matplotlib.colors import to_rgba

from helpers import only_run_dir, run_cli
from playbench.log import read_run
from playbench.report import plots
from playbench.report.build import build_report, score_metric
from playbench.stats import summarize
from playbench.stats.intervals import Z95
from playbench.suites.balrog.facts import PARTIAL, SUCCESS

TASK = "balrog/crafter/default"
EPISODES = 6
#: Wilson's upper end at 0 of n: the bound of a bounded mean whose sample has no spread
ZERO_BOUND = Z95 ** 2 / (EPISODES + Z95 ** 2)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The random agent on Crafter: one step never unlocks an achievement, 150 steps sometimes do."""
    out = {}
    for name, steps in (("zero", 1), ("mixed", 150)):
        log = tmp_path_factory.mktemp(name)
        res = run_cli("eval", TASK, "--agent", "random", "--episodes", str(EPISODES), "-T", f"max_steps={steps}",
                      "--seed", "3", "--label", f"crafter {name}", "--log-dir", str(log), "--quiet")
        assert res.returncode == 0, res.stderr
        out[name] = only_run_dir(log)
    return out


@pytest.fixture(scope="module")
def reports(runs) -> dict[str, dict[str, Any]]:
    return {name: json.loads(run_cli("report", str(path), "--json").stdout) for name, path in runs.items()}


def test_the_metric_is_declared_in_the_facts():
    assert score_metric(TASK) == PARTIAL and (PARTIAL.kind, PARTIAL.low, PARTIAL.high) == ("bounded-mean", 0, 1)
    assert score_metric("balrog/babyai/goto") == SUCCESS and SUCCESS.kind == "rate"
    assert score_metric("mango/df").kind == "rate"
    assert score_metric("smartplay/hanoi-3").high == 3.0 and score_metric("smartplay/crafter").kind == "mean"
    assert score_metric("grasp/energy").kind == "mean"  # a suite that declares nothing: a plain mean


def test_same_method_and_a_bounded_zero_interval_in_the_report(reports):
    zero, mixed = (reports[k]["tasks"][TASK]["score"] for k in ("zero", "mixed"))
    assert zero["mean"] == 0.0 and zero["stderr"] == 0.0 and zero["n"] == EPISODES
    assert mixed["mean"] > 0 and mixed["stderr"] > 0  # the mixed run holds more than one value
    assert zero["ci_method"] == mixed["ci_method"] == "bootstrap"
    # no spread: not [0, 0] (which reads as certain) and not wider than Wilson's 0 of n on the range
    lo, hi = zero["ci95"]
    assert lo == 0.0 and hi == pytest.approx(ZERO_BOUND) and 0.38 < hi < 0.40
    # with spread: the bootstrap, inside the values observed (so inside [0, 1])
    values = [r.score for r in read_run(reports["mixed"]["run"]["path"]).episodes()]
    assert min(values) <= mixed["ci95"][0] < mixed["mean"] < mixed["ci95"][1] <= max(values)
    assert mixed["ci95"] == summarize(values, PARTIAL)["ci95"]
    # BALROG's own table: the same method, in percent
    zero_env, mixed_env = (reports[k]["balrog"]["envs"]["crafter"] for k in ("zero", "mixed"))
    assert zero_env["ci_method"] == mixed_env["ci_method"] == "bootstrap"
    assert zero_env["ci95"] == pytest.approx([0.0, 100 * ZERO_BOUND])
    assert mixed_env["ci95"] == pytest.approx([100 * x for x in mixed["ci95"]])


def test_rates_stay_wilson_whatever_the_values():
    """BabyAI's success, declared a rate: all zeros and a mix both get Wilson; n zeros give the same bound."""
    zero, mixed = summarize([0.0] * EPISODES, SUCCESS), summarize([0.0, 1.0] * 3, SUCCESS)
    assert zero["ci_method"] == mixed["ci_method"] == "wilson"
    assert zero["ci95"] == pytest.approx([0.0, ZERO_BOUND])
    assert summarize([0.0] * EPISODES, PARTIAL)["ci95"] == zero["ci95"]  # the range bound is Wilson's


def test_compare_gives_each_run_the_reports_interval(runs, reports):
    out = json.loads(run_cli("compare", str(runs["zero"]), str(runs["mixed"]), "--json").stdout)
    task = out["tasks"][TASK]
    assert task["paired"] and task["n"] == EPISODES and task["interval_method"] == "bootstrap"
    assert task["interval_a"] == pytest.approx(reports["zero"]["tasks"][TASK]["score"]["ci95"])
    assert task["interval_b"] == pytest.approx(reports["mixed"]["tasks"][TASK]["score"]["ci95"])


def test_the_viewer_draws_the_reports_interval(runs, reports, tmp_path):
    res = run_cli("view", str(runs["zero"]), str(runs["mixed"]), "--output", str(tmp_path / "site"))
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "site" / "index.html").read_text()
    assert f"95% interval 0.000 to {ZERO_BOUND:.3f} (n={EPISODES})" in page
    lo, hi = reports["mixed"]["tasks"][TASK]["score"]["ci95"]
    assert f"95% interval {lo:.3f} to {hi:.3f} (n={EPISODES})" in page


def _figures(monkeypatch, make, reports: list[dict[str, Any]]) -> list[Any]:
    """The matplotlib figures ``make`` draws, kept instead of saved."""
    kept: list[Any] = []
    monkeypatch.setattr(plots, "_save", lambda fig, out, name, tight=True: kept.append(fig) or [])
    make(reports, Path("unused"))
    return kept


def _error_bars(ax: Any) -> list[tuple[float, float, float]]:
    """(x, low end, high end) of every error bar drawn on ``ax``."""
    out = []
    for container in ax.containers:
        if getattr(container, "errorbar", None) is None:
            continue
        for segment in container.errorbar.lines[2][0].get_segments():
            (x, lo), (_, hi) = segment
            out.append((float(x), float(lo), float(hi)))
    return out


def test_plots_draw_the_reports_interval_one_colour_per_run_and_a_visible_zero(runs, monkeypatch):
    built = [build_report(read_run(runs[k])) for k in ("zero", "mixed")]
    stats = [r["tasks"][TASK]["score"] for r in built]
    (fig,) = _figures(monkeypatch, plots.task_scores, built)
    ax = fig.axes[0]
    bars = sorted(_error_bars(ax))
    assert [end for _, lo, hi in bars for end in (lo, hi)] == pytest.approx([x for s in stats for x in s["ci95"]])
    colours = {round(p.get_x() + p.get_width() / 2): p.get_facecolor() for p in ax.patches if p.get_height() > 0}
    assert colours == {1: to_rgba("C1")}  # the mixed run's bar; the zero run's mean is 0 ...
    zero_lines = [c for c in ax.collections if c.get_segments() and all(y == 0 for seg in c.get_segments()
                                                                      for _, y in seg)]
    assert zero_lines and tuple(zero_lines[0].get_colors()[0]) == to_rgba("C0")  # ... drawn as a line at 0
    # BALROG's figure: each run keeps its colour and its environment bar carries the same interval (in %)
    (fig,) = _figures(monkeypatch, plots.suite_plots, built)
    ax = fig.axes[0]
    crafter = [b for b in _error_bars(ax) if b[0] < 0.8]  # the first group (crafter), one bar per run
    expected = [x for r in built for x in r["balrog"]["envs"]["crafter"]["ci95"]]  # percent already
    assert [end for _, lo, hi in sorted(crafter) for end in (lo, hi)] == pytest.approx(expected)
    legend = {t.get_text(): h.get_facecolor() for t, h in zip(ax.get_legend().get_texts(),
                                                             ax.get_legend().legend_handles, strict=True)}
    assert legend == {"crafter zero": to_rgba("C0"), "crafter mixed": to_rgba("C1")}
