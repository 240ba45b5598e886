"""GRASP's table of task facts: the one place its task ids, aliases and default episode caps live."""

from dataclasses import dataclass


@dataclass(frozen=True)
class GraspTask:
    """One GRASP task: a one-step plan per grid, or one action per turn (``interactive``)."""

    name: str
    interactive: bool
    about: str
    aliases: tuple[str, ...] = ()
    #: Cap on the default episode count (None: every selected instance).
    episode_cap: int | None = None

    @property
    def id(self) -> str:
        """``grasp/<name>``."""
        return f"grasp/{self.name}"


TASKS: tuple[GraspTask, ...] = (
    GraspTask("energy", False,
              "GRASP: plan up to 20 actions on an 11x11 grid to bring energy home (one answer per grid)",
              ("GRASP-v0",)),
    # 40 = the 8 constraint combinations x the 5 distributions (inner start, obstacles); each episode is
    # up to 20 model calls, so a default run stays in the same range of calls as the one-step task.
    GraspTask("energy-interactive", True,
              "GRASP instances played one action per turn, seeing the grid after each action (playbench)",
              episode_cap=40),
)
