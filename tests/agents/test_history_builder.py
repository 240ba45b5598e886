"""BALROG's history prompt (HistoryBuilder), lean as it is, against the prompt rebuilt from scratch at every step.

The builder keeps each text once and re-renders a message only when what it shows changes; the reference below
keeps every event and renders each prompt anew from specs/balrog.md §3.1, so any drift in what is sent fails here.
"""

import random
from typing import Any

import pytest

from playbench.agents.prompts.history import HistoryBuilder
from playbench.models.types import Image, Message

NOTICE = "Image observation provided."


def reference(events: list[dict[str, Any]], system: str | None, short_term: str, windows: tuple[int, int, int],
              skip: int) -> list[dict[str, Any]]:
    """The prompt built from every event of the episode, with no state kept between steps."""
    max_text, max_image, max_cot = windows
    kept = events[-max(1, 2 * max(max_text, max_image)):]
    kept = kept[min(skip, max(0, len(kept) - 1)):]
    out: list[dict[str, Any]] = []
    for n, ev in enumerate(kept):
        newer = kept[n + 1:]
        if ev["kind"] == "action":
            newer_plans = sum(1 for e in events[ev["n"] + 1:] if e.get("reasoning") is not None)
            shown = ev["reasoning"] is not None and newer_plans < max_cot
            out.append({"role": "assistant", "content": f"Previous plan:\n{ev['reasoning']}" if shown else ev["text"]})
            continue
        observations = [e for e in newer if e["kind"] == "observation"]
        with_text = len(observations) < max_text
        with_image = ev["image"] is not None and sum(e["image"] is not None for e in observations) < max_image
        current = not newer
        parts = ["Current Observation:" if current else "Observation:"]
        if current and short_term:
            parts.append(short_term)
        if with_text:
            parts.append(ev["text"])
        if with_image:
            parts.append(NOTICE)
        message: dict[str, Any] = {"role": "user", "content": "\n".join(parts)}
        if with_image:
            message["images"] = [ev["image"].placeholder()]
        out.append(message)
    return ([{"role": "user", "content": system}] if system else []) + out


def records(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.record() for m in messages]


@pytest.mark.parametrize("windows", [(16, 1, 1), (4, 0, 1), (1, 2, 2), (0, 3, 1), (3, 1, 0), (2, 5, 1)])
def test_every_prompt_of_a_long_episode_is_the_one_rebuilt_from_scratch(windows: tuple[int, int, int]) -> None:
    rng = random.Random(sum(windows))
    images = [Image(bytes([k]) * 8, 2, 2) for k in range(5)]
    builder = HistoryBuilder("Play. PLAY!" if windows[0] else None, *windows)
    events: list[dict[str, Any]] = []
    for step in range(45):
        if step:
            text = rng.choice(["go left", "", "Previous plan:\nx", "turn right\n"])
            reasoning = builder.previous_reasoning
            builder.update_action(text)
            events.append({"kind": "action", "text": text, "reasoning": reasoning, "n": len(events)})
        long_term = rng.choice(["", "a wall", f"you see {step} keys\nand a door", "Observation:\n"]) * rng.randint(1, 3)
        short_term = rng.choice(["", f"turn {step}"])
        image = rng.choice([None, *images])
        builder.update_observation(long_term, short_term, image)
        events.append({"kind": "observation", "text": long_term, "image": image})
        for skip in (0, rng.randint(0, 6), 0):  # a step's prompt may be asked again, trimmed, then not
            expected = reference(events, builder.system_prompt, short_term, windows, skip)
            assert records(builder.get_prompt(skip=skip)) == expected, (step, skip)
        if rng.random() < 0.6:
            builder.update_reasoning(f"plan {step}: " + "think " * rng.randint(0, 3))


def test_a_message_is_the_same_object_while_what_it_shows_is_unchanged() -> None:
    builder = HistoryBuilder("Play", 3, 0, 1)
    builder.update_observation("first")
    builder.get_prompt()
    builder.update_action("go left")
    builder.update_observation("second")
    first = builder.get_prompt()
    builder.update_action("go right")
    builder.update_observation("third")
    second = builder.get_prompt()
    assert [m.content for m in second] == ["Play", "Observation:\nfirst", "go left", "Observation:\nsecond",
                                           "go right", "Current Observation:\nthird"]
    assert all(a is b for a, b in zip(first[:3], second[:3], strict=True))  # system, first observation, first action


def test_a_settled_event_is_held_as_its_message_alone() -> None:
    builder = HistoryBuilder("Play", 3, 1, 1)  # a window of 6 events
    builder.update_observation("first", image=Image(b"one", 1, 1))
    builder.update_reasoning("plan 1")
    builder.get_prompt()
    builder.update_action("go left")
    builder.update_observation("second")
    builder.get_prompt()
    assert [type(e).__name__ for e in builder.events] == ["_Event", "_Event", "_Event"]  # image, plan, current
    builder.update_reasoning("plan 2")
    builder.update_action("go right")
    builder.update_observation("third", image=Image(b"two", 1, 1))
    sent = builder.get_prompt()
    assert [type(e).__name__ for e in builder.events] == ["Message", "Message", "Message", "_Event", "_Event"]
    assert builder.events[:3] == sent[1:4]  # the first observation (its image left out), its action, the second
    assert [m.content for m in sent[1:4]] == ["Observation:\nfirst", "go left", "Observation:\nsecond"]
