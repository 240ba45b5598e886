"""playbench's tasks from Inspect's own command line and ``inspect_ai.eval``: samples, parameters, groups, errors."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import InfoEvent
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from playbench.core.errors import PlaybenchError
from playbench.core.seeding import episode_seed
from playbench.inspect import suite_summary
from playbench.inspect.events import episode_record
from playbench.inspect.messages import message_dicts
from playbench.rl import ChatEnv

INSPECT = Path(sys.executable).with_name("inspect")


def inspect_cli(env: dict[str, str], log_dir: Path, *args: str) -> EvalLog:
    done = subprocess.run([str(INSPECT), "eval", *args, "--model", "mockllm/model", "--log-dir", str(log_dir)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    [info] = list_eval_logs(str(log_dir))
    return read_eval_log(info.name)


def test_the_guard_refuses_the_network(offline: Path) -> None:
    with pytest.raises(OSError, match="refused in tests"):
        socket.create_connection(("example.com", 443), timeout=1)
    assert offline.exists()
    offline.unlink()  # the attempt above was the test's own


def test_inspect_cli_runs_a_balrog_task_one_sample_per_episode(inspect_env: dict[str, str], tmp_path: Path) -> None:
    log = inspect_cli(inspect_env, tmp_path / "logs", "playbench/balrog", "-T", "task=balrog/babyai/goto",
                      "-T", "episodes=2", "-T", "seed=3", "-T", "max_steps=4")
    assert log.status == "success" and log.samples is not None
    assert [s.id for s in log.samples] == ["balrog/babyai/goto#0", "balrog/babyai/goto#1"]
    for n, sample in enumerate(log.samples):
        assert sample.metadata == {"task": "balrog/babyai/goto", "index": n, "seed": episode_seed(3, "balrog/babyai/goto", n),
                                   "base_seed": 3, "agent": "naive"}
        record = episode_record(sample.events)
        assert record is not None and record.status == "ok"
        assert record.steps == 4  # mockllm's one answer is no action: the step limit
        # each model call is followed by the game's side of that turn; the episode's record closes the solver
        played = [e for e in sample.events if e.event in ("model", "info", "store")]
        assert [e.event for e in played] == ["model", "info"] * 4 + ["info"]
        turns = [e.data for e in played if isinstance(e, InfoEvent)][:-1]
        assert [t["step"] for t in turns] == [0, 1, 2, 3]  # type: ignore[index,call-overload]
        for turn in turns:
            assert isinstance(turn, dict)
            assert turn["parsed"] == "Default output from mockllm/model" and turn["action"] is None
            assert turn["valid"] is False and turn["executed"] == "go forward"  # BabyAI's default action
            assert turn["reward"] == 0.0 and turn["progress"] == 0.0
        assert [t["done"] for t in turns] == [False, False, False, True]  # type: ignore[index,call-overload]
        assert sample.store == {}  # nothing kept twice: no store event
        assert sample.scores["playbench_score"].answer == "Default output from mockllm/model"  # type: ignore[index]
    names = {s.name for s in log.results.scores}  # type: ignore[union-attr]
    assert {"score", "completion", "progress", "playbench_score"} <= names
    assert set(suite_summary(log)) == {"balrog"}


def test_inspect_cli_passes_task_parameters_and_runs_groups(inspect_env: dict[str, str], tmp_path: Path) -> None:
    log = inspect_cli(inspect_env, tmp_path / "a", "playbench/smartplay", "-T", "task=smartplay/hanoi-3",
                      "-T", "episodes=1", "-T", "compat=true", "-T", "max_steps=3")
    assert log.samples is not None and len(log.samples) == 1
    params = log.eval.metadata["playbench"]["tasks"][0]["params"]  # type: ignore[index]
    assert params["compat"] is True and params["max_steps"] == 3
    record = episode_record(log.samples[0].events)
    assert record is not None and record.steps == 3

    log = inspect_cli(inspect_env, tmp_path / "b", "playbench/group", "-T", "group=mango/df,grasp/energy",
                      "-T", "episodes=1")
    assert log.samples is not None and sorted(str(s.id) for s in log.samples) == ["grasp/energy#0", "mango/df#0"]


def test_inspect_eval_refuses_bad_requests_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(PlaybenchError, match="not .*use playbench/group"):
        inspect_eval("playbench/balrog", task_args={"task": "mango/df"}, model="mockllm/model", display="none",
                     log_dir=str(tmp_path))
    with pytest.raises(PlaybenchError, match="give a task id"):
        inspect_eval("playbench/mango", model="mockllm/model", display="none", log_dir=str(tmp_path))
    with pytest.raises(PlaybenchError, match="nope"):
        inspect_eval("playbench/grasp", task_args={"task": "grasp/energy", "nope": 1}, model="mockllm/model",
                     display="none", log_dir=str(tmp_path))


def test_installed_inspect_is_in_the_extras_range_and_the_entry_point_is_registered() -> None:
    from importlib.metadata import entry_points, requires, version

    from packaging.requirements import Requirement

    wanted = [Requirement(r) for r in requires("playbench") or []]
    [extra] = [r for r in wanted if r.name == "inspect-ai" and r.marker and r.marker.evaluate({"extra": "inspect"})]
    assert extra.specifier.contains(version("inspect-ai")), (extra, version("inspect-ai"))
    [point] = [e for e in entry_points(group="inspect_ai") if e.name == "playbench"]
    assert point.value == "playbench.inspect.tasks"


def test_images_reach_inspect_as_png_data_uris(tmp_path: Path) -> None:
    import base64
    import hashlib

    from inspect_ai.log import resolve_sample_attachments
    from inspect_ai.model import ContentImage, ContentText

    [log] = inspect_eval("playbench/balrog", task_args={"task": "balrog/babyai/goto", "episodes": 1, "images": True,
                                                        "max_steps": 2},
                         model="mockllm/model", display="none", log_dir=str(tmp_path))
    assert log.status == "success" and log.samples is not None
    sample = resolve_sample_attachments(log.samples[0])
    [event, _] = [e for e in sample.events if e.event == "model"]
    last = event.input[-1]
    env = ChatEnv("balrog/babyai/goto", index=0, seed=0, task_params={"images": True, "max_steps": 2})
    first = env.reset()
    env.close()
    assert message_dicts(event.input)[-1]["content"] == first[-1]["content"]
    assert isinstance(last.content, list) and isinstance(last.content[0], ContentText)
    [image] = [c for c in last.content if isinstance(c, ContentImage)]
    assert image.image.startswith("data:image/png;base64,")
    png = base64.b64decode(image.image.split(",", 1)[1])
    assert png.startswith(b"\x89PNG")
    assert hashlib.sha256(png).hexdigest()[:16] == first[-1]["images"][0]["sha256"]  # the frame ChatEnv's request holds
