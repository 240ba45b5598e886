"""``playbench export RUN --format inspect``: an Inspect log Inspect reads back and lists, one sample per episode."""

import json
import math
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.event import Event, InfoEvent, SpanBeginEvent
from inspect_ai.log import EvalSample, list_eval_logs, read_eval_log, resolve_sample_attachments
from inspect_ai.model import ModelOutput, get_model

import playbench
from helpers import run_cli
from playbench.inspect import suite_summary
from playbench.inspect.events import episode_record
from playbench.inspect.messages import message_dicts
from playbench.report.build import build_report
from playbench.rl import ChatEnv, Rollout, write_run


def test_export_round_trip_through_inspects_reader(tmp_path: Path) -> None:
    run = playbench.eval("balrog/babyai/goto", model="mock/demo", episodes=3, seed=2, log_dir=tmp_path,
                         model_params={"invalid_rate": 0.3})
    store = playbench.read_run(run.path)
    done = run_cli("export", str(run.path), "--format", "inspect")
    assert done.returncode == 0, done.stderr
    target = run.path / "export.eval"
    assert done.stdout.strip() == str(target)

    log = read_eval_log(str(target))
    assert log.eval.task == "playbench/balrog"  # the task that runs it in Inspect
    records = {f"{r.task}#{r.index}": r for r in store.episodes()}
    assert log.samples is not None and [s.id for s in log.samples] == sorted(records)
    for sample in log.samples:
        sample = resolve_sample_attachments(sample)
        record = records[str(sample.id)]
        steps = store.read_trajectory(record)
        value = sample.scores["playbench_score"].value  # type: ignore[index]
        assert isinstance(value, dict) and value["score"] == record.score and sample.error is None
        assert sample.metadata["seed"] == record.seed and sample.metadata["status"] == "ok"
        events = [e for e in sample.events if e.event == "model"]
        assert [json.dumps(message_dicts(e.input)) for e in events] == [json.dumps(s.messages) for s in steps]
        assert [e.output.completion for e in events] == [s.raw_output for s in steps]
        usage = sample.model_usage["mock/demo"]
        assert (usage.input_tokens, usage.output_tokens) == (record.usage["input_tokens"], record.usage["output_tokens"])
        kept = episode_record(sample.events)
        assert kept is not None and kept.model_dump(exclude={"timing"}) == record.model_dump(exclude={"timing"})
        # the run's timing: the sample's span is the record's; each call lasts its step's latency
        start = datetime.fromisoformat(record.timing["started_at"])
        assert sample.started_at and sample.completed_at and sample.total_time == record.timing["duration_s"]
        assert datetime.fromisoformat(sample.started_at) == start
        assert datetime.fromisoformat(sample.completed_at) == start + timedelta(seconds=record.timing["duration_s"])
        assert [e.working_time for e in events] == [s.timing["latency_s"] for s in steps]
    report = build_report(store)
    [score] = [s for s in log.results.scores if s.name == "score"]  # type: ignore[union-attr]
    assert score.metrics["mean"].value == report["tasks"]["balrog/babyai/goto"]["score"]["mean"]
    assert suite_summary(log) == {"balrog": report["balrog"]}
    # Inspect's own listing of the run folder shows it
    assert [Path(info.name.removeprefix("file://")) for info in list_eval_logs(str(run.path))] == [target]

    # an earlier export is replaced; any other file is refused untouched
    assert run_cli("export", str(run.path), "--format", "inspect").returncode == 0
    foreign = tmp_path / "mine.eval"
    foreign.write_text("not a log")
    done = run_cli("export", str(run.path), "--format", "inspect", "-o", str(foreign))
    assert done.returncode == 2 and "not an Inspect log written by playbench export" in done.stderr
    assert foreign.read_text() == "not a log"


