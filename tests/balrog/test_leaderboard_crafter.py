"""The Crafter re-play of a leaderboard row searches crafter's set-order despawn choices (``leaderboard_crafter``).

A record is made with playbench's own branching engine on a real Crafter world, taking a despawn outcome
that crafter's stable order would not take; the re-play finds that branch and verifies the episode, and an
observation changed after the despawn is a difference at its step. Then the shared Llama-3.2-1B row's
shortest Crafter episode (gated on ``PLAYBENCH_TEST_DATA``): verified, and differing where a cell changes.
"""

import asyncio
import copy
import csv
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from playbench.api.verify import verify
from playbench.core.registry import find_task
from playbench.suites.balrog import leaderboard
from playbench.suites.balrog.leaderboard import Played, Row, Step, read_steps
from playbench.suites.balrog.leaderboard_crafter import (
    Branch,
    _copy,
    could_give,
    crafter_candidates,
    crafter_texts,
    open_crafter,
    root_branch,
    successors,
)
from playbench.suites.balrog.leaderboard_games import compat_game
from playbench.suites.crafter.engine import world_fingerprint
from playbench.suites.crafter.prompts import ACTIONS

#: The worker's recorded seed before the episode (its world is the first draw after it), the answers'
#: generator, the step whose despawn is taken otherwise (6 outcomes; the branch listed second), and where
#: crafter's stable order shows it (found with the same code: this world and walk's first choice the text shows).
WORKER_SEED, WALK_SEED, CHOICE_STEP, OTHER_PICK, SHOWN_AT = 3, 3, 8, 1, 74
MOVES = ["Move West", "Move East", "Move North", "Move South", "Noop", "Do"]
ROW = Row(Path("."), "2025-06-01", "plain", {"ForkProcess-2": [("crafter", "default", 0, WORKER_SEED),
                                                                ("crafter", "default", 1, 77)]})


def _start(world: int | None = None) -> tuple[object, Branch]:
    task = find_task("balrog/crafter/default")
    assert task is not None
    game = compat_game(task, {})
    game.reset(seed=int(np.random.RandomState(WORKER_SEED).randint(0, 2**31 - 1)) if world is None else world)
    return game, root_branch(game.engine, (256,))


def _record(pick_at: int, pick: int) -> tuple[Played, tuple[int, ...]]:
    """The episode as BALROG would have written it had crafter's set taken the ``pick``-th branch at step
    ``pick_at`` (the stable order's elsewhere), and the picks that branch made there."""
    rng = np.random.default_rng(WALK_SEED)
    answers = [str(rng.choice(MOVES)) for _ in range(400)]
    game, branch = _start()
    steps: list[Step] = []
    for k, answer in enumerate(answers):
        stepped = successors(branch, ACTIONS.index(answer), k)
        branch, reward, done = stepped[pick if k == pick_at else 0]
        steps.append(Step(str(k), answer, crafter_texts(branch.engine)[1], str(reward), str(done)))
        if done:
            break
    progression = len(branch.engine.unlocked()) / 22
    made = tuple(p for k, p, _ in branch.picks if k == pick_at)
    game.close()  # type: ignore[attr-defined]
    data = {"process_num": "ForkProcess-2", "num_steps": len(steps), "progression": progression}
    return Played("crafter", "default", "balrog/crafter/default", "balrog/crafter/default", 1, 77, data, steps,
                  early=False), made


def _replayed(episode: Played) -> leaderboard.Difference | None:
    return asyncio.run(leaderboard.replay(episode, ROW, open_crafter))


def test_world_is_the_draw_after_the_workers_seed() -> None:
    episode, _ = _record(-1, 0)
    assert crafter_candidates(episode, ROW)[0] == np.random.RandomState(WORKER_SEED).randint(0, 2**31 - 1)


def test_quick_test_takes_the_true_world_and_refuses_others() -> None:
    """The first observations' materials around the spawn: the world that gave them passes (whatever the first
    answer: a move, another action, one that is no action), the worlds drawn after 19 other seeds do not."""
    episode, _ = _record(-1, 0)
    true = int(np.random.RandomState(WORKER_SEED).randint(0, 2**31 - 1))
    for answer in ("Noop", "Move East", "Do", "no such action"):
        assert could_give(true, replace(episode, steps=[replace(episode.steps[0], answer=answer)]))
    others = [int(np.random.RandomState(seed).randint(0, 2**31 - 1)) for seed in range(20) if seed != WORKER_SEED]
    assert not any(could_give(world, episode) for world in others)


def test_quick_test_takes_a_world_whose_tree_the_first_steps_fell() -> None:
    """Collecting a tree leaves grass: three steps west and a Do fell the tree 4 cells west of the spawn."""
    world = int(np.random.RandomState(66).randint(0, 2**31 - 1))
    game, branch = _start(world)
    steps = []
    for k, answer in enumerate(["Move West"] * 3 + ["Do"]):
        branch, reward, done = successors(branch, ACTIONS.index(answer), k)[0]
        steps.append(Step(str(k), answer, crafter_texts(branch.engine)[1], str(reward), str(done)))
    game.close()  # type: ignore[attr-defined]
    assert "tree 1 steps to your west" in steps[2].observation and "tree 1 " not in steps[3].observation
    played = Played("crafter", "default", "balrog/crafter/default", "balrog/crafter/default", 0, 0, {}, steps, False)
    assert could_give(world, played)


