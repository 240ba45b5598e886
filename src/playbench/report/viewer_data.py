"""The viewer's data: episodes packed into compact, compressed shards, and a run's overview facts.

Each episode becomes one compact JSON object (``pack_episode``): every distinct text (observation, model
output, message) is stored once in the episode's text table and steps refer to it by number, so the prompt
window a model agent resends at every step costs a few numbers per step instead of its whole text. Episodes
are grouped, in (task, index) order, into shards of about ``SHARD_BYTES`` of JSON, each gzip-compressed and
written as ``PB.setShard(run, shard, "<base64>")`` (a ``.js`` file: the only way a ``file://`` page may read
data). The page decompresses a shard with the browser's own ``DecompressionStream`` when one of its episodes is
opened. Only numbers go into file names, so no record text can place a file anywhere.

Records are read through ``playbench.log`` only (``RunLog.read_trajectory``); a trajectory or frame the
record names outside its run is refused and the episode shows an error line instead.
"""

import base64
import gzip
import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from pydantic import ValidationError

from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.log import RunLog, inside_run
from playbench.report.build import picture_hooks, suite_of
from playbench.report.inert import inert_text

SHARD_BYTES = 1 << 20  # JSON bytes per shard before compression: one shard loads and inflates in ~10 ms
SHARD_EPISODES = 500  # and at most this many episodes, so opening one episode reads little else


def js_call(call: str, *args: Any) -> str:
    """A line of JavaScript calling ``call`` with JSON arguments (always valid JS: U+2028/2029 escaped)."""
    return f"{call}({', '.join(json.dumps(a, ensure_ascii=True) for a in args)});\n"


def _shown(path: str) -> str:
    return repr(inert_text(path, limit=200, one_line=True))


def read_steps(store: RunLog, record: EpisodeRecord) -> tuple[list[StepRecord], list[str]]:
    """An episode's steps and the problems met reading them (nothing outside the run is ever opened)."""
    if not record.trajectory:
        return [], []
    try:
        steps = store.read_trajectory(record)
    except PlaybenchError as exc:
        if "outside the run" in str(exc):
            return [], [f"trajectory {_shown(record.trajectory)} is outside the run: refused, nothing was read"]
        return [], [inert_text(str(exc), limit=300, one_line=True)]
    except (ValidationError, ValueError) as exc:
        reason = inert_text(str(exc).splitlines()[0], limit=200, one_line=True)
        return [], [f"trajectory {_shown(record.trajectory)} is corrupt ({reason}); no step is shown"]
    except OSError as exc:
        return [], [f"trajectory {_shown(record.trajectory)} is unreadable ({exc.strerror or exc})"]
    if not steps and record.steps:
        return [], [f"trajectory {_shown(record.trajectory)} is missing or empty"]
    return steps, []


def frame_urls(store: RunLog, steps: list[StepRecord], site: Path) -> tuple[list[str | None], list[str]]:
    """Per step, the URL (relative to the site) of the frame the agent saw, and the frames refused."""
    urls: list[str | None] = []
    problems = []
    if not any(s.frame for s in steps):
        return [None] * len(steps), []
    site_root = site.resolve()
    for s in steps:
        file = inside_run(store.path, s.frame) if s.frame else None
        if s.frame and file is None:
            problems.append(f"step {s.step}: frame {_shown(s.frame)} is outside the run: refused, not shown")
        elif s.frame and file is not None and not file.is_file():
            problems.append(f"step {s.step}: frame {_shown(s.frame)} is missing")
            file = None
        urls.append(None if file is None else quote(Path(os.path.relpath(file, site_root)).as_posix()))
    return urls, problems


