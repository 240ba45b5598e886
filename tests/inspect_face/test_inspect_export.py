"""``playbench export RUN --format inspect``: an Inspect log Inspect reads back and lists, one sample per episode."""

import json
import math
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log, resolve_sample_attachments

import playbench
from helpers import run_cli
from playbench.inspect import suite_summary
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
