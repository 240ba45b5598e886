"""Runs as chat data (``export --format chat``): JSON lines for fine-tuning and analysis.

Per step (the default), a line holds the step's whole request as it was sent (rebuilt from the shard by
``RunLog.iter_trajectory``), the model's answer and what the game made of it. Per episode, a line holds
the episode as one conversation: the first request, then at each later step what its request holds after
its last ``assistant`` message (its whole request when it holds none), each followed by the model's answer;
a step that sent no request (a reference agent's, a person's) adds nothing.

Every line of a kind has the same keys and every message exactly ``role`` and ``content``, both text, so
Hugging Face ``datasets`` (and any Arrow reader) loads the file with one schema. Record fields that are not
text where text belongs (a record may come from anyone) become their JSON text; images are not inlined
(``frame`` names the PNG a step showed). Every episode is written, whatever its status: ``status`` says it.
"""

import json
from collections.abc import Iterator
from typing import Any

from playbench.core.records import EpisodeRecord
from playbench.log.read import RunLog
from playbench.report.build import run_label

#: The keys of a line per step, in order (the messages last: a line reads from its facts to its request)
STEP_KEYS = ("run", "label", "model", "agent", "task", "index", "seed", "status", "score", "step", "raw_output",
             "action", "executed", "valid", "reward", "done", "frame", "messages")
#: The keys of a line per episode, in order
EPISODE_KEYS = ("run", "label", "model", "agent", "task", "index", "seed", "status", "score", "completion",
                "progress", "reward", "steps", "invalid_actions", "messages")


def _text(value: Any) -> str:
    """Text as it is; nothing as the empty text; anything else as its JSON text."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, sort_keys=True)


def _number(value: float | None) -> float | None:
    return None if value is None else float(value)  # one JSON type per key: 1 and 1.0 alike as 1.0


def chat_message(message: Any) -> dict[str, str]:
    """A recorded message as ``{"role", "content"}`` text (image placeholders left out)."""
    if not isinstance(message, dict):
        return {"role": "", "content": _text(message)}
    return {"role": _text(message.get("role")), "content": _text(message.get("content"))}


def _episode(store: RunLog, label: str, r: EpisodeRecord) -> dict[str, Any]:
    return {"run": store.root.name, "label": label, "model": r.model, "agent": r.agent, "task": r.task,
            "index": r.index, "seed": r.seed, "status": r.status, "score": _number(r.score)}


def step_lines(store: RunLog) -> Iterator[dict[str, Any]]:
    """One line per step of every episode that counts (its latest record), by task, index and step."""
    label = run_label(store)
    for record in store.episodes():
        episode = _episode(store, label, record)
        for s in store.iter_trajectory(record):
            yield {**episode, "step": s.step, "raw_output": s.raw_output, "action": s.action,
                   "executed": s.executed, "valid": s.valid, "reward": float(s.reward), "done": s.done,
                   "frame": s.frame, "messages": [chat_message(m) for m in s.messages or []]}


def episode_lines(store: RunLog) -> Iterator[dict[str, Any]]:
    """One line per episode that counts: its steps as one conversation, with its score."""
    label = run_label(store)
    for record in store.episodes():
        conversation: list[dict[str, str]] = []
        for s in store.iter_trajectory(record):
            if not s.messages:  # no request (a reference agent, a person): no turn of a conversation
                continue
            sent = [chat_message(m) for m in s.messages]
            if conversation:  # the history this request repeats is already in the conversation
                answered = [i for i, m in enumerate(sent) if m["role"] == "assistant"]
                sent = sent[answered[-1] + 1:] if answered else sent
            conversation += sent
            if s.raw_output is not None:
                conversation.append({"role": "assistant", "content": s.raw_output})
        yield {**_episode(store, label, record), "completion": _number(record.completion),
               "progress": _number(record.progress), "reward": float(record.reward), "steps": record.steps,
               "invalid_actions": record.invalid_actions, "messages": conversation}


def chat_lines(stores: list[RunLog], per: str) -> Iterator[dict[str, Any]]:
    """The lines of ``stores`` in the order given: ``per`` is ``step`` or ``episode``."""
    lines = episode_lines if per == "episode" else step_lines
    for store in stores:
        yield from lines(store)


def is_chat_line(row: Any) -> bool:
    """Whether ``row`` (a parsed line) has exactly the keys of a chat line, per step or per episode."""
    return isinstance(row, dict) and tuple(row) in (STEP_KEYS, EPISODE_KEYS)