class _Table:
    """Distinct values, each stored once; ``id(value)`` is its position."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._ids: dict[Any, int] = {}

    def id(self, key: Any, value: Any) -> int:
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self.items)
            self.items.append(value)
        return found


def pack_episode(record: EpisodeRecord, steps: list[StepRecord], frames: list[str | None] | None = None,
                 errors: list[str] | None = None) -> dict[str, Any]:
    """One episode in the viewer's compact form (the page's ``transcript.js`` reads it).

    ``record``: the episode record; ``texts``: every distinct string; ``messages``: every distinct message
    as ``[role, text id or JSON content, images]``; ``steps``: one row per step, ``[step, observation id,
    output id, action, executed, valid, reward, score, done, message ids, frame URL, usage, extra,
    latency, picture id]`` (the picture: the SVG of the suite's ``step_picture``, if it draws one; tasks
    that name a picture kind are drawn in the browser from the observation, ``picture_kinds``);
    ``picture``: the SVG of the suite's ``episode_picture``, if it draws one.
    """
    texts = _Table()
    messages = _Table()
    rows = []
    frames = frames or [None] * len(steps)
    hooks = picture_hooks(suite_of(record.task))
    for s, frame in zip(steps, frames, strict=True):
        ids = None
        if s.messages is not None:
            ids = []
            for m in s.messages:
                content = m.get("content")
                if isinstance(content, str):
                    body: Any = texts.id(content, content)
                    key: Any = (m.get("role"), body, None if not m.get("images") else orjson.dumps(m["images"]))
                else:
                    body = {"json": content}
                    key = orjson.dumps(m, option=orjson.OPT_SORT_KEYS)
                ids.append(messages.id(key, [str(m.get("role", "?")), body, m.get("images")]))
        raw = None if s.raw_output is None else texts.id(s.raw_output, s.raw_output)
        svg = hooks.step_picture(record, s) if hooks is not None else None
        rows.append([s.step, texts.id(s.observation, s.observation), raw, s.action, s.executed, s.valid,
                     s.reward, s.score, s.done, ids, frame, s.usage, s.extra or None, s.timing.get("latency_s"),
                     None if svg is None else texts.id(svg, svg)])
    picture = hooks.episode_picture(record, steps) if hooks is not None else None
    # the record's fields are JSON values already (validated on reading): no serializer pass needed
    return {"record": dict(record.__dict__), "texts": texts.items, "messages": messages.items,
            "steps": rows, "picture": picture, "errors": errors or []}


def shard_text(run: int, shard: int, episodes: list[bytes]) -> str:
    """A shard file: its episodes' JSON, gzip-compressed (fixed mtime: same input, same bytes), as base64."""
    blob = gzip.compress(b"[" + b",".join(episodes) + b"]", compresslevel=6, mtime=0)
    return f"PB.setShard({run},{shard},\"{base64.b64encode(blob).decode()}\");\n"


def read_shard(path: Path) -> list[dict[str, Any]]:
    """The packed episodes of a shard file (the inverse of ``shard_text``; for tools and tests)."""
    text = path.read_text()
    blob = text[text.index('"') + 1:text.rindex('"')]
    episodes: list[dict[str, Any]] = json.loads(gzip.decompress(base64.b64decode(blob)))
    return episodes


def shards(packed: Iterator[bytes]) -> Iterator[list[bytes]]:
    """Group packed episodes into shards of about ``SHARD_BYTES`` (an episode is never split)."""
    group: list[bytes] = []
    size = 0
    for item in packed:
        if group and (size + len(item) > SHARD_BYTES or len(group) >= SHARD_EPISODES):
            yield group
            group, size = [], 0
        group.append(item)
        size += len(item)
    if group:
        yield group


def dumps(value: Any) -> bytes:
    """Compact JSON; strings orjson refuses (lone surrogates) go through the standard library."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


# -- the overview's facts -----------------------------------------------------------------------------------


def _when(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


def run_facts(store: RunLog, records: list[EpisodeRecord]) -> dict[str, Any]:
    """What the overview says of a run beyond the report: its label, strategy, versions, tokens, cost, duration."""
    meta = store.meta
    usage: dict[str, int] = {}
    for r in records:
        for k, v in r.usage.items():
            if isinstance(v, int):
                usage[k] = usage.get(k, 0) + v
    starts = [(_when(r.timing.get("started_at")), r.timing.get("duration_s")) for r in records]
    begin = min((s for s, _ in starts if s is not None), default=None)
    ends = [s.timestamp() + float(d) for s, d in starts if s is not None and isinstance(d, int | float)]
    busy = sum(float(d) for _, d in starts if isinstance(d, int | float))
    label = meta.settings.label
    return {
        # the run's own name (``eval --label``): user text, shown by the page with textContent only
        "label": label if isinstance(label, str) and label else None,
        "agent_params": meta.config.agent_params,
        "model_params": meta.config.model_params,
        "versions": meta.versions,
        "created_at": meta.created_at,
        "resumes": len(meta.resumes),
        "usage": usage,
        "wall_s": None if begin is None or not ends else max(ends) - begin.timestamp(),
        "episode_s": busy,
    }


def task_usage(records: list[EpisodeRecord]) -> dict[str, dict[str, int]]:
    """Tokens, calls and cost summed per task."""
    out: dict[str, dict[str, int]] = {}
    for r in records:
        entry = out.setdefault(r.task, {})
        for k, v in r.usage.items():
            if isinstance(v, int):
                entry[k] = entry.get(k, 0) + v
    return out


def picture_kinds(tasks: list[str]) -> dict[str, str]:
    """Task id -> the picture kind its task names (``Task.picture``), for the registered tasks among ``tasks``.

    The page draws those pictures from each step's observation (``viewer_assets/pictures.js``).
    """
    found = {tid: registry.find_task(tid) for tid in tasks}
    return {tid: task.picture for tid, task in found.items() if task is not None and task.picture is not None}
