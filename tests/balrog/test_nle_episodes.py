"""Whole episodes through the real runner: oracles on MiniHack, a random NetHackChallenge game, progression."""

import asyncio

import numpy as np

import playbench.suites.balrog.nle.tasks  # noqa: F401  (registers the tasks)
from playbench.agents.reference import ReferenceAgent
from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed
from playbench.runner.plan import EpisodeJob
from playbench.runner.runner import play_episode
from playbench.suites.balrog.nle.progression import NetHackProgress, table_progress


def _play(task_id: str, policy: str, n: int, params: dict | None = None) -> list:
    task = get_task(task_id)
    p = task.params(params or {})
    records = []
    for i in range(n):
        job = EpisodeJob(task, p, i, episode_seed(0, task_id, i))
        record, _ = asyncio.run(play_episode(job, ReferenceAgent(policy), policy, None))
        assert record.status == "ok", record.error
        records.append(record)
    return records


def test_oracle_solves_mazewalk_9x9() -> None:
    records = _play("balrog/minihack/mazewalk-9x9", "oracle", 20)
    assert sum(r.completion for r in records) / 20 >= 0.9
    assert all(r.score == r.completion for r in records)


def test_oracle_solves_corridor_r3() -> None:
    records = _play("balrog/minihack/corridor-r3", "oracle", 20)
    assert sum(r.completion for r in records) / 20 >= 0.9


def test_oracle_solves_every_generated_boxoban_level() -> None:
    records = _play("balrog/minihack/boxoban-medium", "oracle", 8) + _play("balrog/minihack/boxoban-hard", "oracle", 4)
    assert all(r.completion == 1.0 and r.score == 1.0 for r in records)
    assert all(r.instance["level_source"] == "generated" for r in records)


def test_random_nethack_episode_runs_to_its_end() -> None:
    (record,) = _play("balrog/nle/nethackchallenge", "random", 1)
    assert 0.0 <= record.score <= 1.0 and 0.0 <= record.progress <= 1.0
    assert record.metrics["end_reason"].split(":")[0] in ("DEATH", "ABORTED") and record.steps > 10
    assert record.instance["env_id"] == "NetHackChallenge-v0"


def test_progression_vector_and_ascension() -> None:
    blstats = np.zeros(27, dtype=np.int64)
    tracker = NetHackProgress()
    for depth, xp in [(1, 1), (2, 1), (3, 2), (3, 4), (1, 3)]:
        blstats[12], blstats[18] = depth, xp
        tracker.update(blstats, 0.0, False, None, False)
    assert tracker.progression == 0.024160136550546978 == table_progress(3, 4)
    assert tracker.highest_achievement == "Xp:4"
    tracker.update(blstats, 0.0, True, "ASCENDED", True)
    assert tracker.progression == 1.0  # B16 fixed
    compat = NetHackProgress(compat=True)
    compat.update(blstats, 0.0, True, "ASCENDED", True)
    assert compat.progression < 1.0


def test_minihack_success_comes_from_the_end_status() -> None:
    from playbench.suites.balrog.nle.progression import MiniHackProgress

    fixed, compat = MiniHackProgress(), MiniHackProgress(compat=True)
    for tracker in (fixed, compat):
        tracker.update(0.99, 2)  # success step that also carries the -0.01 penalty (B12)
    assert fixed.progression == 1.0 and compat.progression == 0.0


def test_automore_leaves_no_more_prompt_and_spends_engine_steps() -> None:
    task = get_task("balrog/nle/nethackchallenge")
    game = task.make_game(task.params({}), 0)
    rng = np.random.default_rng(0)
    game.reset(seed=0)
    agent_steps, done = 0, False
    while not done and agent_steps < 300:
        _, _, terminated, truncated, info = game.step(game.reference_action("random", rng))
        done, agent_steps = terminated or truncated, agent_steps + 1
        message = info["long_term_context"].split("\n\nlanguage observation:")[0]
        assert done or "--More--" not in message
    assert game.engine.engine_steps() > agent_steps  # MORE presses are engine steps of their own
    game.close()
