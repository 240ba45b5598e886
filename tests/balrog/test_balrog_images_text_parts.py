"""Text parts: a BALROG message without an image goes as a plain string, and the recorded facts say why.

BALROG's OpenAI client sends every message's content as a list of parts (``[{"type": "text", ...}]``, the
image appended). ``data/text_parts.json`` records, with the code that decides it, how the servers users run
render one text part against the plain string: the same on vLLM, llama.cpp and Ollama; on llama-cpp-python
the string renders the text and the parts form loses it (observed outputs kept in the file). The tests check
that playbench's choice is the one those facts give, and that a BALROG run sends exactly that.
"""

import json
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.models.fakeserver import FakeServer

FACTS = json.loads((Path(__file__).parent / "data" / "text_parts.json").read_text())


def _turn(text: str) -> str:
    """A ChatML user turn holding ``text`` (the observed renders are ChatML)."""
    return f"user\n{text}<|im_end|>"


def _choice(facts: dict[str, Any]) -> str:
    """The form the facts call for: the parts form only if some server renders it right and the string wrong."""
    turn = _turn(facts["text"])
    for server in facts["servers"]:
        for case in server.get("observed", {}).values():
            if turn in case["parts"] and turn not in case["string"]:
                return "parts"
    return "string"


def test_the_recorded_facts_call_for_the_string_form() -> None:
    text = FACTS["text"]
    differing = [s for s in FACTS["servers"] if not s["renders_same"]]
    assert [s["server"].split()[0] for s in differing] == ["llama-cpp-python"]
    assert all(s["source"] and s["how"] for s in FACTS["servers"])  # each finding names the code behind it
    for name, case in differing[0]["observed"].items():
        assert case["string"] != case["parts"], name
        assert _turn(text) in case["string"], name  # the string renders the text as the turn
        assert _turn(text) not in case["parts"], name  # the parts form does not
    assert _choice(FACTS) == FACTS["choice"] == "string"


def _sent_contents(tmp_path: Path, images: bool) -> list[Any]:
    params = {"images": str(images).lower(), "max_steps": "2"}
    with FakeServer(record=True) as srv:
        playbench.eval("balrog/babyai/goto", model="openai/x", base_url=srv.url + "/v1", episodes=1, seed=3,
                       task_params=params, log_dir=str(tmp_path))
        return [m["content"] for _, body in srv.received for m in body["messages"]]


@pytest.mark.parametrize("images", [False, True])
def test_a_balrog_run_sends_text_only_messages_as_strings_and_image_messages_as_balrogs_parts(
        tmp_path: Path, images: bool) -> None:
    contents = _sent_contents(tmp_path, images)
    parts = [c for c in contents if not isinstance(c, str)]
    assert len(contents) > len(parts)  # the messages without an image are strings
    if not images:
        assert parts == []  # FACTS["choice"]: the string form
        return
    assert parts  # each frame goes in BALROG's form: its message's text, then the image
    for content in parts:
        assert [p["type"] for p in content] == ["text", "image_url"]
        assert isinstance(content[0]["text"], str) and content[0]["text"]
