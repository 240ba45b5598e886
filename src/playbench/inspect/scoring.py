"""The episode's score in Inspect: a dict value (score, completion, progress, the suite's numeric metrics).

``score``, ``completion`` and ``progress`` are in every value (NaN, which Inspect leaves out of its metrics,
for an episode that did not end ``ok``: playbench scores ``ok`` episodes only) and get Inspect's ``mean`` and
``stderr``. The suite's own metrics differ between tasks (and some are not numbers), so the numeric ones are
averaged by ``suite_metrics``, which applies Inspect's ``mean`` and ``stderr`` to each key over the samples
that have it.
"""

import math
from collections import defaultdict
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord
from playbench.inspect.events import is_episode_event, record_in

#: the keys every score value holds
FIXED = ("score", "completion", "progress")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def score_value(record: EpisodeRecord) -> dict[str, float]:
    """The Score value of an episode: the fixed keys (NaN unless ``ok``) and its numeric suite metrics."""
    ok = record.status == "ok"
    value: dict[str, float] = {}
    for key in FIXED:
        number = _number(getattr(record, key)) if ok else None
        value[key] = math.nan if number is None else number
    if ok:
        for key, raw in record.metrics.items():
            number = _number(raw)
            if number is not None and key not in value:
                value[key] = number
    return value


def episode_score(record: EpisodeRecord, answer: str | None) -> Score:
    """The Inspect ``Score`` of a finished episode (its record is the transcript's end event, not repeated here)."""
    explanation = f"{record.status}: {record.steps} steps, {record.invalid_actions} invalid actions"
    if record.error:
        explanation += f"; {record.error}"
    return Score(value=score_value(record), answer=answer, explanation=explanation, metadata={"status": record.status})


@metric
def suite_metrics() -> Metric:
    """Inspect's ``mean`` and ``stderr`` of each suite metric (``KEY_mean``, ``KEY_stderr``) over the samples having it."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_key: dict[str, list[SampleScore]] = defaultdict(list)
        for s in scores:
            if isinstance(s.score.value, dict):
                for key, value in s.score.value.items():
                    if key not in FIXED and _number(value) is not None:
                        by_key[key].append(SampleScore(score=Score(value=value), sample_id=s.sample_id,
                                                       sample_metadata=s.sample_metadata))
        out: dict[str, float] = {}
        for key in sorted(by_key):
            out[f"{key}_mean"] = float(mean()(by_key[key]))  # type: ignore[arg-type]
            out[f"{key}_stderr"] = float(stderr()(by_key[key]))  # type: ignore[arg-type]
        return out

    return compute


@scorer(metrics=[{key: [mean(), stderr()] for key in FIXED}, suite_metrics()])
def playbench_score() -> Scorer:
    """The suite's score of the episode the solver played (its record, the transcript's end event)."""
    async def score(state: TaskState, target: Target) -> Score:
        event = transcript().history.find_last(is_episode_event)
        record = None if event is None else record_in(event)
        if record is None:
            raise PlaybenchError(f"sample {state.sample_id}: no playbench episode ended in its transcript")
        return episode_score(record, state.output.completion if state.output else None)

    return score
