"""The human agent: a person plays at the terminal through the same text a model sees."""

import signal
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from playbench.agents.base import Decision, EpisodeContext, Turn
from playbench.agents.prompts.history import observation_text
from playbench.core.errors import StopRun

#: the inputs on which the person has quit: later episodes reading them stop the run instead of asking
_QUIT: "weakref.WeakSet[TextIO]" = weakref.WeakSet()


class PlayerQuit(Exception):
    """The person quit (Ctrl-C or Ctrl-D): the episode ends here, recorded with the steps played so far."""


class _CtrlC(Exception):
    """Raised by the temporary SIGINT handler to break out of a blocking read."""


def _raise_ctrl_c(signum: int, frame: FrameType | None) -> None:
    raise _CtrlC


def model_view(turn: Turn) -> str:
    """The observation text a model is sent at this step.

    BALROG games give a long-term and a short-term context: the model's current message is
    ``Current Observation:``, the short-term context (health, inventory, messages ...), the long-term
    context and, in image mode, the image notice (``observation_text``, the prompt builder's own
    function). Other games' observation is the text itself.
    """
    info = turn.info
    if "long_term_context" in info:
        return observation_text(str(info.get("long_term_context") or ""), str(info.get("short_term_context") or ""),
                                image=info.get("image") is not None)
    return turn.observation


class HumanAgent:
    """Shows the manual, the observation the model would get and the numbered legal actions; reads a choice.

    A number picks that action; otherwise the text is matched to an action ignoring case. Free-text tasks
    read lines until an empty line. Unrecognised choices are asked again (a typo is not a move). In image
    mode the picture the model receives is written as a PNG and its path printed.
    """

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.picture_dir: Path | None = None

    def _picture(self, turn: Turn, image: Any) -> Path:
        """Write the step's picture (the model's image) as a PNG under a temporary folder."""
        import numpy as np
        from PIL import Image

        if self.picture_dir is None:
            self.picture_dir = Path(tempfile.mkdtemp(prefix="playbench-play-"))
        path = self.picture_dir / f"step-{turn.step:05d}.png"
        Image.fromarray(np.asarray(image, dtype=np.uint8)).save(path)
        return path

    def _say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def _read(self, prompt: str) -> str:
        """One line from the person; Ctrl-D (end of input) or Ctrl-C while waiting for it is quitting.

        The read blocks the event loop, whose own SIGINT handler only cancels the run's task at the loop's
        next turn, which a blocked read never reaches: so while waiting here Ctrl-C raises instead.
        """
        in_main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, _raise_ctrl_c) if in_main else None
        try:  # the handler is in place before the prompt shows: a Ctrl-C typed at once is seen
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline()
        except _CtrlC:
            line = None
        finally:
            if in_main:
                signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
        if not line:
            _QUIT.add(self.stdin)
            key = "Ctrl-C" if line is None else "Ctrl-D"
            self._say(f"\nquit ({key}): this episode is recorded with the steps played so far")
            raise PlayerQuit(f"the player quit ({key})")
        return line.rstrip("\n")

    async def start(self, ctx: EpisodeContext) -> None:
        """Print the manual once per episode; after the person has quit, stop the run instead."""
        if self.stdin in _QUIT:
            _QUIT.discard(self.stdin)  # this run stops here; a later one on the same input asks again
            raise StopRun("the player quit")
        self._say(f"=== {ctx.task_id}, episode {ctx.index} (seed {ctx.seed}) ===")
        if ctx.manual:
            self._say("--- manual ---")
            self._say(ctx.manual)

    async def act(self, turn: Turn) -> Decision:
        """Ask until the person names a legal action (or, for free text, types an answer)."""
        self._say(f"--- step {turn.step} ---")
        self._say(model_view(turn))
        image = turn.info.get("image")
        if image is not None:
            self._say(f"picture (what the model sees): {self._picture(turn, image).as_uri()}")
        if turn.legal_actions is None:
            self._say("Type your answer; finish with an empty line.")
            lines = []
            while (line := self._read("")) != "":
                lines.append(line)
            answer = "\n".join(lines)
            return Decision(raw=answer, action=answer)
        for i, action in enumerate(turn.legal_actions, start=1):
            self._say(f"{i}. {action}")
        while True:
            choice = self._read("action> ").strip()
            if choice.isdigit() and 1 <= int(choice) <= len(turn.legal_actions):
                action = turn.legal_actions[int(choice) - 1]
                return Decision(raw=choice, action=action)
            matches = [a for a in turn.legal_actions if a.lower() == choice.lower()]
            if matches:
                return Decision(raw=choice, action=matches[0])
            self._say(f"not an action: {choice!r}; type a number from 1 to {len(turn.legal_actions)}")


def human_agent(params: Any, model: Any) -> HumanAgent:
    """The human agent's factory (its row in ``agents/registry.py``): a person needs no parameters or model."""
    return HumanAgent()
