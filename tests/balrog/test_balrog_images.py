"""BALROG's VLM images: the PNG bytes sent are BALROG's client's, and the frame a run records is that PNG.

BALROG's environments hand its client ``Image.fromarray(render).convert("RGB")`` and the client sends
``image.save(buf, format="PNG")`` as base64 in a data URL (``balrog/client.py``, ``process_image_openai``;
``process_image_claude`` the same bytes). Each run below plays against the recording loopback FakeServer;
the game is then replayed from the recorded seed and executed actions, and every frame encoded BALROG's
way must be, byte for byte, the image the request carried and the run's frame file, whose digest is the one
the recorded request names.
"""

import base64
import hashlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage

import playbench
from playbench.agents.prompts.images import to_png
from playbench.core.png import png_bytes
from playbench.core.registry import get_task
from playbench.log import read_run
from playbench.models.fakeserver import FakeServer

PARAMS = {"images": "true", "max_steps": "3"}
SEED = 11
PNG = b"\x89PNG\r\n\x1a\n"


def _balrog_png(array: Any) -> bytes:
    """The bytes BALROG's client sends for this frame."""
    buffered = io.BytesIO()
    PILImage.fromarray(np.asarray(array)).convert("RGB").save(buffered, format="PNG")
    return buffered.getvalue()


def _openai_images(body: dict[str, Any]) -> list[bytes]:
    out = []
    for message in body["messages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part["type"] == "image_url":
                head, _, data = part["image_url"]["url"].partition(",")
                assert head == "data:image/png;base64"
                out.append(base64.b64decode(data, validate=True))
    return out


def _anthropic_images(body: dict[str, Any]) -> list[bytes]:
    blocks = [b for m in body["messages"] for b in m["content"] if b["type"] == "image"]
    assert all(b["source"]["type"] == "base64" and b["source"]["media_type"] == "image/png" for b in blocks)
    return [base64.b64decode(b["source"]["data"], validate=True) for b in blocks]


def _google_images(body: dict[str, Any]) -> list[bytes]:
    parts = [p["inlineData"] for c in body["contents"] for p in c["parts"] if "inlineData" in p]
    assert all(p["mimeType"] == "image/png" for p in parts)
    return [base64.b64decode(p["data"], validate=True) for p in parts]


IMAGES = {"openai": _openai_images, "anthropic": _anthropic_images, "google": _google_images}
SUFFIX = {"openai": "/v1", "anthropic": "", "google": ""}


def _replayed_frames(task_id: str, seed: int, executed: list[str]) -> list[np.ndarray]:
    """The game's ``info["image"]`` before each executed action: the frame the agent saw at that step."""
    task = get_task(task_id)
    game = task.make_game(task.params(PARAMS), 0)
    _, info = game.reset(seed=seed)
    frames = []
    for action in executed:
        frames.append(np.asarray(info["image"]))
        _, _, _, _, info = game.step(action)
    return frames


def _check_run(tmp_path: Path, task_id: str, provider: str) -> None:
    with FakeServer(record=True) as srv:
        result = playbench.eval(task_id, model=f"{provider}/x", base_url=srv.url + SUFFIX[provider], episodes=1,
                                seed=SEED, task_params=PARAMS, log_dir=str(tmp_path))
        bodies = [body for _, body in srv.received]
    run = read_run(result.path)
    (record,) = run.episodes()
    steps = run.read_trajectory(record)
    assert record.status == "ok" and len(steps) == len(bodies) == record.steps > 0  # one request a step
    frames = _replayed_frames(task_id, record.seed, [s.executed for s in steps])
    for step, body, frame in zip(steps, bodies, frames, strict=True):
        sent = IMAGES[provider](body)
        assert sent and all(p.startswith(PNG) for p in sent)
        assert sent[-1] == _balrog_png(frame)  # the step's frame, last: BALROG's bytes for the same pixels
        assert step.frame is not None
        recorded = run.read_file(step.frame)
        assert recorded == sent[-1]  # the frame file IS the image sent
        digests = [i["sha256"] for m in step.messages or [] for i in m.get("images", [])]
        assert digests[-1] == hashlib.sha256(recorded).hexdigest()[:16]  # one digest, request and file


@pytest.mark.parametrize("task_id", ["balrog/babyai/goto", "balrog/babaisai/goto_win", "balrog/crafter/default"])
def test_openai_requests_carry_balrogs_png_bytes_and_the_frame_file_is_that_png(tmp_path: Path, task_id: str) -> None:
    _check_run(tmp_path, task_id, "openai")


@pytest.mark.parametrize("provider", ["anthropic", "google"])
def test_anthropic_and_gemini_requests_carry_the_same_png_bytes(tmp_path: Path, provider: str) -> None:
    _check_run(tmp_path, "balrog/babyai/goto", provider)


def test_grey_and_rgba_frames_are_sent_as_balrog_converts_them() -> None:
    rng = np.random.default_rng(0)
    for shape in [(7, 5), (7, 5, 3), (7, 5, 4)]:
        frame = rng.integers(0, 256, shape, dtype=np.uint8)
        image = to_png(frame)
        assert image.png == png_bytes(frame) == _balrog_png(frame)
        assert (image.width, image.height) == (5, 7)
        decoded = PILImage.open(io.BytesIO(image.png))
        assert decoded.mode == "RGB" and decoded.size == (5, 7)