def test_an_infra_error_is_an_inspect_sample_error_not_a_score(tmp_path: Path) -> None:
    rollouts = []
    for index in range(2):
        env = ChatEnv("mango/df", index=index, seed=0, model="mock/demo")
        env.reset()
        env.step("I do not know")
        rollouts.append(env.rollout())
    failed = rollouts[1].record.model_copy(update={"status": "infra-error", "score": None, "completion": None,
                                                   "progress": None, "error": "model: HTTP 500 after 3 attempts"})
    rollouts[1] = Rollout(rollouts[1].config, failed, rollouts[1].steps)
    store = write_run(tmp_path, rollouts)
    target = tmp_path / "out.eval"
    done = run_cli("export", str(store.path), "--format", "inspect", "-o", str(target))
    assert done.returncode == 0, done.stderr
    log = read_eval_log(str(target))
    assert log.samples is not None and len(log.samples) == 2
    ok, bad = log.samples
    assert ok.error is None and ok.scores is not None
    value = ok.scores["playbench_score"].value
    assert isinstance(value, dict) and not math.isnan(float(value["score"] or 0))
    assert bad.scores is None and bad.error is not None and "HTTP 500" in bad.error.message
    assert bad.metadata["status"] == "infra-error"


def _shape(sample: EvalSample) -> list[tuple[Any, ...]]:
    """What the viewer lays out: each event's kind, with a span's type and name and an info event's keys."""
    def one(e: Event) -> tuple[Any, ...]:
        if isinstance(e, SpanBeginEvent):
            return (e.event, e.type, e.name)
        if isinstance(e, InfoEvent):
            return (e.event, e.source, sorted(e.data))  # type: ignore[arg-type]
        return (e.event,)

    return [one(e) for e in sample.events]


def test_an_exported_sample_has_the_transcript_of_a_native_one(tmp_path: Path) -> None:
    run = playbench.eval("balrog/babyai/goto", model="mock/demo", episodes=1, seed=4, log_dir=tmp_path / "runs",
                         task_params={"max_steps": 6}, model_params={"invalid_rate": 0.3})
    store = playbench.read_run(run.path)
    [record] = store.episodes()
    steps = store.read_trajectory(record)
    answers = iter([s.raw_output or "" for s in steps])  # the run's answers, in order: the same episode

    def replay(*_: Any) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm", content=next(answers))

    [native] = inspect_eval("playbench/balrog", task_args={"task": "balrog/babyai/goto", "episodes": 1, "seed": 4,
                                                           "max_steps": 6},
                            model=get_model("mockllm/model", custom_outputs=replay), log_dir=str(tmp_path / "logs"),
                            display="none")
    target = tmp_path / "run.eval"
    assert run_cli("export", str(run.path), "--format", "inspect", "-o", str(target)).returncode == 0
    exported = read_eval_log(str(target))
    assert native.samples is not None and exported.samples is not None
    live, export = native.samples[0], exported.samples[0]
    assert len(steps) > 2 and _shape(export) == _shape(live)
    assert exported.eval.task == native.eval.task == "playbench/balrog"
    # the turns say the same, but for the progress a run does not keep per step (its last is the record's)
    turns = [[e.data for e in s.events if isinstance(e, InfoEvent)] for s in (live, export)]
    for mine, theirs in zip(*turns, strict=True):
        assert isinstance(mine, dict) and isinstance(theirs, dict)
        if "episode" in mine:
            volatile = {"model", "trajectory"}
            assert {k: v for k, v in mine["episode"].items() if k not in volatile} == \
                {k: v for k, v in theirs["episode"].items() if k not in volatile}
        else:
            assert {**mine, "progress": None} == {**theirs, "progress": None}
            assert theirs["progress"] in (None, mine["progress"])
    # the header spans the run's episode: no unknown ("NaN") times
    started, completed = (datetime.fromisoformat(t) for t in (exported.stats.started_at, exported.stats.completed_at))
    assert export.started_at and export.completed_at and completed >= started
    assert (started, completed) == (datetime.fromisoformat(export.started_at), datetime.fromisoformat(export.completed_at))


def test_a_run_of_several_suites_is_exported_as_playbench_group(tmp_path: Path) -> None:
    run = playbench.eval(["mango/df", "grasp/energy"], model="mock/demo", episodes=1, log_dir=tmp_path)
    target = tmp_path / "run.eval"
    assert run_cli("export", str(run.path), "--format", "inspect", "-o", str(target)).returncode == 0
    log = read_eval_log(str(target), header_only=True)
    assert log.eval.task == "playbench/group" and log.eval.task_args["group"] == "mango/df,grasp/energy"
