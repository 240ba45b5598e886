"""A ``-T KEY=VALUE`` goes to the tasks named that take KEY; one that none takes is refused in one line.

Hanoi takes no ``images``; SmartPlay's Crafter does. The same flows through the command line, the library
(``playbench.eval``) and ``--resume``: run.json records each task's own parameters, and a resumed run plays each
task with exactly those.
"""

import json
from pathlib import Path

import pytest

import playbench
from helpers import only_run_dir, run_cli
from playbench.core.errors import PlaybenchError

HANOI, CRAFTER = "smartplay/hanoi-3", "smartplay/crafter"
PAIR = (HANOI, CRAFTER, "-T", "images=true", "-T", "max_steps=3", "--episodes", "2", "--quiet")


def _params(run: Path) -> dict[str, dict]:
    """Each task's parameters as run.json records them."""
    return {t["id"]: t["params"] for t in json.loads((run / "run.json").read_text())["config"]["tasks"]}


def test_a_parameter_goes_only_to_the_tasks_that_take_it(tmp_path: Path) -> None:
    done = run_cli("eval", *PAIR, "--log-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    params = _params(only_run_dir(tmp_path))
    assert params[CRAFTER]["images"] is True and "images" not in params[HANOI]
    assert params[CRAFTER]["max_steps"] == params[HANOI]["max_steps"] == 3  # taken by both: given to both
    plan = run_cli("eval", *PAIR, "--model", "mock/demo", "--dry-run")  # the plan takes it the same way
    assert plan.returncode == 0 and "hanoi-3" in plan.stdout and "crafter" in plan.stdout, plan.stderr


def test_the_library_gives_it_the_same_way(tmp_path: Path) -> None:
    result = playbench.eval([HANOI, CRAFTER], task_params={"images": True, "max_steps": 3}, episodes=1,
                            log_dir=tmp_path)
    assert {t.id: t.params.get("images") for t in result.config.tasks} == {HANOI: None, CRAFTER: True}
    with pytest.raises(PlaybenchError, match="unknown parameter 'imags': none of the 2 tasks named takes it; "
                                             "did you mean 'images'"):
        playbench.eval([HANOI, CRAFTER], task_params={"imags": True}, log_dir=tmp_path / "refused")
    assert not (tmp_path / "refused").exists()


@pytest.mark.parametrize(("tasks", "needle"), [
    ((HANOI, CRAFTER), "unknown parameter 'levels': none of the 2 tasks named takes it"),
    ((HANOI,), f"unknown parameter 'levels' for {HANOI}; valid keys: compat (bool), history"),
])
def test_a_parameter_no_task_takes_is_refused_in_one_line(tmp_path: Path, tasks: tuple[str, ...],
                                                         needle: str) -> None:
    done = run_cli("eval", *tasks, "-T", "levels=/tmp", "--log-dir", str(tmp_path))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and needle in lines[0], done.stderr
    assert not any(tmp_path.iterdir())


def test_resume_plays_each_task_with_its_own_parameters(tmp_path: Path) -> None:
    assert run_cli("eval", *PAIR, "--log-dir", str(tmp_path)).returncode == 0
    run = only_run_dir(tmp_path)
    recorded = _params(run)
    journal = run / "episodes.jsonl"
    kept = [line for line in journal.read_text().splitlines() if json.loads(line)["task"] != CRAFTER]
    journal.write_text("\n".join(kept) + "\n")  # Crafter's episodes to play again
    again = run_cli("eval", "--resume", str(run), *PAIR[2:6], "--quiet")  # the recorded values: accepted
    assert again.returncode == 0, again.stderr
    assert _params(run) == recorded
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sorted((r["task"], r["index"]) for r in records) == [(CRAFTER, 0), (CRAFTER, 1), (HANOI, 0), (HANOI, 1)]
    crafter = [r for r in records if r["task"] == CRAFTER]
    assert all(r["steps"] <= 3 for r in crafter)
    changed = run_cli("eval", "--resume", str(run), "-T", "images=false", "-T", "max_steps=3")
    assert changed.returncode == 2 and f"-T images ({CRAFTER})" in changed.stderr, changed.stderr
    verified = run_cli("verify", str(run))
    assert verified.returncode == 0 and verified.stdout.startswith("4 verified, 0 differing"), verified.stdout


def test_serve_env_gives_it_the_same_way() -> None:
    from playbench.rl.openenv import make_app

    specs = make_app([HANOI, CRAFTER], task_params=["images=true"]).state.playbench_specs
    assert specs.get(CRAFTER, 0).params.images is True and specs.get(CRAFTER, 7).params.images is True
    assert not hasattr(specs.get(HANOI, 0).params, "images")
    with pytest.raises(PlaybenchError, match="none of the 2 tasks named takes it"):
        make_app([HANOI, CRAFTER], task_params=["levels=/tmp"])


def test_an_inspect_task_of_several_gives_it_the_same_way() -> None:
    from playbench.inspect.tasks import build_task

    made = build_task([HANOI, CRAFTER], "smartplay", 1, 0, "naive", None, None, {"images": True})
    assert made.metadata is not None
    assert {t["id"]: t["params"].get("images") for t in made.metadata["playbench"]["tasks"]} == {HANOI: None,
                                                                                             CRAFTER: True}
