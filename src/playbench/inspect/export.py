"""A playbench run as an Inspect log (``playbench export RUN --format inspect``), through ``inspect_ai.log``.

One sample per episode (the latest record of each ``(task, index)``), as ``inspect eval`` of the same task
makes them: id ``task#index``, metadata task, index and episode seed; the transcript a native sample has
(the init span, then in the solver's span one model event per recorded request with its answer and usage
and one info event per game step, the episode's end event, the state change, then the scorer's span and
score: ``events.py``), so the two logs look alike side by side in ``inspect view``; the metrics Inspect
computes from the scorer named in the header (``recompute_metrics``). An ``infra-error`` episode is an
Inspect sample error, not a score.

Times come from the run: a sample starts at its record's ``started_at`` and lasts its ``duration_s``; each
model call lasts its step's recorded latency, the calls placed back to back from the start (the game's own
time between them is not recorded); the header spans the episodes. A step's progress is not recorded by a
run, so only the last step's event has one (the record's). Images come from the frames the run kept;
SmartPlay's two-stage *think* requests are not in a run's trajectory, so they are not in the log either
(their answers are in the step's ``extra``).
"""

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from inspect_ai._util.json import json_changes
from inspect_ai.dataset import Sample
from inspect_ai.event import (
    ErrorEvent,
    Event,
    InfoEvent,
    ModelEvent,
    SampleInitEvent,
    ScoreEvent,
    SpanBeginEvent,
    SpanEndEvent,
    StateEvent,
)
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalPlan,
    EvalPlanStep,
    EvalSample,
    EvalSpec,
    EvalStats,
    read_eval_log,
    recompute_metrics,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
)
from pydantic_core import to_jsonable_python

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.inspect.events import SOURCE, episode_data, step_data
from playbench.inspect.messages import recorded_to_inspect
from playbench.inspect.scoring import FIXED, episode_score
from playbench.log.read import RunLog
from playbench.models.types import Image

#: what marks a log this export wrote (an existing file is replaced only when it carries it)
MARK = "playbench_export"
SCORER = "playbench_score"
SOLVER = "playbench/play_episode"
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


def _seconds(value: Any) -> float:
    """A recorded duration in seconds; 0 where the run holds none (or no sensible one)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return float(value) if ok else 0.0


def _instant(value: Any) -> datetime | None:
    """A recorded ISO time with its zone (None: absent or not one)."""
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def episode_span(record: EpisodeRecord) -> tuple[datetime, datetime] | None:
    """When the episode started and ended, from its record's timing (None: the record has no start)."""
    start = _instant(record.timing.get("started_at"))
    return None if start is None else (start, start + timedelta(seconds=_seconds(record.timing.get("duration_s"))))


@dataclass
class _Transcript:
    """A sample's events, stamped on the run's clock (offsets in seconds from the episode's start)."""

    name: str
    start: datetime
    events: list[Event]
    offset: float = 0.0

    def add(self, event: Event, span: str | None = None) -> None:
        event.timestamp = self.start + timedelta(seconds=self.offset)
        event.working_start = self.offset
        event.span_id = span
        self.events.append(event)

    def span_id(self, kind: str) -> str:
        """An id of the span, from the sample's id."""
        return hashlib.sha256(f"{self.name}/{kind}".encode()).hexdigest()[:22]

    def begin(self, kind: str, name: str, parent: str | None = None) -> str:
        span = self.span_id(kind)
        self.add(SpanBeginEvent(id=span, parent_id=parent, type=kind, name=name), span)
        return span

    def end(self, span: str) -> None:
        self.add(SpanEndEvent(id=span), span)


def _state(messages: list[ChatMessage], output: ModelOutput, metadata: dict[str, Any]) -> dict[str, Any]:
    """The sample state as Inspect's transcript diffs it."""
    state = {"messages": messages, "tools": [], "store": {}, "output": output, "completed": False,
             "metadata": metadata}
    jsonable: dict[str, Any] = to_jsonable_python(state, exclude_none=True, fallback=lambda _: None)
    return jsonable


