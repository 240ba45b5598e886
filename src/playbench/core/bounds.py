"""Bounds on what a run may ask for, declared once and checked by every face (no pydantic: ``list`` imports it)."""

from playbench.core.errors import PlaybenchError

#: The most episodes one run schedules, all its tasks together. A million episodes already take days of
#: model calls and fill a gigabyte of records: a larger count is a typo or a run.json from someone else, and
#: refusing it keeps what any face holds of a run's schedule (its plan, an Inspect dataset) in bounds.
MAX_EPISODES = 1_000_000


def check_episode_count(count: int) -> None:
    """Refuse (PlaybenchError, one line) ``count`` episodes of one run beyond ``MAX_EPISODES``."""
    if count > MAX_EPISODES:
        shown = str(count) if count < 10**18 else "more than 10^18"
        raise PlaybenchError(f"a run of {shown} episodes is more than playbench ever plays (at most {MAX_EPISODES:,}, "
                             "all tasks together): refused, nothing was made or changed")
