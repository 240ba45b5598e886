"""Text parts: by default a BALROG message without an image goes as a plain string, and the recorded facts
say why; under ``-A compat=true`` every message goes in BALROG's parts form.

BALROG's OpenAI client sends every message's content as a list of parts (``[{"type": "text", ...}]``, the
image appended). ``data/text_parts.json`` records, with the code that decides it, how the servers users run
render one text part against the plain string: the same on vLLM, llama.cpp and Ollama; on llama-cpp-python
the string renders the text and the parts form loses it (observed outputs kept in the file). The tests check
that playbench's default is the one those facts give, that a BALROG run sends exactly that, and that a compat
run sends BALROG's bytes (keyed apart in the answer cache, recorded as such, the same through ``ChatEnv``).
"""

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import playbench
from playbench.models.cache import cache_key
from playbench.models.fakeserver import FakeServer
from playbench.models.providers.openai import wire_messages
from playbench.models.types import GenerateConfig, Message
from playbench.rl import ChatEnv

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
    assert _choice(FACTS) == FACTS["choice"]["default"] == "string"
    assert FACTS["choice"]["compat"] == "parts"  # compat: BALROG's bytes, whatever the server makes of them


def _sent(tmp_path: Path, images: bool, compat: bool = False, steps: int = 2) -> tuple[list[Any], Any]:
    """(the message lists the server received, one per request; the run's result)."""
    params = {"images": str(images).lower(), "max_steps": str(steps)}
    with FakeServer(record=True) as srv:
        result = playbench.eval("balrog/babyai/goto", model="openai/x", base_url=srv.url + "/v1", episodes=1,
                                seed=3, task_params=params, agent_params={"compat": str(compat).lower()},
                                log_dir=str(tmp_path))
        return [body["messages"] for _, body in srv.received], result


def _sent_contents(tmp_path: Path, images: bool) -> list[Any]:
    return [m["content"] for request in _sent(tmp_path, images)[0] for m in request]


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


@pytest.mark.parametrize("images", [False, True])
def test_a_compat_balrog_run_sends_every_message_as_balrogs_parts(tmp_path: Path, images: bool) -> None:
    requests, result = _sent(tmp_path, images, compat=True, steps=3)
    messages = [m for request in requests for m in request]
    assert {m["role"] for m in messages} == {"user", "assistant"}  # BALROG's instruction goes as a user turn
    for m in messages:
        assert list(m) == ["role", "content"] and isinstance(m["content"], list), m
        text, *images_sent = m["content"]
        assert list(text) == ["type", "text"] and text["type"] == "text" and isinstance(text["text"], str)
        assert all(list(p) == ["type", "image_url"] for p in images_sent)
    assert any(len(m["content"]) == 2 for m in messages) == images  # each frame after its message's text
    # the record says what was sent: "parts": true on every message, the text as before
    log = result.log
    steps = log.read_trajectory(log.episodes()[0])
    assert [[m["content"] for m in s.messages] for s in steps] == [[m["content"][0]["text"] for m in r]
                                                                    for r in requests]
    assert all(m.get("parts") is True for s in steps for m in s.messages)


def test_a_default_run_records_no_parts_flag(tmp_path: Path) -> None:
    result = _sent(tmp_path, images=False)[1]
    steps = result.log.read_trajectory(result.log.episodes()[0])
    assert steps and all(set(m) == {"role", "content"} for s in steps for m in s.messages)


def test_the_parts_form_is_keyed_apart_and_other_keys_are_unchanged() -> None:
    def key(messages: list[Message]) -> str:
        return cache_key(model="openai/x", api="openai", base_url="http://127.0.0.1:1/v1", messages=messages,
                         config=GenerateConfig(), episode=None)

    plain, parts = Message("user", FACTS["text"]), Message("user", FACTS["text"], parts=True)
    assert key([plain]) != key([parts])
    # the key a plain message had before the parts flag existed (computed with the code before it)
    assert key([plain]) == "808cc7b9c995f2bedb962ce418dcc01c8d1354f80e01c5dadebba9d57377b83c"
    assert wire_messages([plain]) == [FACTS["forms"]["string"]]
    assert wire_messages([parts]) == [FACTS["forms"]["parts"]]  # BALROG's form, byte for byte


def test_chat_env_under_compat_sends_what_eval_sent(tmp_path: Path) -> None:
    expected = _sent(tmp_path, images=True, compat=True, steps=3)[0]
    env = ChatEnv("balrog/babyai/goto", index=0, seed=3, task_params={"images": "true", "max_steps": "3"},
                  agent_params={"compat": "true"})
    env.reset()
    seen = []
    with FakeServer() as srv:
        while not env.done:
            messages = env.wire_messages()
            seen.append(messages)
            body = json.dumps({"model": "x", "messages": messages}).encode()
            request = urllib.request.Request(f"{srv.url}/v1/chat/completions", body,
                                             {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                env.step(str(json.loads(answer.read())["choices"][0]["message"]["content"]))
    env.close()
    assert seen == expected and len(seen) == 3