def _events(store: RunLog, record: EpisodeRecord, steps: list[StepRecord], sample: Sample, score: Any,
            error: EvalError | None) -> tuple[list[Event], list[ChatMessage], ModelOutput]:
    """The sample's transcript as ``inspect eval`` writes it, and its last request with the answer."""
    model = store.config.model or "none/none"
    span = episode_span(record)
    log = _Transcript(str(sample.id), span[0] if span else _instant(store.meta.created_at) or datetime.now().astimezone(),
                      [])
    init = log.begin("init", "init")
    first = [ChatMessageUser(content=str(sample.input), source="input")]
    before = _state(list(first), ModelOutput(model=model), dict(sample.metadata or {}))
    log.add(SampleInitEvent(sample=sample, state=before), init)
    log.end(init)
    solvers = log.begin("solvers", "solvers")
    solver = log.begin("solver", SOLVER, solvers)
    frames = _frames(store, steps)
    last: list[ChatMessage] = list(first)
    output = ModelOutput(model=model)
    for step in steps:
        latency = _seconds(step.timing.get("latency_s"))
        if step.messages is not None:  # a reference agent's step made no request
            request = recorded_to_inspect(step.messages, frames)
            output = ModelOutput.from_content(model=model, content=step.raw_output or "")
            output.usage = _usage(step.usage)
            call = ModelEvent(model=model, input=request, tools=[], tool_choice="none", config=GenerateConfig(),
                              output=output, working_time=latency,
                              completed=log.start + timedelta(seconds=log.offset + latency))
            log.add(call, solver)
            last = [*request, ChatMessageAssistant(content=step.raw_output or "", model=model)]
        log.offset += latency
        log.add(InfoEvent(source=SOURCE, data=step_data(step, record.progress if step is steps[-1] else None)), solver)
    if span is not None:
        log.offset = max(log.offset, (span[1] - span[0]).total_seconds())
    log.add(InfoEvent(source=SOURCE, data=episode_data(record)), solver)
    if error is None:
        after = _state(last, output, dict(sample.metadata or {}))
        log.add(StateEvent(changes=json_changes(before, after) or []), solver)
    log.end(solver)
    log.end(solvers)
    if error is not None:
        log.add(ErrorEvent(error=error))
        return log.events, last, output
    scorers = log.begin("scorers", "scorers")
    scorer = log.begin("scorer", SCORER, scorers)
    log.add(ScoreEvent(score=score, target="", scorer=SCORER), scorer)
    log.end(scorer)
    log.end(scorers)
    return log.events, last, output


def episode_sample(store: RunLog, record: EpisodeRecord) -> EvalSample:
    """One episode of ``store`` as an Inspect sample."""
    model = store.config.model or "none/none"
    notes: dict[str, Any] = {}
    try:
        steps = store.read_trajectory(record) if record.trajectory else []
    except PlaybenchError as exc:
        steps, notes["steps_unreadable"] = [], str(exc)
    answer = next((s.raw_output for s in reversed(steps) if s.messages is not None), None)
    infra = record.status == "infra-error"
    error = EvalError(message=f"infra-error: {record.error}", traceback="", traceback_ansi="") if infra else None
    score = None if infra else episode_score(record, answer)
    metadata = {"task": record.task, "index": record.index, "seed": record.seed, "base_seed": store.config.seed,
                "agent": record.agent}
    sample_id = f"{record.task}#{record.index}"
    text = f"{record.task} episode {record.index} (seed {record.seed})"
    events, last, output = _events(store, record, steps, Sample(id=sample_id, input=text, metadata=metadata),
                                   score, error)
    span = episode_span(record)
    usage = _usage(record.usage)
    return EvalSample(
        id=sample_id, epoch=1, input=text, target="", messages=last, output=output,
        scores=None if score is None else {SCORER: score},
        metadata={**metadata, "status": record.status, **notes}, store={},
        events=events, model_usage={model: usage} if usage else {}, error=error,
        started_at=span[0] if span else None, completed_at=span[1] if span else None,
        total_time=(span[1] - span[0]).total_seconds() if span else None,
        working_time=(span[1] - span[0]).total_seconds() if span else None,
    )


def task_name(store: RunLog) -> str:
    """The Inspect task that runs the run's tasks: ``playbench/<suite>`` for one suite, else ``playbench/group``."""
    suites = {t.id.split("/", 1)[0] for t in store.config.tasks}
    return f"playbench/{suites.pop()}" if len(suites) == 1 else "playbench/group"


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
    spans = [s for s in map(episode_span, latest.values()) if s is not None]
    name = task_name(store)
    ids = ",".join(t.id for t in config.tasks)
    spec = EvalSpec(
        created=meta.created_at, run_id=meta.run_id, task=name, task_registry_name=name, task_id=meta.run_id,
        task_args={"group" if name == "playbench/group" else "task": ids, "seed": config.seed, "agent": config.agent},
        dataset=EvalDataset(name=store.path.name, location=str(store.path), samples=len(samples),
                            sample_ids=[s.id for s in samples]),
        model=config.model or "none/none", config=EvalConfig(epochs=1), packages=dict(meta.versions),
        scorers=SCORERS,  # plain dicts, validated by pydantic into Inspect's scorer entries (a private class)
        metadata={MARK: True, "playbench": config.model_dump(mode="json"), "run_id": meta.run_id,
                  "config_hash": meta.config_hash},
    )
    stats = EvalStats(started_at=min(s[0] for s in spans).isoformat() if spans else meta.created_at,
                      completed_at=max(s[1] for s in spans).isoformat() if spans else "", model_usage=total)
    log = EvalLog(status="success", eval=spec, plan=EvalPlan(steps=[EvalPlanStep(solver=SOLVER)]), stats=stats,
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
