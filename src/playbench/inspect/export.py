"""A playbench run as an Inspect log (``playbench export RUN --format inspect``), through ``inspect_ai.log``.

One sample per episode (the latest record of each ``(task, index)``), as the tasks in ``tasks.py`` make
them: id ``task#index``, metadata task, index and episode seed; one model event per recorded request with
its answer and usage; the score the live scorer gives (``scoring.episode_score``), and the metrics
Inspect computes from the scorer named in the header (``recompute_metrics``). An ``infra-error`` episode
is an Inspect sample error, not a score. Images come from the frames the run kept; SmartPlay's two-stage
*think* requests are not in a run's trajectory, so they are not in the log either (their answers are in
the step's ``extra``, kept in the store).
"""

from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalSample,
    EvalSpec,
    EvalStats,
    read_eval_log,
    recompute_metrics,
    write_eval_log,
)
from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, ModelOutput, ModelUsage

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.inspect.messages import recorded_to_inspect
from playbench.inspect.scoring import CONFIG_KEY, FIXED, RECORD_KEY, STEPS_KEY, episode_score
from playbench.log.read import RunLog
from playbench.models.types import Image

#: what marks a log this export wrote (an existing file is replaced only when it carries it)
MARK = "playbench_export"
SCORER = "playbench_score"
_MEAN_STDERR = [{"name": "inspect_ai/mean", "options": {}}, {"name": "inspect_ai/stderr", "options": {}}]
#: the live scorer's header entry (``scoring.playbench_score``), so Inspect recomputes the same metrics
SCORERS = [{"name": SCORER, "options": {}, "metadata": {},
            "metrics": [{key: _MEAN_STDERR for key in FIXED}, {"name": "playbench/suite_metrics", "options": {}}]}]


def _usage(usage: dict[str, int] | None) -> ModelUsage | None:
    if not usage or usage.get("tokens_unreported"):  # a partial count would read as the whole: leave it unknown
        return None
    inp, out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    return ModelUsage(input_tokens=inp, output_tokens=out, total_tokens=inp + out)


def _frames(store: RunLog, steps: list[StepRecord]) -> dict[str, bytes]:
    """The frames the agent saw, by the digest the messages name them with."""
    out: dict[str, bytes] = {}
    for step in steps:
        if step.frame:
            try:
                png = store.read_file(step.frame)
            except (PlaybenchError, OSError):
                continue  # shown as a placeholder naming the image
            out[Image(png).digest] = png
    return out


def episode_sample(store: RunLog, record: EpisodeRecord) -> EvalSample:
    """One episode of ``store`` as an Inspect sample."""
    model = store.config.model or "none/none"
    notes: dict[str, Any] = {}
    try:
        steps = store.read_trajectory(record) if record.trajectory else []
    except PlaybenchError as exc:
        steps, notes["steps_unreadable"] = [], str(exc)
    frames = _frames(store, steps)
    events: list[ModelEvent] = []
    last: list[ChatMessage] = []
    for step in steps:
        if step.messages is None:
            continue  # a reference agent's step: no request was made
        request = recorded_to_inspect(step.messages, frames)
        output = ModelOutput.from_content(model=model, content=step.raw_output or "")
        output.usage = _usage(step.usage)
        events.append(ModelEvent(model=model, input=request, tools=[], tool_choice="none", config=GenerateConfig(),
                                 output=output))
        last = [*request, ChatMessageAssistant(content=step.raw_output or "", model=model)]
    answer = steps[-1].raw_output if steps else None
    infra = record.status == "infra-error"
    kept = record.model_dump(mode="json", exclude={"timing"})
    usage = _usage(record.usage)
    return EvalSample(
        id=f"{record.task}#{record.index}", epoch=1, input=f"{record.task} episode {record.index} (seed {record.seed})",
        target="", messages=last, output=ModelOutput.from_content(model=model, content=answer or ""),
        scores=None if infra else {SCORER: episode_score(record, answer)},
        metadata={"task": record.task, "index": record.index, "seed": record.seed, "base_seed": store.config.seed,
                  "agent": record.agent, "status": record.status, **notes},
        store={CONFIG_KEY: store.config.model_dump(mode="json"), RECORD_KEY: kept,
               STEPS_KEY: [s.model_dump(mode="json", exclude={"timing", "messages"}) for s in steps]},
        events=list(events), model_usage={model: usage} if usage else {},
        error=EvalError(message=f"infra-error: {record.error}", traceback="", traceback_ansi="") if infra else None,
    )


def eval_log(store: RunLog) -> EvalLog:
    """``store`` (a playbench run) as an ``EvalLog``: one sample per episode, metrics computed by Inspect."""
    latest = store.latest_episodes()
    samples = [episode_sample(store, latest[key]) for key in sorted(latest)]
    config = store.config
    meta = store.meta
    total: dict[str, ModelUsage] = {}
    for sample in samples:
        for name, usage in sample.model_usage.items():
            total[name] = total[name] + usage if name in total else usage
    spec = EvalSpec(
        created=meta.created_at, run_id=meta.run_id, task="playbench/run", task_id=meta.run_id,
        task_args={"tasks": [t.id for t in config.tasks], "seed": config.seed, "agent": config.agent},
        dataset=EvalDataset(name=store.path.name, location=str(store.path), samples=len(samples),
                            sample_ids=[s.id for s in samples]),
        model=config.model or "none/none", config=EvalConfig(epochs=1), packages=dict(meta.versions),
        scorers=SCORERS,  # plain dicts, validated by pydantic into Inspect's scorer entries (a private class)
        metadata={MARK: True, "playbench": config.model_dump(mode="json"), "run_id": meta.run_id,
                  "config_hash": meta.config_hash},
    )
    log = EvalLog(status="success", eval=spec, stats=EvalStats(started_at=meta.created_at, model_usage=total),
                  samples=samples)
    if any(s.scores for s in samples):
        recompute_metrics(log)
    return log


def write_inspect_log(store: RunLog, target: Path) -> None:
    """Write ``store`` as an Inspect ``.eval`` log at ``target`` (Inspect's own writer, its current format)."""
    write_eval_log(eval_log(store), str(target), format="eval")


def is_inspect_export(path: Path) -> bool:
    """``path`` is an Inspect log this export wrote (its header carries the mark)."""
    try:
        return bool((read_eval_log(str(path), header_only=True).eval.metadata or {}).get(MARK))
    except Exception:  # anything unreadable or foreign is simply not an export
        return False

