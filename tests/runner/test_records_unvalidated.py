"""The runner builds step and episode records without pydantic's validation when every value is already what
validation keeps (``outcome.step_record`` / ``episode_record``): those records must be the validated ones, and
any other value must still go through validation (converted or refused as before).
"""

import math
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel, ValidationError

from playbench.agents.base import Decision
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.registry import get_task
from playbench.runner.outcome import Fault, Tally, episode_record, step_record
from playbench.runner.plan import EpisodeJob

USAGE = {"input_tokens": 557, "output_tokens": 1, "calls": 1, "attempts": 1, "cache_hits": 0}


def _validated(record: BaseModel) -> BaseModel:
    """``record`` built again by validation from the fields it was given."""
    return type(record)(**{name: getattr(record, name) for name in record.model_fields_set})


def _same(record: BaseModel) -> None:
    again = _validated(record)
    assert record == again
    assert list(record.__dict__) == list(type(record).model_fields)  # the order json_line writes
    assert record.__dict__ == again.__dict__
    assert record.model_fields_set == again.model_fields_set
    assert record.model_dump_json() == again.model_dump_json()
    assert pickle.loads(pickle.dumps(record)) == again


def _step(decision: Decision, observation: Any = "You see a wall.", score: Any = 0.5, done: bool = True) -> StepRecord:
    tally = Tally(steps=3, done=done)
    return step_record(tally, observation, decision, "up", "up", 1.0, score, None, 0.0000412, "the end")


def _job() -> EpisodeJob:
    task = get_task("grasp/energy")
    return EpisodeJob(task, task.params({}), 2, 1069082996)


def _episode(metrics: Any = None, instance: Any = None, fault: Fault | None = None) -> EpisodeRecord:
    tally = Tally(steps=1, reward=0.25, usage=dict(USAGE))
    tally.info = {"score": 0.25, "completed": 1, "metrics": metrics if metrics is not None else
                  {"plan": ["UP"], "energy": 0.25, "final": [1, 2], "nested": {"x": [1.5, None]}}}
    tally.fault = fault
    return episode_record(_job(), "naive", "rl/policy", tally,
                          instance if instance is not None else {"seed": 7, "start": [6, 7], "cost": 0.3}, 1.0)


def test_a_plain_step_record_is_the_validated_one_with_its_dicts_copied() -> None:
    extra = {"strategy": "naive"}
    usage = dict(USAGE)
    decision = Decision(raw="up", action="up", messages=[{"role": "user", "content": "go"}], usage=usage, extra=extra)
    record = _step(decision)
    _same(record)
    assert record.json_line() == _validated(record).json_line()
    assert record.next_observation == "the end" and record.messages is decision.messages  # never copied
    assert record.extra == extra and record.extra is not extra and record.usage is not usage
    _same(_step(Decision(raw="up", action=None), score=None, done=False))  # None usage, no score, not the last step


def test_a_plain_episode_record_is_the_validated_one_and_takes_its_trajectory() -> None:
    record = _episode()
    assert record.status == "ok" and record.score == 0.25 and record.trajectory is None
    _same(record)
    assert "trajectory" not in record.model_fields_set
    record.trajectory = "trajectories/x.jsonl"  # as run_jobs sets it once the steps are written
    assert record.model_dump()["trajectory"] == "trajectories/x.jsonl"
    failed = _episode(fault=Fault("agent-error", "KeyError: 'x'"))
    assert failed.status == "agent-error" and failed.score is None
    _same(failed)


@pytest.mark.parametrize("observation", [np.str_("You see a wall."), "wall"])
def test_a_step_value_of_another_type_is_validated_as_before(observation: Any) -> None:
    record = _step(Decision(raw="up", action="up", usage={"calls": np.int64(1)}), observation=observation,
                   score=np.float64(0.5))
    assert type(record.usage["calls"]) is int and type(record.score) is float  # converted by validation
    assert record.observation == str(observation)


def test_a_step_value_validation_refuses_is_still_refused() -> None:
    with pytest.raises(ValidationError, match="observation"):
        _step(Decision(raw="up", action="up"), observation=["not", "text"])
    with pytest.raises(ValidationError, match="score"):
        _step(Decision(raw="up", action="up"), score=math.inf)


@pytest.mark.parametrize(("metrics", "instance"), [
    ({"energy": np.float64(0.25)}, {"seed": np.int64(7)}),  # numpy numbers: kept as validation keeps them
    (OrderedDict(energy=0.25), {"seed": 7}),  # a dict subclass: validation makes a plain dict of it
])
def test_episode_values_of_other_types_are_validated_as_before(metrics: Any, instance: Any) -> None:
    record = _episode(metrics, instance)
    assert type(record.metrics) is dict and record.metrics == dict(metrics) and record.instance == instance


def test_an_episode_with_a_non_finite_or_badly_keyed_value_is_the_games_error_or_refused() -> None:
    record = _episode({"energy": math.nan})
    assert record.status == "game-error" and "metrics.energy" in (record.error or "")
    record = _episode(instance={"grid": [[1.0, math.inf]]})
    assert record.status == "game-error" and record.instance == {}
    with pytest.raises(ValidationError, match="metrics"):
        _episode({1: "a key that is no text"})