def test_search_finds_the_recorded_despawn() -> None:
    episode, made = _record(CHOICE_STEP, OTHER_PICK)
    stable, _ = _record(-1, 0)
    assert made and any(made)  # not the stable order's choice
    first = next(k for k, (a, b) in enumerate(zip(episode.steps, stable.steps, strict=False)) if a != b)
    assert first == SHOWN_AT  # crafter's stable order alone would part there
    assert episode.steps[-1].done == "True"
    assert _replayed(episode) is None  # verified, to its end, progression and step count
    player = open_crafter(episode, ROW)
    try:
        for step in episode.steps:
            player.step(step.answer)
        assert not player.parted  # type: ignore[attr-defined]
        kept = [tuple(p for k, p, _ in b.picks if k == CHOICE_STEP) for b in player.branches]  # type: ignore[attr-defined]
        assert made in kept and all(any(picks) for picks in kept)  # the stable order's branch was dropped
    finally:
        player.close()


def test_changed_observation_after_the_despawn_differs_at_its_step() -> None:
    episode, _ = _record(CHOICE_STEP, OTHER_PICK)
    at = 40
    episode.steps[at] = replace(episode.steps[at], observation=episode.steps[at].observation + " ")
    difference = _replayed(episode)
    assert difference is not None
    assert (difference.field, difference.step) == ("Observation", at)


def test_copy_shares_no_state() -> None:
    game, branch = _start()
    rng = np.random.default_rng(1)
    for _ in range(60):
        branch.engine.step(int(rng.integers(0, 5)))
    before = world_fingerprint(branch.engine)
    mine, theirs = _copy(branch.engine), copy.deepcopy(branch.engine, {id(branch.engine._textures): branch.engine._textures})
    actions = [int(a) for a in rng.integers(0, len(ACTIONS), 300)]  # through the night: noise draws too
    for action in actions:
        mine.step(action)
        theirs.step(action)
    assert world_fingerprint(branch.engine) == before
    assert world_fingerprint(mine) == world_fingerprint(theirs)
    assert crafter_texts(mine) == crafter_texts(theirs)
    game.close()  # type: ignore[attr-defined]


# -- the shared leaderboard row -------------------------------------------------------------------------------

LLM_ROW = Path("balrog-leaderboard/LLM/20241030_naive-Llama-3.2-1B-Instruct")
EPISODE = "crafter/default/default_run_07.csv"


def _row_with_one_episode(source: Path, target: Path) -> Path:
    """Every episode file of the row (the workers' seeds) with the steps of Crafter's episode 7 only."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.csv", "summary.json"))
    shutil.copy(source / EPISODE, target / EPISODE)
    return target


def _counts(notes: list[str]) -> dict[str, str]:
    return {note.split(":")[0]: note.split(": ", 1)[1] for note in notes if " verified, " in note}


def test_shared_row_episode_verified(shared_data: Path, tmp_path: Path) -> None:
    row = _row_with_one_episode(shared_data / LLM_ROW, tmp_path / "row")
    result = verify(str(row))
    assert _counts(result.notes)["crafter"] == "1 verified, 0 differing, 9 not verifiable"
    [finding] = [f for f in result.findings if f.verdict == "verified"]
    assert finding.name == "balrog/crafter/default #7"


def test_shared_row_changed_observation_differs(shared_data: Path, tmp_path: Path) -> None:
    row = _row_with_one_episode(shared_data / LLM_ROW, tmp_path / "row")
    path = row / EPISODE
    with path.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh, escapechar="˘"))
    at = table[0].index("Observation")
    table[51][at] = table[51][at].replace("You face", "You  face")  # step 50, after despawn choices
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, escapechar="˘", quoting=csv.QUOTE_MINIMAL).writerows(table)
    result = verify(str(row))
    [finding] = [f for f in result.findings if f.verdict == "differs"]
    assert finding.name == "balrog/crafter/default #7"
    assert finding.difference is not None
    assert (finding.difference.field, finding.difference.step) == ("Observation", 50)


#: The world each of the shared row's 10 Crafter episodes shows, found by the candidate search without the
#: quick test (the first candidate whose world gives the episode's first 8, and 16, recorded steps).
WORLDS = (40960885, 188225341, 1665838943, 868659739, 42970951, 2087432221, 1186568905, 1834076410, 850702002,
          1053132526)


def test_quick_test_takes_each_shared_episodes_world(shared_data: Path) -> None:
    """Each episode's world passes the quick test on its first observations; another episode's world rarely."""
    folder = shared_data / LLM_ROW
    episodes = []
    for index in range(10):
        steps, early = read_steps(folder, f"crafter/default/default_run_{index:02d}.csv")
        episodes.append(Played("crafter", "default", "balrog/crafter/default", "balrog/crafter/default", index, 0,
                               {}, steps, early))
    assert all(could_give(world, episode) for world, episode in zip(WORLDS, episodes, strict=True))
    taken = [(i, j) for i, world in enumerate(WORLDS) for j, episode in enumerate(episodes)
             if i != j and could_give(world, episode)]
    assert len(taken) <= 2, taken  # of 90 (episode 2's world passes episode 1's first views, 5's episode 6's)
