"""Re-play of a model-played BALROG submission (a leaderboard row): the model's recorded answers, step by step.

A row of BALROG's leaderboard (github.com/balrog-ai/experiments) publishes, per episode, the JSON file BALROG's
evaluator wrote (its ``seed``, ``process_num``, progression ...) and its CSV of steps. Each CSV row holds the
model's answer as the agent parsed it (``Action``: BALROG's ``response.completion``), the observation text
*after* the step, the reward and done. This module plays each episode again from its recorded seed, as
BALROG's evaluator seeded it, feeding those answers through BALROG's own validity check (an answer outside
the action set plays the environment's default action: ``-A compat=true``'s exact match), and compares each
row's observation, reward and done, then the episode's progression and step count.

The rows were written by the BALROG code of their date, and three evaluator versions are told apart by the
files themselves (``Style``):

- before the public repository (2024-11): columns ``Step, Observation, Action, ...``; the note quotes the
  answer (``Your previous output action: '…' is not a valid action. Defaulted to action: …``);
- 2024-11-21 to 2025-01-28: ``Step, Action, ...``; the same note;
- from 2025-01-28 (``c347aa8``): ``Your previous output did not contain a valid action. Defaulted to action: …``.

How each environment's instance is found again (``leaderboard_games.py``, ``leaderboard_crafter.py``) follows
what determined it in BALROG: the seed alone (BabyAI, Baba Is AI, MiniHack, NetHack), a per-process game counter
(TextWorld), or the global NumPy state the worker process was left in (Crafter). Where the original itself leaves a part
undetermined, the episode is not verifiable and the reason says which part.
"""

import asyncio
import csv
import io
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from playbench.core.errors import PlaybenchError
from playbench.core.verdict import Difference, Finding, NotVerifiable, VerifyResult, same, settle
from playbench.suites.balrog.submission import read_bytes

#: The steps table's columns: the public evaluator's order, and the order of the rows made before it.
COLUMNS = ("Step", "Action", "Reasoning", "Observation", "Reward", "Done")
EARLY_COLUMNS = ("Step", "Observation", "Action", "Reasoning", "Reward", "Done")
#: The two invalid-action notes BALROG's evaluator has written (before and after commit c347aa8, 2025-01-28).
QUOTED_NOTE = "\n\nYour previous output action: '{answer}' is not a valid action. Defaulted to action: {action}\n"
PLAIN_NOTE = "\n\nYour previous output did not contain a valid action. Defaulted to action: {action}\n\nObservation:\n"
#: The date BALROG's evaluator changed its note; a row with no note at all is placed by its date.
PLAIN_NOTE_SINCE = "2025-01-28"

Style = Literal["early", "quoted", "plain"]
#: Environments whose instance does not depend on the reset seed: TextWorld's game is the worker's counter's,
#: and the seed BALROG passed only seeded the gym env's draw among its one game file. An episode file
#: without a seed (Claude-3.5-Sonnet's TextWorld) is re-played all the same.
SEEDLESS = frozenset({"textworld"})
#: What ``verify`` says of a model-played row beside its counts.
ROW_NOTE = ("model-played episodes were re-played from their recorded answers (BALROG's exact-match validity "
            "check, default action otherwise) on the instances BALROG's code of the row's date made")


@dataclass(frozen=True)
class Step:
    """One row of an episode's steps table."""

    number: str
    answer: str  # the agent's parsed answer (``response.completion``)
    observation: str  # the observation after the step, with the note when the answer was invalid
    reward: str
    done: str


@dataclass
class Played:
    """One model-played episode as its two files hold it."""

    env: str
    task: str  # BALROG's task name (``BabyAI-MixedTrainLocal-v0/goto``, ``env/goto_win`` ...)
    task_id: str  # playbench's
    label: str
    index: int
    seed: int
    data: dict[str, Any]
    steps: list[Step]
    early: bool  # the table has the early column order (the evaluator before the public repository)

    @property
    def process(self) -> str | None:
        """The worker that played it (``ForkProcess-12``), as recorded."""
        value = self.data.get("process_num")
        return value if isinstance(value, str) else None


