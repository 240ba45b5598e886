"""Branching from a recorded step (``ChatEnv.from_record``): the prefix re-played and checked, the request at the
step the run's byte for byte, the recorded answers from there ending with the run's records; branches independent;
the same through serve-env (only runs under its ``--runs`` folder) and as verifiers rows.
"""

import asyncio
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

import playbench
from helpers import serve_app
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.rl import ChatEnv, write_run
from playbench.rl.branching import branch_point

SEED = 4
#: (task, agent, task parameters, engine module the task needs): one of each kind of game the brief names
CASES = [
    ("balrog/babyai/goto", "naive", {"max_steps": 20}, None),
    ("smartplay/hanoi-3", "naive", {}, None),
    ("balrog/crafter/default", "naive", {"max_steps": 25}, "crafter"),
    ("smartplay/crafter", "two-stage", {"max_steps": 15}, "crafter"),
    ("balrog/nle/nethackchallenge", "naive", {"max_steps": 25}, "nle"),
    ("balrog/minihack/corridor-r3", "naive", {"max_steps": 20}, "minihack"),
]
#: what differs between two plays of one episode by design: wall-clock values, and where a run filed the steps
VOLATILE = {"timing", "trajectory"}


def _needs(module: str | None) -> None:
    if module is not None:
        pytest.importorskip(module, reason=f"the {module} engine is not installed in this environment")


def _json(value: Any) -> bytes:
    return orjson.dumps(value)


