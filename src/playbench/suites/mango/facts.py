"""MANGO's table of task facts: the one place its task ids, aliases, question kinds and group live."""

from dataclasses import dataclass
from typing import Literal

from playbench.stats.metric import Metric

#: Every MANGO task's score: a 0/1 success (strict for DF/RF questions, the goal reached in a minigame).
SCORE = Metric("success", "rate")
#: The three successes of a DF/RF answer: strict and reasoning are 0/1; loose gives partial credit in [0, 1].
ANSWER_METRICS: dict[str, Metric] = {"strict": Metric("strict", "rate"), "reasoning": Metric("reasoning", "rate"),
                                     "loose": Metric("loose", "bounded-mean", 0.0, 1.0)}

@dataclass(frozen=True)
class MangoTask:
    """One MANGO task. ``question`` is the report's DF/RF column (None for the minigames)."""

    name: str
    question: Literal["df", "rf"] | None
    about: str
    aliases: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``mango/<name>``."""
        return f"mango/{self.name}"


TASKS: tuple[MangoTask, ...] = (
    MangoTask("df", "df", "MANGO destination finding: where do these actions lead?", ("mango-df",)),
    MangoTask("rf", "rf", "MANGO route finding: how do you get from S to D?", ("mango-rf",)),
    MangoTask("minigame", None,
              "MANGO downstream minigames: name the walkthrough's next move (reconstruction of paper §3.5)"),
)

#: ``mango/benchmark``: the question tasks, with its description.
BENCHMARK_GROUP = ("mango/benchmark", "MANGO: destination finding and route finding")
