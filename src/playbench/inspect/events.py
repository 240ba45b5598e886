"""What a playbench sample's transcript says beside its model calls: the game's side of each turn, then the end.

After each game step the solver logs an Inspect info event (source ``playbench``) with what the agent parsed,
the legal action it named (None: none), whether it was valid, the action executed, the reward, the game's
score and progress; after the last turn one more carries the episode's record (``timing`` aside). The scorer
reads that record back from the transcript, so nothing is also kept in the sample's store (Inspect logs a
store change once per enclosing span: twice for a solver). ``playbench export --format inspect`` writes
the same events from a run's trajectory.
"""

from collections.abc import Iterable
from typing import Any

from inspect_ai.event import Event, InfoEvent

from playbench.core.records import EpisodeRecord, StepRecord

#: the info events' source
SOURCE = "playbench"
#: the key of the episode's end event
EPISODE = "episode"


def step_data(step: StepRecord, progress: float | None) -> dict[str, Any]:
    """One turn's info event: the agent's parse, the game's answer (``progress``: None where it is not known)."""
    data: dict[str, Any] = {"step": step.step, "parsed": step.extra.get("completion"), "action": step.action,
                            "valid": step.valid, "executed": step.executed, "reward": step.reward,
                            "score": step.score, "progress": progress, "done": step.done}
    if step.extra.get("history_dropped"):
        data["history_dropped"] = step.extra["history_dropped"]  # the request left out older turns
    return data


def episode_data(record: EpisodeRecord) -> dict[str, Any]:
    """The episode's end event: its record (``timing`` aside, as every face drops it)."""
    return {EPISODE: record.model_dump(mode="json", exclude={"timing"})}


def is_episode_event(event: Event) -> bool:
    """``event`` is a playbench episode's end event."""
    return isinstance(event, InfoEvent) and event.source == SOURCE and isinstance(event.data, dict) \
        and EPISODE in event.data


def record_in(event: Event) -> EpisodeRecord | None:
    """The record an end event carries (None: ``event`` is none)."""
    if not is_episode_event(event):
        return None
    assert isinstance(event, InfoEvent) and isinstance(event.data, dict)
    return EpisodeRecord.model_validate(event.data[EPISODE])


def episode_record(events: Iterable[Event]) -> EpisodeRecord | None:
    """The record of the last end event among ``events`` (None: no episode ended there)."""
    found = None
    for event in events:
        found = record_in(event) or found
    return found