@dataclass
class Row:
    """What every episode of a folder shares: its date, its note style, and who played what in which process."""

    folder: Path
    date: str | None  # YYYY-MM-DD, from metadata.yaml, else the folder name
    style: Style
    #: process name -> [(env, task, index, seed)] of every episode file of the folder (seed None: not recorded)
    processes: dict[str, list[tuple[str, str, int, int | None]]] = field(default_factory=dict)

    def named_date(self) -> str | None:
        """The date the folder's name starts with (``YYYYMMDD_…``): the row's run, where ``date`` is its submission."""
        named = re.match(r"(\d{4})(\d{2})(\d{2})[_-]", self.folder.resolve().name)
        return "-".join(named.groups()) if named else None

    def seeds_of(self, process: str | None, but: Played) -> list[int]:
        """The recorded seeds of the other episodes its worker played (in file order, each once)."""
        found: list[int] = []
        for env, task, index, seed in self.processes.get(process or "", []):
            if seed is not None and (env, task, index) != (but.env, but.task, but.index) and seed not in found:
                found.append(seed)
        return found


class Player(Protocol):
    """An environment made as BALROG made the episode's, stepped with executed actions.

    ``recorded(text)`` gives the part of a recorded observation the player's texts are compared with (all
    of it, but for what the original itself shows from outside the episode, such as NetHack's top ten), or
    None when that step's observation is not compared (an end screen made of the machine's earlier games).
    """

    #: BALROG's action set (None: any text is a command), its default action and its loop's step limit
    legal: list[str] | None
    default: str
    limit: int

    def step(self, action: str) -> tuple[str, float, bool]:
        """Play one valid action: the observation text BALROG's wrapper gave (no note), reward, done."""

    def recorded(self, text: str) -> str | None:
        """The part of a recorded observation that is compared (None: not this step's)."""

    def progression(self) -> float:
        """The episode's progression as that BALROG version computed it."""

    def close(self) -> None:
        """Release the engine."""


#: env -> how its player is opened: (episode, row) -> Player (raises NotVerifiable with the reason)
Opener = Callable[[Played, Row], Player]


