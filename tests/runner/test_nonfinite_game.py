"""A game that reports NaN or an infinity is that episode's ``game-error``, said in one line; the run goes on.

Records refuse numbers that are not finite, so such a report can be neither recorded as it is nor allowed to
escape as a traceback. Hanoi games are made to report one (a reward or a score at a step, a metric or the
progress at the end) in episode 1 only: that episode is a ``game-error`` naming the field, and episodes 0 and 2
are recorded exactly as in a run where nothing was changed.
"""

import json
import math
from pathlib import Path
from typing import Any

import pytest

import playbench
from helpers import stable_lines
from playbench.core.seeding import episode_seed
from playbench.suites.smartplay.hanoi import HanoiGame

TASK = "smartplay/hanoi-3"
SEED = 0
BAD = 1  # the episode whose game reports a number that is no number
AT_STEP = 1  # the step at which it does so (step reports)


def _poison(monkeypatch: pytest.MonkeyPatch, field: str) -> None:
    """Make the game of episode ``BAD`` report NaN or infinity as its ``field``."""
    target = episode_seed(SEED, TASK, BAD)
    reset, step, metrics = HanoiGame.reset, HanoiGame.step, HanoiGame._metrics
    progress = HanoiGame.progress

    def poisoned(game: HanoiGame) -> bool:
        return getattr(game, "poisoned_seed", None) == target

    def reset_(self: HanoiGame, *, seed: int | None = None, options: dict | None = None) -> Any:
        setattr(self, "poisoned_seed", seed)  # noqa: B010  (a mark of this test's, not the game's attribute)
        return reset(self, seed=seed, options=options)

    def step_(self: HanoiGame, action: str) -> Any:
        obs, reward, terminated, truncated, info = step(self, action)
        if poisoned(self) and self.t == AT_STEP + 1:
            if field == "reward":
                reward = math.nan
            elif field == "score":
                info = {**info, "score": math.inf}
        return obs, reward, terminated, truncated, info

    def metrics_(self: HanoiGame) -> dict[str, Any]:
        found = metrics(self)
        return {**found, "moves": -math.inf} if poisoned(self) and field == "metrics" else found

    def progress_(self: HanoiGame) -> float:
        return math.nan if poisoned(self) and field == "progress" else progress.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(HanoiGame, "reset", reset_)
    monkeypatch.setattr(HanoiGame, "step", step_)
    monkeypatch.setattr(HanoiGame, "_metrics", metrics_)
    monkeypatch.setattr(HanoiGame, "progress", property(progress_))


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run with nothing changed."""
    run = playbench.eval(TASK, agent="random", episodes=3, seed=SEED, log_dir=tmp_path_factory.mktemp("clean"))
    assert run.status_counts == {"ok": 3}
    return run.path


@pytest.mark.parametrize(("field", "error"), [
    ("reward", f"the game's reward is nan, not a finite number (step {AT_STEP})"),
    ("score", f"the game's score is inf, not a finite number (step {AT_STEP})"),
    ("metrics", "the game's metrics.moves is -inf, not a finite number"),
    ("progress", "the game's progress is nan, not a finite number"),
])
def test_a_non_finite_number_from_the_game_is_its_game_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: Path, field: str, error: str) -> None:
    with monkeypatch.context() as patched:
        _poison(patched, field)
        run = playbench.eval(TASK, agent="random", episodes=3, seed=SEED, log_dir=tmp_path)
    records = {r.index: r for r in playbench.read_run(run.path).episodes()}
    assert {i: r.status for i, r in records.items()} == {0: "ok", 1: "game-error", 2: "ok"}
    bad = records[BAD]
    assert bad.error == error  # one line, naming the field; no traceback
    assert (bad.score, bad.completion, bad.progress, bad.metrics) == (None, None, None, {})
    assert math.isfinite(bad.reward)
    if field in ("reward", "score"):
        assert bad.steps == AT_STEP  # the steps before the report are kept; the reported one cannot be
    # the other episodes are recorded exactly as in the clean run
    def others(path: Path) -> list[str]:
        return [line for line in stable_lines(path) if json.loads(line)["index"] != BAD]

    assert len(others(run.path)) == 2 and others(run.path) == others(clean)
