"""``play`` shows a person exactly what the model is sent: BALROG's short- and long-term text and picture."""

import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest
from PIL import Image

from helpers import only_run_dir, run_cli
from playbench.log import read_run

TASK = "balrog/crafter/default"


def model_first_step(tmp_path: Path, *extra: str, task: str = TASK) -> tuple[str, Path | None]:
    """The last user message of the naive agent's first request, and the frame it saw (image mode)."""
    log = tmp_path / "model"
    res = run_cli("eval", task, "--model", "mock/demo", "--episodes", "1", "--seed", "3", "-T", "max_steps=1",
                  *extra, "--log-dir", str(log), "--quiet")
    assert res.returncode == 0, res.stderr
    run = read_run(only_run_dir(log))
    (record,) = run.episodes()
    first = run.read_trajectory(record)[0]
    assert first.messages is not None
    content = [m for m in first.messages if m["role"] == "user"][-1]["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return text, (run.inside(first.frame) if first.frame else None)


def played_first_step(tmp_path: Path, *extra: str, task: str = TASK, first: str = "Noop") -> tuple[str, str]:
    """What ``play`` prints for step 0 (up to the numbered actions) and the rest of that screen."""
    child = pexpect.spawn(sys.executable, ["-m", "playbench.cli.main", "play", task, "--seed", "3", "-T", "max_steps=1",
                                           *extra, "--log-dir", str(tmp_path / "human")],
                          encoding="utf-8", timeout=120, dimensions=(50, 200))
    child.expect("--- step 0 ---\r\n")
    child.expect("\r\n1\\. " + first)
    shown = child.before.replace("\r\n", "\n")
    child.expect("action> ")
    child.sendline("1")
    child.expect("run written to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return shown, shown


def test_play_prints_the_models_observation_text(tmp_path):
    sent, _ = model_first_step(tmp_path)
    shown, _ = played_first_step(tmp_path)
    # the person sees the status block (short-term context) and the map text (long-term), as the model does
    assert "health: 9/9" in shown and "You see" in shown and shown.startswith("Current Observation:\n")
    assert sent.startswith(shown), (sent[:400], shown[:400])
    assert sent[len(shown):].startswith("\n\n")  # what follows is the naive agent's instruction only


@pytest.mark.parametrize(("task", "first"), [("smartplay/hanoi-3", "Move the top disk of rod A to the top of rod B"),
                                             ("balrog/babyai/goto", "turn left"),
                                             ("balrog/minihack/corridor-r3", "north"),
                                             ("balrog/nle/nethackchallenge", "north")])
def test_play_prints_the_observation_of_other_games(tmp_path, task, first):
    sent, _ = model_first_step(tmp_path, task=task)
    shown, _ = played_first_step(tmp_path, task=task, first=first)
    assert len(shown) > 40 and shown in sent, (sent[:400], shown[:400])


def test_play_in_image_mode_shows_the_models_picture(tmp_path):
    sent, frame = model_first_step(tmp_path, "-T", "images=true")
    shown, _ = played_first_step(tmp_path, "-T", "images=true")
    text, _, picture_line = shown.rpartition("\npicture (what the model sees): ")
    assert sent.startswith(text) and text.endswith("Image observation provided.")
    assert frame is not None and picture_line.startswith("file://")
    picture = Path(picture_line.removeprefix("file://").strip())
    assert np.array_equal(np.asarray(Image.open(picture)), np.asarray(Image.open(frame)))