def read_steps(folder: Path, relative: str) -> tuple[list[Step], bool]:
    """An episode's steps table, in either column order: (steps, early order). PlaybenchError when unreadable."""
    name = relative.rpartition("/")[2]
    try:
        text = read_bytes(folder, relative).decode("utf-8")
    except FileNotFoundError:
        raise PlaybenchError(f"its steps file {name} is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PlaybenchError(f"its steps file {name} cannot be read ({type(exc).__name__})") from None
    try:
        table = list(csv.reader(io.StringIO(text, newline=""), escapechar="˘"))
    except csv.Error:
        table = []
    header = tuple(table[0]) if table else ()
    if header not in (COLUMNS, EARLY_COLUMNS) or any(len(line) != 6 for line in table[1:]):
        raise PlaybenchError(f"{name} is not BALROG's steps table")
    at = {column: header.index(column) for column in header}
    steps = [Step(line[at["Step"]], line[at["Action"]], line[at["Observation"]], line[at["Reward"]],
                  line[at["Done"]]) for line in table[1:]]
    return steps, header == EARLY_COLUMNS


def note_style(texts: Iterator[str], date: str | None) -> Style:
    """The folder's invalid-action note: the one its observations show, else the one of its date's BALROG."""
    for text in texts:
        if text.startswith("\n\nYour previous output action: '"):
            return "quoted"
        if text.startswith("\n\nYour previous output did not contain a valid action."):
            return "plain"
    return "plain" if date is not None and date >= PLAIN_NOTE_SINCE else "quoted"


def with_note(style: Style, early: bool, answer: str, action: str, text: str) -> str:
    """The observation BALROG recorded after an invalid answer (``action`` the default it played).

    ``early`` (the steps table's column order) does not change the note: the evaluator before the public
    repository wrote the quoted one too (Claude-3.5-Sonnet's Baba Is AI rows show it).
    """
    del early  # kept for the callers' signature
    if style == "quoted":
        return QUOTED_NOTE.format(answer=answer, action=action) + text
    return PLAIN_NOTE.format(action=action) + text


def valid(answer: str, legal: list[str] | None) -> bool:
    """BALROG's ``check_action_validity``: the answer is in the action set, exactly (any text where there is none)."""
    return legal is None or answer in legal


async def replay(episode: Played, row: Row, opener: Opener) -> Difference | None:
    """Play the episode's answers again and compare every row, then its progression and step count."""
    if not episode.steps:
        return Difference("num_steps", 0, "at least 1")
    player = await asyncio.to_thread(opener, episode, row)
    try:
        return await asyncio.to_thread(_compare, episode, row, player)
    finally:
        player.close()


def _compare(episode: Played, row: Row, player: Player) -> Difference | None:
    done = False
    for k, step in enumerate(episode.steps):
        if done:
            return Difference("Done", "False", "True", k - 1)
        if step.number != str(k):
            return Difference("Step", step.number, str(k), k)
        action = step.answer if valid(step.answer, player.legal) else player.default
        text, reward, done = player.step(action)
        if action != step.answer:
            text = with_note(row.style, episode.early, step.answer, action, text)
        shown = player.recorded(step.observation)
        for name, recorded, replayed in (("Observation", text if shown is None else shown, text),
                                          ("Reward", recorded_number(step.reward), float(reward)),
                                          ("Done", step.done, str(bool(done)))):
            if not same(recorded, replayed):
                if name == "Done" and step.done == "True" and k + 1 == len(episode.steps) < player.limit:
                    # playbench's export of a run stopped by -T max_steps: its step says done (BALROG's would not)
                    raise NotVerifiable(f"it ends at step {k}, before its game does: a step limit of the run "
                                        "(-T max_steps), which the folder does not record (the steps before agree)")
                return Difference(name, recorded, replayed, k)
    steps = len(episode.steps)
    if not done and steps < player.limit:
        raise NotVerifiable(f"it stops at step {steps - 1}, before its game ends and before the environment's "
                            f"{player.limit} steps: a step limit of the run (eval.max_steps_per_episode), which "
                            "the folder does not record (the steps before agree)")
    for key, replayed in (("num_steps", steps), ("progression", player.progression())):
        if not same(episode.data.get(key), replayed):
            return Difference(key, episode.data.get(key), replayed)
    return None


def recorded_number(value: Any) -> float | None:
    """A number as a record writes it (a CSV cell, a JSON value); None when it is none or not finite."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def env_counts(findings: list[Finding]) -> dict[str, tuple[int, int, int]]:
    """(verified, differing, not verifiable) per environment (a finding's task is ``balrog/<env>/…``)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for finding in findings:
        parts = finding.task.split("/")
        env = parts[1] if parts[0] == "balrog" and len(parts) > 2 else parts[0]
        counts[env][("verified", "differs", "not-verifiable").index(finding.verdict)] += 1
    return {env: (v, d, n) for env, (v, d, n) in counts.items()}


def count_notes(result: VerifyResult) -> None:
    """Add each environment's ``N verified, M differing, K not verifiable`` to the notes."""
    for env, (verified, differing, unverifiable) in env_counts(result.findings).items():
        result.notes.append(f"{env}: {verified} verified, {differing} differing, {unverifiable} not verifiable")


def replay_all(episodes: list[Played], row: Row, openers: dict[str, Opener], result: VerifyResult,
               runner: asyncio.Runner) -> None:
    """Settle each episode into a finding, in order."""
    for episode in episodes:
        opener = openers.get(episode.env)
        if opener is None:
            finding = Finding(episode.label, episode.index, "not-verifiable",
                              reason=f"this playbench re-plays no {episode.env} episode of a model-played row")
        else:
            finding = settle(runner, episode.label, episode.index, replay(episode, row, opener))
        result.findings.append(finding)
