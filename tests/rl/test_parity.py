"""Eval-train parity: fed a recorded run's answers, ChatEnv sends the run's requests byte for byte and
ends with its records (timing aside), on every suite: many-step games, two requests per step, one-step questions.
"""

import json
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.rl import ChatEnv

SEED = 11
#: (task, agent): a task of every suite, each with an agent its runs use
CASES = [
    ("smartplay/hanoi-3", "naive"),
    ("smartplay/rps-basic", "two-stage"),
    ("balrog/babyai/goto", "naive"),
    ("balrog/babaisai/goto_win", "robust-cot"),
    ("mango/df", "naive"),
    ("grasp/energy", "naive"),
]
#: what differs between two plays of one episode by design: wall-clock values, and where a run filed the steps
VOLATILE = {"timing", "trajectory"}


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def record_dict(record: EpisodeRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", exclude=VOLATILE)


def step_dict(step: StepRecord) -> dict[str, Any]:
    return step.model_dump(mode="json", exclude={"timing"})


def replay(task: str, agent: str, record: EpisodeRecord, steps: list[StepRecord]) -> ChatEnv:
    """Feed the run's answers to a fresh ChatEnv, checking every request against the run's trajectory."""
    env = ChatEnv(task, index=record.index, seed=SEED, agent=agent, model="mock/demo")
    messages = env.reset()
    for n, step in enumerate(steps):
        if agent == "two-stage":  # stage 1 (think) is not in the trajectory: the stage-2 request holds it
            assert step.messages is not None and step.messages[-2]["role"] == "assistant"
            assert dump(messages) == dump(step.messages[:-2]), f"step {n}, stage 1"
            result = env.step(step.extra["stage1"])
            assert not result.info["game_step"] and result.reward == 0.0
            assert not (result.terminated or result.truncated)
            messages = result.messages
        assert dump(messages) == dump(step.messages), f"step {n}: the request differs from the run's"
        result = env.step(step.raw_output or "")
        assert result.info["game_step"] and result.info["step"] == n
        assert result.reward == step.reward and result.info["valid"] == step.valid
        assert result.info["executed"] == step.executed and result.info["score"] == step.score
        assert (result.terminated or result.truncated) == step.done
        messages = result.messages
    assert messages == [] and env.done
    return env


@pytest.mark.parametrize(("task", "agent"), CASES, ids=[c[0] for c in CASES])
def test_chat_env_sends_the_runs_requests_and_ends_with_its_records(task: str, agent: str, tmp_path: Path) -> None:
    run = playbench.eval(task, agent=agent, model="mock/demo", episodes=2, seed=SEED, log_dir=tmp_path,
                         model_params={"invalid_rate": 0.3})
    log = playbench.read_run(run.path)
    records = log.episodes()
    assert [r.status for r in records] == ["ok", "ok"]
    for record in records:
        steps = log.read_trajectory(record)
        assert steps and record.usage["calls"] >= len(steps)
        env = replay(task, agent, record, steps)
        assert record_dict(env.record()) == record_dict(record)
        assert env.score == record.score and env.seed == record.seed
        assert [step_dict(s) for s in env.steps()] == [step_dict(s) for s in steps]


def test_the_answers_fed_include_invalid_ones(tmp_path: Path) -> None:
    """The scripted answers are not all legal actions: parity holds for invalid steps too."""
    run = playbench.eval("balrog/babyai/goto", model="mock/demo", episodes=2, seed=SEED, log_dir=tmp_path,
                         model_params={"invalid_rate": 0.3})
    log = playbench.read_run(run.path)
    steps = [s for r in log.episodes() for s in log.read_trajectory(r)]
    assert any(not s.valid for s in steps) and any(s.valid for s in steps)
    record = log.episodes()[0]
    env = replay("balrog/babyai/goto", "naive", record, log.read_trajectory(record))
    assert env.record().invalid_actions == record.invalid_actions > 0
