"""Parity: Inspect's mockllm, scripted with a playbench run's answers, is sent that run's requests byte for byte
and the samples end with the run's records and scores, on a task of every suite.
"""

import json
import math
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, resolve_sample_attachments
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

import playbench
from playbench.inspect import suite_summary
from playbench.inspect.events import episode_record, step_data
from playbench.inspect.messages import message_dicts
from playbench.inspect.scoring import score_value
from playbench.report.build import build_report

SEED = 5
CASES = ["smartplay/hanoi-3", "balrog/babyai/goto", "mango/df", "grasp/energy"]
#: what differs by design: wall-clock values, where a run filed the steps, and the model's name
VOLATILE = {"timing", "trajectory", "model"}


def dump(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages, ensure_ascii=False)


class Script:
    """mockllm's outputs: the run's answer to each request, looked up by the request's exact text."""

    def __init__(self, answers: dict[str, deque[str]]) -> None:
        self.answers = answers
        self.unknown: list[str] = []

    def __call__(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                 config: GenerateConfig) -> ModelOutput:
        key = dump(message_dicts(input))
        queue = self.answers.get(key)
        if not queue:
            self.unknown.append(key)
            return ModelOutput.from_content(model="mockllm", content="(a request the run never sent)")
        return ModelOutput.from_content(model="mockllm", content=queue.popleft())


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("task", CASES)
def test_inspect_sends_the_runs_requests_and_scores_as_the_run(task: str, tmp_path: Path) -> None:
    run = playbench.eval(task, model="mock/demo", episodes=2, seed=SEED, log_dir=tmp_path / "runs",
                         model_params={"invalid_rate": 0.3})
    store = playbench.read_run(run.path)
    records = {f"{r.task}#{r.index}": r for r in store.episodes()}
    trajectories = {key: store.read_trajectory(r) for key, r in records.items()}
    answers: dict[str, deque[str]] = defaultdict(deque)
    for steps in trajectories.values():
        for step in steps:
            assert step.messages is not None
            answers[dump(step.messages)].append(step.raw_output or "")
    script = Script(answers)
    suite = task.split("/", 1)[0]

    [log] = inspect_eval(f"playbench/{suite}", task_args={"task": task, "episodes": 2, "seed": SEED},
                         model=get_model("mockllm/model", custom_outputs=script), log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success", log.error
    assert script.unknown == []
    full: EvalLog = read_eval_log(log.location)
    assert full.samples is not None and sorted(str(s.id) for s in full.samples) == sorted(records)
    for sample in full.samples:
        sample = resolve_sample_attachments(sample)
        record = records[str(sample.id)]
        assert sample.metadata["task"] == record.task and sample.metadata["index"] == record.index
        assert sample.metadata["seed"] == record.seed
        # every request Inspect's model was given, as recorded in the transcript, is the run's, in order
        sent = [dump(message_dicts(e.input)) for e in sample.events if e.event == "model"]
        assert sent == [dump(s.messages or []) for s in trajectories[str(sample.id)]]
        assert [e.output.completion for e in sample.events if e.event == "model"] == \
            [s.raw_output for s in trajectories[str(sample.id)]]
        score = sample.scores["playbench_score"]  # type: ignore[index]
        value = score.value
        assert isinstance(value, dict)
        expected = score_value(record)
        assert value.keys() == expected.keys() and all(same(value[k], expected[k]) for k in expected)
        assert same(value["score"], math.nan if record.score is None else record.score)
        kept = episode_record(sample.events)
        assert kept is not None
        assert kept.model_dump(mode="json", exclude=VOLATILE) == record.model_dump(mode="json", exclude=VOLATILE)
        # each turn's event says what the run's step says (progress: the run keeps the last one only)
        turns = [e.data for e in sample.events if e.event == "info" and "step" in e.data]  # type: ignore[operator]
        steps = trajectories[str(sample.id)]
        assert turns == [step_data(s, t["progress"]) for s, t in zip(steps, turns, strict=True)]  # type: ignore[index,call-overload]
        assert turns[-1]["progress"] == record.progress  # type: ignore[index,call-overload]
    # the suite's own aggregate from the log is the run report's
    report = build_report(store)
    summary = suite_summary(full)
    if suite in report:
        assert summary == {suite: report[suite]}
    # Inspect's mean of the score is the run's mean over its ok episodes
    [score_entry] = [s for s in full.results.scores if s.name == "score"]  # type: ignore[union-attr]
    assert score_entry.metrics["mean"].value == pytest.approx(report["tasks"][task]["score"]["mean"])
