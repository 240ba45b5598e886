"""write_run: ChatEnv rollouts written as a run that report, view and verify read like the eval run they replay."""

import json
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.api.verify import verify
from playbench.log.read import RunLog
from playbench.report.build import build_report
from playbench.report.viewer import write_site
from playbench.rl import ChatEnv, write_run

SEED = 4


def replayed(log: RunLog, **task_params: Any) -> list[ChatEnv]:
    """A ChatEnv for each episode of ``log``, fed that episode's recorded answers to the end."""
    envs = []
    for record in log.episodes():
        env = ChatEnv(record.task, index=record.index, seed=log.config.seed, agent=log.config.agent,
                      task_params=task_params or None, model=log.config.model or "rl/policy")
        env.reset()
        for step in log.read_trajectory(record):
            env.step(step.raw_output or "")
        assert env.done
        envs.append(env)
    return envs


def report_without_paths(log: RunLog) -> dict[str, Any]:
    report = build_report(log)
    del report["run"]["path"], report["run"]["run_id"]
    return report


def test_rollouts_make_the_run_eval_made(tmp_path: Path) -> None:
    run = playbench.eval(["smartplay/hanoi-3", "mango/df"], model="mock/demo", episodes=2, seed=SEED,
                         log_dir=tmp_path / "eval")
    original = playbench.read_run(run.path)
    envs = replayed(original)
    envs.reverse()  # written in task then index order, whatever the order given
    log = write_run(tmp_path / "rl", envs, name="rollouts")
    assert log.path == tmp_path / "rl" / "rollouts"
    assert log.config == original.config and log.meta.config_hash == original.meta.config_hash
    report = report_without_paths(log)
    assert report == report_without_paths(original)
    assert report["tasks"]["smartplay/hanoi-3"]["episodes"] == 2
    for mine, theirs in zip(log.episodes(), original.episodes(), strict=True):
        assert mine.model_dump(exclude={"timing"}) == theirs.model_dump(exclude={"timing"})
        assert json.dumps([s.model_dump(exclude={"timing"}) for s in log.read_trajectory(mine)]) == \
            json.dumps([s.model_dump(exclude={"timing"}) for s in original.read_trajectory(theirs)])
    checked = verify(log.path)
    assert checked.ok and checked.verified == 4, [f.reason for f in checked.findings]
    index = write_site([log], tmp_path / "site")
    assert index.is_file() and "smartplay/hanoi-3" in index.read_text()


def test_frames_of_image_mode_are_written_as_the_run_writes_them(tmp_path: Path) -> None:
    run = playbench.eval("balrog/babyai/goto", model="mock/demo", episodes=1, seed=SEED, log_dir=tmp_path / "eval",
                         task_params={"images": True})
    original = playbench.read_run(run.path)
    envs = replayed(original, images=True)
    first = ChatEnv("balrog/babyai/goto", seed=SEED, task_params={"images": True}).reset()
    assert first[-1]["images"][0]["type"] == "image"  # a placeholder with the PNG's hash, as the run records it
    request = envs[0].steps()[0].messages
    assert request is not None and request[-1]["images"] == first[-1]["images"]
    log = write_run(tmp_path / "rl", envs)
    theirs = original.read_trajectory(original.episodes()[0])
    mine = log.read_trajectory(log.episodes()[0])
    assert [s.frame for s in mine] == [s.frame for s in theirs] and mine[0].frame
    for step in theirs:
        assert (log.path / str(step.frame)).read_bytes() == (original.path / str(step.frame)).read_bytes()
    assert report_without_paths(log) == report_without_paths(original)


def test_what_cannot_be_one_run_is_refused(tmp_path: Path) -> None:
    def finished(index: int, seed: int = 0) -> ChatEnv:
        env = ChatEnv("mango/df", index=index, seed=seed)
        env.reset()
        env.step("I do not know.")
        return env

    with pytest.raises(playbench.PlaybenchError, match="two rollouts of mango/df #0"):
        write_run(tmp_path, [finished(0), finished(0)])
    with pytest.raises(playbench.PlaybenchError, match="differ in seed"):
        write_run(tmp_path, [finished(0), finished(1, seed=1)])
    unfinished = ChatEnv("mango/df")
    unfinished.reset()
    with pytest.raises(playbench.PlaybenchError, match="not over"):
        write_run(tmp_path, [finished(0), unfinished])
    with pytest.raises(playbench.PlaybenchError, match="no rollout"):
        write_run(tmp_path, [])
    assert list(tmp_path.iterdir()) == []  # nothing made
    unfinished.close()
    sparse = write_run(tmp_path, [finished(2)])  # index 2 alone: a run of 3 scheduled episodes, 1 recorded
    assert sparse.config.tasks[0].episodes == 3
    assert build_report(sparse)["run"]["scheduled"] == {"mango/df": 3}
