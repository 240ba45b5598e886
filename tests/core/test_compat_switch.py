"""One compat switch on every task, one name for the step limit, and old run records still resumable."""

import json
import warnings
from pathlib import Path

import pytest

from helpers import only_run_dir, run_cli, stable_lines
from playbench.core.errors import PlaybenchError
from playbench.core.params import PlaybenchDeprecation
from playbench.core.registry import get_task, list_tasks

TASK_IDS = [t.id for t in list_tasks()]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_task_accepts_compat_true_and_false(task_id: str) -> None:
    task = get_task(task_id)
    assert task.params({"compat": "true"}).compat is True
    assert task.params({"compat": "false"}).compat is False
    with pytest.raises(PlaybenchError, match="compat"):
        task.params({"compat": "maybe"})


def test_the_step_limit_and_the_episode_count_have_one_name() -> None:
    """``max_steps`` and ``episodes``: the parameters, the facts rows, the Task and the games say the same."""
    for task in list_tasks():
        fields = task.params_model.model_fields
        assert not {"steps", "trials", "step_limit"} & set(fields), task.id
        assert task.max_steps == getattr(task.facts, "max_steps", None), task.id
        if task.suite in ("smartplay", "balrog"):
            assert "max_steps" in fields, task.id
            assert task.params({"max_steps": "7"}).max_steps == 7  # type: ignore[attr-defined]
        if "episodes" in fields:
            assert task.episodes(task.params({"episodes": "3"})) == 3, task.id


def test_the_old_step_name_still_works_and_says_so() -> None:
    task = get_task("smartplay/hanoi-3")
    with pytest.warns(PlaybenchDeprecation, match="'steps' is deprecated: it is now called 'max_steps'"):
        params = task.params({"steps": "5"})
    assert params.model_dump(mode="json") == {"compat": False, "history": None, "max_steps": 5, "episodes": None}
    with pytest.raises(PlaybenchError, match="give 'max_steps' only"):
        task.params({"steps": "5", "max_steps": "6"})
    with pytest.warns(PlaybenchDeprecation, match="'trials' is deprecated: it is now called 'episodes'"):
        assert task.episodes(task.params({"trials": "4"})) == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an old record's unset values are read silently
        assert task.params({"steps": None, "trials": None, "compat": False}).max_steps is None


def test_textworlds_step_limit_mode_has_a_mode_name_and_the_old_one_still_works() -> None:
    task = get_task("balrog/textworld/coin_collector")
    assert task.params({"max_steps_mode": "prompt"}).max_steps_mode == "prompt"  # type: ignore[attr-defined]
    with pytest.warns(PlaybenchDeprecation, match="'step_limit' is deprecated: it is now called 'max_steps_mode'"):
        params = task.params({"step_limit": "prompt", "games": "1"})
    assert (params.max_steps_mode, params.max_steps) == ("prompt", None)  # type: ignore[attr-defined]
    assert task.make_game(params, 0).max_steps == 25  # the step count coin_collector's prompt states
    with pytest.raises(PlaybenchError, match="max_steps_mode"):
        task.params({"max_steps_mode": "7"})


@pytest.mark.parametrize(("task_id", "knobs"), [
    ("mango/df", {"mode": "compat"}),
    ("mango/rf", {"mode": "compat"}),
    ("grasp/energy", {"scoring": "compat", "planner": "compat", "skew_axes": "official"}),
    ("grasp/energy-interactive", {"scoring": "compat", "planner": "compat", "skew_axes": "official"}),
])
def test_compat_sets_the_suite_knobs_unless_given(task_id: str, knobs: dict[str, str]) -> None:
    task = get_task(task_id)
    fixed = task.params({}).model_dump(mode="json")
    compat = task.params({"compat": "true"}).model_dump(mode="json")
    assert {k: compat[k] for k in knobs} == knobs and all(fixed[k] != v for k, v in knobs.items())
    # compat is not recorded itself: the knobs say it all, and records of default runs are unchanged
    assert "compat" not in compat and compat == task.params(knobs).model_dump(mode="json")
    key, value = next(iter(knobs.items()))
    explicit = task.params({"compat": "true", key: fixed[key]}).model_dump(mode="json")
    assert explicit[key] == fixed[key]  # an explicit knob wins


def test_eval_quickstart_with_compat_true(tmp_path: Path) -> None:
    # compat needs Messenger's official sentences (a data set given by path): without them the run is refused
    # before it exists, naming that need, not an unknown parameter
    refused = run_cli("eval", "quickstart", "-T", "compat=true", "--quiet", "--log-dir", str(tmp_path))
    assert refused.returncode == 2 and "messenger_text" in refused.stderr and not any(tmp_path.iterdir())
    from playbench.suites.quickstart.tasks import MEMBERS

    others = [task for task, _ in MEMBERS if "messenger" not in task and "crafter" not in task]  # crafter: slow
    res = run_cli("eval", *others, "-T", "compat=true", "--episodes", "1", "--quiet", "--log-dir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    run = only_run_dir(tmp_path)
    config = json.loads((run / "run.json").read_text())["config"]
    params = {t["id"]: t["params"] for t in config["tasks"]}
    assert params["smartplay/hanoi-3"]["compat"] is True and params["balrog/babyai/goto"]["compat"] is True
    assert params["mango/df"]["mode"] == "compat" and params["grasp/energy"]["scoring"] == "compat"
    statuses = {json.loads(x)["status"] for x in (run / "episodes.jsonl").read_text().splitlines()}
    assert statuses == {"ok"}


def test_a_run_recorded_with_the_old_step_name_resumes(tmp_path: Path) -> None:
    args = ["smartplay/hanoi-3", "--episodes", "4", "--seed", "2", "-T", "max_steps=6", "--quiet"]
    assert run_cli("eval", *args, "--log-dir", str(tmp_path / "new")).returncode == 0
    assert run_cli("eval", *args, "--log-dir", str(tmp_path / "old")).returncode == 0
    old = only_run_dir(tmp_path / "old")
    # make it a run written before the rename: "steps" in run.json, two episodes still to play
    meta = old / "run.json"
    meta.write_text(meta.read_text().replace('"max_steps"', '"steps"').replace('"episodes": null', '"trials": null'))
    assert '"steps": 6' in meta.read_text() and '"trials": null' in meta.read_text()
    lines = (old / "episodes.jsonl").read_text().splitlines(keepends=True)
    (old / "episodes.jsonl").write_text("".join(lines[:2]))
    recorded = meta.read_bytes()
    res = run_cli("eval", "--resume", str(old), "-T", "steps=6", "--quiet")  # the recorded value is accepted
    assert res.returncode == 0, res.stderr
    assert "warning: parameter 'steps' is deprecated" in res.stderr
    assert meta.read_bytes() == recorded  # the record is left as it was
    assert stable_lines(old) == stable_lines(only_run_dir(tmp_path / "new"))
    refused = run_cli("eval", "--resume", str(old), "-T", "max_steps=7", "--quiet")
    assert refused.returncode == 2 and "-T max_steps (smartplay/hanoi-3)" in refused.stderr