def _record(record: EpisodeRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", exclude=VOLATILE)


def _steps(steps: list[StepRecord]) -> list[dict[str, Any]]:
    return [s.model_dump(mode="json", exclude={"timing"}) for s in steps]


def _answers(step: StepRecord, agent: str) -> list[str]:
    return ([step.extra["stage1"]] if agent == "two-stage" else []) + [step.raw_output or ""]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


_made: dict[str, tuple[Path, EpisodeRecord, list[StepRecord]]] = {}


def _run(runs: Path, task: str, agent: str, params: dict[str, Any]) -> tuple[Path, EpisodeRecord, list[StepRecord]]:
    """A mock/demo run of ``task`` (one episode, some answers invalid), made once per module."""
    if task not in _made:
        result = playbench.eval(task, agent=agent, model="mock/demo", episodes=1, seed=SEED, log_dir=runs,
                                task_params=params, model_params={"invalid_rate": 0.3})
        log = playbench.read_run(result.path)
        (record,) = log.episodes()
        steps = log.read_trajectory(record)
        assert record.status == "ok" and len(steps) >= 10
        assert agent == "two-stage" or not all(s.valid for s in steps)  # SmartPlay's matching takes any answer
        _made[task] = (result.path, record, steps)
    return _made[task]


def _finish(env: ChatEnv, steps: list[StepRecord], agent: str) -> None:
    for step in steps:
        for answer in _answers(step, agent):
            result = env.step(answer)
        assert result.info["executed"] == step.executed and result.reward == step.reward
    assert env.done


@pytest.mark.parametrize(("task", "agent", "params", "engine"), CASES, ids=[c[0] for c in CASES])
def test_a_branch_starts_at_the_runs_request_and_ends_with_its_records(runs: Path, task: str, agent: str,
                                                                       params: dict[str, Any],
                                                                       engine: str | None) -> None:
    _needs(engine)
    path, record, steps = _run(runs, task, agent, params)
    for k in (0, 1, len(steps) // 2, len(steps) - 1):
        env = ChatEnv.from_record(path, task, 0, step=k)
        first = env.reset()
        recorded = steps[k].messages
        assert recorded is not None
        if agent == "two-stage":  # the think request is not recorded: the step's (second) request extends it
            assert _json(first) == _json(recorded[:-2])
        else:
            assert _json(first) == _json(recorded), f"step {k}: not the run's request"
        assert _steps(env.steps()) == _steps(steps[:k])  # the prefix, re-played
        assert env.seed == record.seed and not env.done
        _finish(env, steps[k:], agent)
        assert env.score == record.score
        assert _record(env.record()) == _record(record)
        assert _steps(env.steps()) == _steps(steps)


def test_the_first_step_of_a_branch_reports_its_own_reward_only(runs: Path) -> None:
    path, record, steps = _run(runs, "smartplay/hanoi-3", "naive", {})
    env = ChatEnv.from_record(path, "smartplay/hanoi-3", 0, step=7)
    env.reset()
    result = env.step(steps[7].raw_output or "")
    assert result.info["step"] == 7 and result.reward == steps[7].reward and len(env.steps()) == 8


def test_branches_are_independent_copies(runs: Path) -> None:
    path, record, steps = _run(runs, "balrog/babyai/goto", "naive", {"max_steps": 20})
    k = 5
    branch = branch_point(path, "balrog/babyai/goto", 0, k)
    envs = [ChatEnv.from_branch(branch) for _ in range(3)]
    firsts = [env.reset() for env in envs]
    assert len({_json(f) for f in firsts}) == 1
    assert len({id(env._game) for env in envs}) == 3  # a game each: nothing of one is shared with another
    # branch 0 goes its own way to its end; branch 1 is stepped in between, with the run's answers
    envs[0].step("turn left")
    envs[1].step(steps[k].raw_output or "")
    while not envs[0].done:
        envs[0].step("go forward")
    assert envs[0].steps()[k].raw_output == "turn left"
    _finish(envs[1], steps[k + 1:], "naive")
    assert _record(envs[1].record()) == _record(record) and _steps(envs[1].steps()) == _steps(steps)
    # branch 2 was left waiting at step k all along: its request is still the run's
    assert _json([m.record() for m in envs[2].request or []]) == _json(steps[k].messages)
    _finish(envs[2], steps[k:], "naive")
    assert _record(envs[2].record()) == _record(record)
    assert _steps(envs[0].steps()) != _steps(steps)  # the branch that went its own way records its own steps


def test_nethack_branches_are_independent(runs: Path) -> None:
    _needs("nle")
    path, record, steps = _run(runs, "balrog/nle/nethackchallenge", "naive", {"max_steps": 25})
    branch = branch_point(path, "balrog/nle/nethackchallenge", 0, 10)
    one, two = ChatEnv.from_branch(branch), ChatEnv.from_branch(branch)
    one.reset()
    two.reset()
    for _ in range(5):
        one.step("far east")
    _finish(two, steps[10:], "naive")
    assert _record(two.record()) == _record(record)
    one.close()


def test_a_prefix_that_does_not_replay_is_refused_at_its_first_difference(runs: Path, tmp_path: Path) -> None:
    path, record, steps = _run(runs, "smartplay/hanoi-3", "naive", {})
    env = ChatEnv.from_record(path, "smartplay/hanoi-3", 0, step=len(steps) - 1)
    env.reset()
    _finish(env, steps[-1:], "naive")
    rollout = env.rollout()
    rollout.steps[3] = rollout.steps[3].model_copy(update={"reward": 55.0})  # a record no engine gives
    forged = write_run(tmp_path, [rollout], name="forged").path
    ok = ChatEnv.from_record(forged, "smartplay/hanoi-3", 0, step=3)  # the forged step is not in its prefix
    assert _json(ok.reset()) == _json(steps[3].messages)
    ok.close()
    bad = ChatEnv.from_record(forged, "smartplay/hanoi-3", 0, step=6)
    with pytest.raises(PlaybenchError, match=r"step 3 reward: recorded 55\.0, replayed"):
        bad.reset()
    assert not bad.done and bad.request is None  # stopped: nothing is pending


def test_what_cannot_be_branched_is_refused_in_one_line(runs: Path, tmp_path: Path) -> None:
    path, record, steps = _run(runs, "smartplay/hanoi-3", "naive", {})
    cases = [
        ((path, "smartplay/hanoi-3", 0, len(steps)), "not a recorded step"),
        ((path, "smartplay/hanoi-3", 1, 0), "schedules 1 episode"),
        ((path, "smartplay/hanoi-4", 0, 0), "has no task"),
        ((path, "smartplay/hanoi-3", 0, -1), "whole number"),
        ((tmp_path, "smartplay/hanoi-3", 0, 0), "not a playbench run"),
    ]
    for args, message in cases:
        with pytest.raises(PlaybenchError, match=message) as refused:
            ChatEnv.from_record(*args)
        assert "\n" not in str(refused.value)
    random = playbench.eval("smartplay/hanoi-3", agent="random", episodes=1, seed=SEED, log_dir=tmp_path)
    with pytest.raises(PlaybenchError, match="without a model"):
        ChatEnv.from_record(random.path, "smartplay/hanoi-3", 0, 0)


# -- serve-env ----------------------------------------------------------------------------------------------


def test_serve_env_branches_runs_under_its_folder_and_no_other(runs: Path, tmp_path: Path) -> None:
    pytest.importorskip("openenv.core", reason="serve-env needs openenv-core")
    from playbench.rl.openenv import PlaybenchAction, PlaybenchEnvClient, make_app

    path, record, steps = _run(runs, "smartplay/hanoi-3", "naive", {})
    k = 4
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(path, runs / "link-in")  # a link is followed, and refused if it leaves the folder
    os.symlink(outside, runs / "escape")

    async def play(url: str, **reset: Any) -> list[Any]:
        async with PlaybenchEnvClient(base_url=url) as client:
            results = [await client.reset(**reset)]
            for step in steps[reset.get("step", 0):]:
                results.append(await client.step(PlaybenchAction(text=step.raw_output or "")))
            results.append(await client.state())
        return results

    async def refused(url: str, **reset: Any) -> str:
        async with PlaybenchEnvClient(base_url=url) as client:
            with pytest.raises(Exception) as caught:
                await client.reset(**reset)
        return str(caught.value)

    with serve_app(make_app([], runs=runs)) as url:
        first, *_, last, state = asyncio.run(play(url, run=path.name, task="smartplay/hanoi-3", index=0, step=k))
        env = ChatEnv.from_record(path, "smartplay/hanoi-3", 0, step=k)
        env.reset()
        assert first.observation.messages == env.wire_messages() and first.observation.seed == record.seed
        assert last.done and last.reward == record.score and state.status == "ok" and state.step_count == len(steps) - k
        env.close()
        linked = asyncio.run(play(url, run="link-in", task="smartplay/hanoi-3", index=0, step=k))
        assert linked[0].observation.messages == first.observation.messages
        for hostile in ("../outside", str(path), "escape", f"{path.name}/../../outside", "", "a\x00b"):
            message = asyncio.run(refused(url, run=hostile, task="smartplay/hanoi-3", index=0, step=0))
            assert "not under the server's runs" in message or "must name a run folder" in message, (hostile, message)
        assert "not a recorded step" in asyncio.run(refused(url, run=path.name, task="smartplay/hanoi-3", index=0,
                                                            step=len(steps)))
        assert "serves recorded runs only" in asyncio.run(refused(url, task=None))
    with serve_app(make_app("smartplay/hanoi-3")) as url:  # a server started without runs reads none
        message = asyncio.run(refused(url, run=path.name, task="smartplay/hanoi-3", index=0, step=0))
        assert "reads no runs" in message


def test_serve_env_command_needs_tasks_or_runs() -> None:
    pytest.importorskip("openenv.core", reason="serve-env needs openenv-core")
    from helpers import run_cli

    bad = run_cli("serve-env", "--port", "0")
    assert bad.returncode != 0 and "--runs" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


# -- verifiers rows -----------------------------------------------------------------------------------------


def test_verifiers_rows_name_recorded_states(runs: Path) -> None:
    vf = pytest.importorskip("verifiers.v1", reason="the verifiers adapter needs verifiers")
    from playbench.models import fakeserver
    from playbench.models.fakeserver import FakeServer
    from playbench.rl.verifiers import load_environment

    path, record, steps = _run(runs, "balrog/babyai/goto", "naive", {"max_steps": 20})
    rows = [{"run": str(path), "task": "balrog/babyai/goto", "index": 0, "step": k} for k in (3, 9)]
    env = load_environment(branches=rows)
    data = [t.data for t in env.taskset]
    assert [(d.run, d.task, d.index, d.step, d.seed) for d in data] == [
        (str(path), "balrog/babyai/goto", 0, k, record.seed) for k in (3, 9)]

    async def play(url: str) -> list[Any]:
        ctx = vf.ModelContext(model="fake", client=vf.EvalClientConfig(base_url=f"{url}/v1", api_key_var="PB_NO_KEY"))
        async with env.serving():
            return await asyncio.gather(*(env.run_slot(slot, ctx) for task in env.taskset
                                          for slot in env.slots(task, 1)))

    plain = fakeserver.reply_body

    def with_created(fmt: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        reply = plain(fmt, *args, **kwargs)
        return {**reply, "created": 0} if fmt == "openai" else reply

    with pytest.MonkeyPatch.context() as patch, FakeServer(record=True) as srv:
        patch.setattr(fakeserver, "reply_body", with_created)
        episodes = asyncio.run(play(srv.url))
        sent = [_json(body["messages"]) for _, body in srv.received]
    for k in (3, 9):  # each row's first request is the run's at its step
        assert _json(steps[k].messages) in sent
    assert _json(steps[0].messages) not in sent  # nothing before a row's step is asked of the model
    for episode in episodes:
        assert episode.ok, episode.errors
        (trace,) = episode.traces
        info = trace.info["playbench"]
        assert info["run"] == str(path) and info["from_step"] in (3, 9) and info["status"] == "ok"
        assert trace.num_turns == info["steps"] - info["from_step"]
    with pytest.raises(PlaybenchError, match="not a recorded step"):
        load_environment(branches=[{**rows[0], "step": len(steps)}])


# -- a run of given instances (eval --instances) ------------------------------------------------------------


def test_a_run_of_given_instances_branches_at_its_seeds(tmp_path: Path) -> None:
    task = "balrog/babyai/goto"
    seeds = [913, 70001]  # not the seeds the run's base seed derives: the run's schedule names them
    (tmp_path / "seeds.txt").write_text("".join(f"{task} {seed}\n" for seed in seeds))
    run = playbench.eval(task, agent="naive", model="mock/demo", log_dir=tmp_path / "runs",
                         instances=str(tmp_path / "seeds.txt"), task_params={"max_steps": 12},
                         model_params={"invalid_rate": 0.3}).path
    log = playbench.read_run(run)
    records = {r.index: r for r in log.episodes()}
    assert [records[i].seed for i in (0, 1)] == seeds
    record = records[1]
    steps = log.read_trajectory(record)
    for k in (0, len(steps) // 2, len(steps) - 1):
        env = ChatEnv.from_record(run, task, 1, step=k)
        assert _json(env.reset()) == _json(steps[k].messages), f"step {k}: not the run's request"
        assert env.seed == seeds[1] and _steps(env.steps()) == _steps(steps[:k])
        _finish(env, steps[k:], "naive")
        assert env.score == record.score and _record(env.record()) == _record(record)
