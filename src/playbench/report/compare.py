"""Compare two sides episode by episode: a pair shares its task and a key that fixes the instance.

A side is a playbench run or a folder that a suite's format reads for compare (``FormatHooks.episodes``: BALROG's
submission folder, GRASP's published answers, MANGO's answer sets), handed over as a ``Folder``. What pairs:

- two runs: the task and the episode seed (``EpisodeRecord.seed``);
- a run and a folder: the folder's key, and the folder says how a run's record is keyed (``Comparable.run_key``).
  BALROG's episode files hold their seed, which pairs with the record's ``seed`` (where BALROG's seed did not fix
  the instance, the folder keys the episode so that it pairs only with the same folder's); GRASP's answers pair by
  instance id with a run's official instances, MANGO's by question. A record it cannot key is refused in one line;
- two folders: their keys, which must be the same kind.

Per task, statistics are on the task's own scale: paired differences with a bootstrap interval and the Wilcoxon
test, or Welch's unpaired test when no episode is shared. Per environment (the task id's parent: BALROG's
BabyAI tasks share one) the same over the environment's pairs, and overall BALROG's aggregation: each environment's
mean, then the mean of the environments, with a bootstrap of the pairs resampled within each environment
(stratified) and a stratified sign-flip test. Without a shared episode the environments and the overall row
compare each side's own episodes (unpaired). When the compared tasks are not all on one declared scale, the
environment and overall rows first normalize each task's scores to [0, 1] by the range they span across both
sides (``(x - min) / (max - min)``; all equal: 0), so a task scored 0–50 does not outweigh one scored 0–3.

Each task also gives each side's own 95% interval of the mean it compares (``interval_a``, ``interval_b``) by
the method the task's score declares (``build.score_metric``), as ``report``, the viewer and plots give it.
Above the figures, ``protocol`` lists the settings the two sides differ in, each marked as changing what the
numbers mean or not (None: one side does not state it).
"""

import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, RunConfig
from playbench.core.suite import NO_MODEL, NOT_SENT, Comparable
from playbench.log.read import RunLog
from playbench.report.build import coverage, run_label, score_metric, usage_total
from playbench.stats.compare import paired, paired_aggregate, paired_aggregates, unpaired, unpaired_aggregate
from playbench.stats.intervals import interval

#: How the overall row aggregates (shown in reports and docs); ``NORMALIZED`` is added when scales differ.
POOLING = "BALROG's: each environment's mean, then the mean of the environments"
NORMALIZED = "; tasks on different scales min-max normalized over both sides first (they weigh alike)"

Key = int | str


@dataclass(frozen=True)
class Setting:
    """A protocol setting compare names: its label and whether a difference changes what the numbers mean."""

    name: str
    label: str
    changes_meaning: bool
    why: str


#: The protocol settings, in the order shown. A folder states them in these names (``Comparable.settings``).
PROTOCOL = (
    Setting("temperature", "temperature", True, "sampling changes the answers"),
    Setting("max_tokens", "max_tokens", True, "a smaller answer budget cuts answers short"),
    Setting("agent", "agent", True, "the prompting strategy: what the model is asked and shown"),
    Setting("history", "history window", True, "how many past observations the model sees"),
    Setting("images", "images kept", True, "images in the prompt (BALROG's VLM mode) change what the model sees"),
    Setting("parsing", "parsing", True, "compat parses as the original does, its bugs included"),
    Setting("episodes", "episodes per task", False, "pairs use the shared instances; only precision changes"),
    Setting("date", "date", False, "unless a model's name has meant different models over time"),
)
#: Each side's ``-T`` values that differ are a difference of this kind too.
TASK_PARAM = "changes the game or the scoring rule"


@dataclass(frozen=True)
class Folder:
    """A folder read by its format for compare: where it is, the format's title, what it holds."""

    path: Path
    title: str
    read: Comparable


@dataclass
class Side:
    """One side of a comparison, whatever it was read from."""

    path: str
    kind: str  # "run" or the folder format's title
    label: str
    agent: str | None
    model: str | None
    key: str  # what pairs its episodes within a task
    tasks: set[str]
    scores: dict[str, dict[Key, float]]
    errors: dict[str, Counter[str]]
    counts: dict[str, int]  # episodes per task: scheduled (a run) or held (a folder)
    episodes: dict[str, Any]  # coverage of the schedule
    settings: dict[str, Any]
    task_params: dict[str, dict[str, Any]]
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


# -- the sides ---------------------------------------------------------------------------------------------


def run_settings(config: RunConfig, created_at: str) -> dict[str, Any]:
    """A run's protocol in compare's names (``PROTOCOL``): what its model, agent and tasks were given."""
    agent = config.agent_params
    out: dict[str, Any] = {"agent": config.agent}
    if config.model is None:  # a reference policy played: no model was sent anything
        out["temperature"] = out["max_tokens"] = NO_MODEL
    else:  # what the model was sent (unset: the provider's default)
        out["temperature"] = config.model_params.get("temperature", NOT_SENT)
        out["max_tokens"] = config.model_params.get("max_tokens",
                                                    config.model_params.get("max_completion_tokens", NOT_SENT))
    if "max_text_history" in agent:
        out["history"] = agent["max_text_history"]
    if "max_image_history" in agent:  # images are sent only where a task plays with them (-T images=true)
        images = any(task.params.get("images") is True for task in config.tasks)
        out["images"] = agent["max_image_history"] if images else 0
    if "compat" in agent:
        out["parsing"] = "compat" if agent["compat"] is True else "default"
    out["date"] = created_at[:10]
    return out


def run_side(store: RunLog, keyed: Comparable | None = None) -> Side:
    """A run as a side; with ``keyed``, the records of that folder's tasks keyed as it says (else by seed)."""
    latest = store.latest_episodes()
    config = store.meta.config
    folder_tasks = {episode.task for episode in keyed.episodes} if keyed is not None else set()
    scores: dict[str, dict[Key, float]] = defaultdict(dict)
    errors: dict[str, Counter[str]] = defaultdict(Counter)
    usages: dict[str, list[dict[str, int]]] = defaultdict(list)
    for rec in latest.values():
        usages[rec.task].append(rec.usage)
        if rec.status != "ok":
            errors[rec.task][rec.status] += 1
        elif rec.score is not None:
            scores[rec.task][_run_key(store, rec, keyed if rec.task in folder_tasks else None)] = rec.score
    return Side(path=str(store.path), kind="run", label=run_label(store), agent=config.agent, model=config.model,
                key=keyed.key if keyed is not None else "seed", tasks={t.id for t in config.tasks},
                scores=dict(scores), errors=dict(errors), counts={t.id: t.episodes for t in config.tasks},
                episodes=coverage({t.id: t.episodes for t in config.tasks}, set(latest)),
                settings=run_settings(config, store.meta.created_at),
                task_params={t.id: dict(t.params) for t in config.tasks},
                usage={task: usage_total(u) for task, u in usages.items()})


def _run_key(store: RunLog, rec: EpisodeRecord, keyed: Comparable | None) -> Key:
    if keyed is None:
        return rec.seed
    key = keyed.run_key(rec)
    if key is None:
        raise PlaybenchError(f"{store.path}: {rec.task} episode {rec.index}: {keyed.unpairable}")
    return key


def folder_side(folder: Folder) -> Side:
    """A folder as a side; two episodes of a task under one key are refused (the pairing would be a guess)."""
    read = folder.read
    scores: dict[str, dict[Key, float]] = defaultdict(dict)
    errors: dict[str, Counter[str]] = defaultdict(Counter)
    counts: Counter[str] = Counter()
    for episode in read.episodes:
        counts[episode.task] += 1
        if episode.score is None or episode.status != "ok":
            errors[episode.task][episode.status] += 1
            continue
        if episode.key in scores[episode.task]:
            raise PlaybenchError(f"{folder.path}: two episodes of {episode.task} under {read.key} "
                                 f"{read.key_text(episode.key)[:80]}: cannot tell which one pairs")
        scores[episode.task][episode.key] = episode.score
    if not counts:
        raise PlaybenchError(f"{folder.path}: no episode of a playbench task to compare"
                             + (f" ({read.notes[0]})" if read.notes else ""))
    return Side(path=str(folder.path), kind=folder.title, label=read.label,
                agent=_text(read.settings.get("agent")), model=None, key=read.key, tasks=set(counts),
                scores=dict(scores), errors=dict(errors), counts=dict(counts),
                episodes={"recorded": sum(counts.values()), "complete": True},
                settings=dict(read.settings), task_params={k: dict(v) for k, v in read.task_params.items()},
                notes=list(read.notes))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def sides(a: RunLog | Folder, b: RunLog | Folder) -> tuple[Side, Side]:
    """The two sides, keyed alike: a run beside a folder is keyed as the folder says; two folders need one key."""
    if isinstance(a, Folder) and isinstance(b, Folder) and a.read.key != b.read.key:
        raise PlaybenchError(f"{a.path} pairs by {a.read.key}, {b.path} by {b.read.key}: nothing pairs them")

    def side(one: RunLog | Folder, other: RunLog | Folder) -> Side:
        if isinstance(one, Folder):
            return folder_side(one)
        return run_side(one, other.read if isinstance(other, Folder) else None)

    return side(a, b), side(b, a)


# -- the comparison ---------------------------------------------------------------------------------------


def compare(a: RunLog | Folder, b: RunLog | Folder, metric: str = "score") -> dict[str, Any]:
    """Per task, per environment and overall: statistics of B − A (see the module's docstring).

    Each task also says how many episodes of each side were left out for ending in an error status
    (``errors``: ``{"a": {status: n}, "b": {...}}``) and what each run's episodes used (``usage``: input
    tokens, the provider's prompt-cache reads and hit rate, cost; each ``{"a", "b"}``, None where a side has
    no figure), and each side says how many of its scheduled episodes it recorded (``a.episodes``,
    ``b.episodes``). Raises PlaybenchError when the sides share no task. Library warnings (scipy's precision
    notices on constant data) never reach the caller.
    """
    side_a, side_b = sides(a, b)
    shared = _shared_tasks(side_a, side_b)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _compare(side_a, side_b, metric, shared)


def compare_overalls(pairs: Sequence[tuple[Side, Side]]) -> list[dict[str, Any]]:
    """``compare``'s ``overall`` row and ``protocol`` of each pair of sides keyed alike (as ``sides`` keys them).

    The same figures as ``compare`` gives, without its per-task and per-environment statistics, and the
    bootstraps of pairs of one shape drawn together (``paired_aggregates``): what the board shows of its
    pairs, at a fraction of the cost. Raises PlaybenchError when a pair shares no task.
    """
    pooled = []
    scales: dict[frozenset[str], bool] = {}
    for a, b in pairs:
        shared = _shared_tasks(a, b)
        pooled.append((a, b, shared, *_pool(a, b, shared, scales)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        figures = iter(paired_aggregates([_paired_groups(p) for _, _, _, p, _ in pooled if p.pairs]))
        return [{"overall": _overall(p, a, b, one_scale, next(figures) if p.pairs else None),
                 "protocol": protocol(a, b, shared)} for a, b, shared, p, one_scale in pooled]


def _shared_tasks(a: Side, b: Side) -> set[str]:
    """The tasks both sides hold (PlaybenchError when none)."""
    shared = a.tasks & b.tasks
    if not shared:
        raise PlaybenchError(f"the two share no task, nothing to compare: A has {_names(a.tasks)}"
                             f"; B has {_names(b.tasks)}")
    return shared


def compare_runs(a: RunLog, b: RunLog, metric: str = "score") -> dict[str, Any]:
    """Two runs compared (``compare``), episodes paired by (task, episode seed)."""
    return compare(a, b, metric)


def _names(tasks: set[str], shown: int = 6) -> str:
    names = sorted(tasks)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def environment(task: str) -> str:
    """The environment a task belongs to: its id's parent (``suite/env/task`` -> ``suite/env``; ``suite/task`` -> ``suite``)."""
    return task.rpartition("/")[0] or task


def _one_scale(tasks: Iterable[str]) -> bool:
    """Whether the tasks' scores are on one scale: a single task, or one declared range for every task."""
    names = list(tasks)
    ranges = {(m.low, m.high) for m in map(score_metric, names)}
    return len(names) <= 1 or (len(ranges) == 1 and None not in next(iter(ranges)))


def _normalizer(values: list[float]) -> Callable[[float], float]:
    """``(x - min) / (max - min)`` over ``values``; 0 for every value when they are all equal."""
    low, high = min(values), max(values)
    return (lambda x: (x - low) / (high - low)) if high > low else (lambda x: 0.0)


def _intervals(task: str, xa: list[float], xb: list[float]) -> dict[str, Any]:
    """Each side's 95% interval of its compared mean, by the task's declared method (None: no interval)."""
    metric = score_metric(task)
    ci_a, method = interval(xa, metric)
    ci_b, method_b = interval(xb, metric)
    return {"interval_a": None if ci_a is None else list(ci_a), "interval_b": None if ci_b is None else list(ci_b),
            "interval_method": method or method_b}


def _costs(ua: dict[str, Any], ub: dict[str, Any]) -> dict[str, Any]:
    """Each side's input tokens, prompt-cache reads (None: not reported), cache-hit rate and cost.

    With answers that carried no token counts (``tokens_unreported``), the cost is None and
    ``cost_usd_at_least`` its lower bound (see ``usage_total``).
    """
    return {key: {"a": ua.get(key), "b": ub.get(key)}
            for key in ("input_tokens", "cache_read_tokens", "cache_hit_rate", "cost_usd", "cost_usd_at_least",
                        "tokens_unreported")}


@dataclass
class _Pooled:
    """Per environment, the scores the environment and overall rows compare (on one scale)."""

    pairs: dict[str, tuple[list[float], list[float]]] = field(default_factory=lambda: defaultdict(lambda: ([], [])))
    own: dict[str, tuple[list[float], list[float]]] = field(default_factory=lambda: defaultdict(lambda: ([], [])))

    def add(self, task: str, xa: list[float], xb: list[float], shared: bool, one_scale: bool) -> None:
        """A task's compared scores, normalized over both sides unless every task is on one scale."""
        if not xa and not xb:
            return
        scale = (lambda x: x) if one_scale else _normalizer(xa + xb)
        target = (self.pairs if shared else self.own)[environment(task)]
        target[0].extend(map(scale, xa))
        target[1].extend(map(scale, xb))


def _values(a: Side, b: Side, task: str) -> tuple[list[Key], list[float], list[float]]:
    """A task's shared keys and the scores its means compare: over the shared episodes, else each side's own."""
    sa, sb = a.scores.get(task, {}), b.scores.get(task, {})
    common = sorted(set(sa) & set(sb), key=str)
    xa = [sa[k] for k in common] if common else list(sa.values())
    xb = [sb[k] for k in common] if common else list(sb.values())
    return common, xa, xb


def _pool(a: Side, b: Side, shared_tasks: set[str],
          scales: dict[frozenset[str], bool] | None = None) -> tuple[_Pooled, bool]:
    """The environment and overall rows' scores (``_Pooled``), and whether every compared task is on one scale.

    ``scales`` keeps that answer per set of tasks, for many comparisons of the same tasks.
    """
    compared = frozenset(t for t in shared_tasks if a.scores.get(t) and b.scores.get(t))
    scales = {} if scales is None else scales
    if compared not in scales:
        scales[compared] = _one_scale(compared)
    one_scale = scales[compared]
    pooled = _Pooled()
    for task in sorted(compared):
        common, xa, xb = _values(a, b, task)
        pooled.add(task, xa, xb, bool(common), one_scale)
    return pooled, one_scale


def _compare(a: Side, b: Side, metric: str, shared_tasks: set[str]) -> dict[str, Any]:
    pooled, one_scale = _pool(a, b, shared_tasks)
    tasks: dict[str, Any] = {}
    all_tasks = set(a.scores) | set(b.scores) | set(a.errors) | set(b.errors) | shared_tasks
    for task in sorted(all_tasks):
        if task not in shared_tasks:
            only = "A" if task in a.tasks else "B"
            tasks[task] = {"paired": False, "n": 0, "note": f"only in {only}: not compared"}
            continue
        common, xa, xb = _values(a, b, task)
        if common:
            tasks[task] = paired(xa, xb)
        else:
            tasks[task] = unpaired(xa, xb)
            tasks[task]["note"] = f"no shared episodes (different {a.key}s?): unpaired test"
        tasks[task].update(_intervals(task, xa, xb))
        tasks[task]["errors"] = {"a": dict(a.errors.get(task, {})), "b": dict(b.errors.get(task, {}))}
        tasks[task]["usage"] = _costs(a.usage.get(task, {}), b.usage.get(task, {}))
    return {
        "a": _side_json(a),
        "b": _side_json(b),
        "key": a.key,
        "metric": metric,
        "protocol": protocol(a, b, shared_tasks),
        "tasks": tasks,
        "environments": _environments(pooled, a, b, tasks),
        "overall": _overall(pooled, a, b, one_scale),
    }


def _side_json(side: Side) -> dict[str, Any]:
    return {"path": side.path, "kind": side.kind, "agent": side.agent, "model": side.model, "label": side.label,
            "episodes": side.episodes, "settings": side.settings, "notes": side.notes}


def _environments(pooled: _Pooled, a: Side, b: Side, tasks: dict[str, Any]) -> dict[str, Any]:
    """Each environment's row: over its pairs, else (no pair in it) over each side's own episodes."""
    out: dict[str, Any] = {}
    for env in sorted(set(pooled.pairs) | set(pooled.own)):
        if env in pooled.pairs:
            row = paired(*pooled.pairs[env])
            if env in pooled.own:
                row["note"] = "tasks without a shared episode left out of this row"
        else:
            row = unpaired(*pooled.own[env])
            row["note"] = f"no shared episodes (different {a.key}s?): unpaired test"
        row["tasks"] = sum(1 for t, r in tasks.items() if environment(t) == env and (r.get("n") or r.get("n_a")))
        errors: dict[str, Counter[str]] = {"a": Counter(), "b": Counter()}
        for name, side in (("a", a), ("b", b)):
            for task, counts in side.errors.items():
                if environment(task) == env:
                    errors[name].update(counts)
        row["errors"] = {name: dict(counts) for name, counts in errors.items()}
        out[env] = row
    return out


def _paired_groups(pooled: _Pooled) -> tuple[list[list[float]], list[list[float]]]:
    """Each side's paired scores, one group per environment (sorted): what the overall row aggregates."""
    envs = sorted(pooled.pairs)
    return [pooled.pairs[e][0] for e in envs], [pooled.pairs[e][1] for e in envs]


def _overall(pooled: _Pooled, a: Side, b: Side, one_scale: bool,
             paired_row: dict[str, Any] | None = None) -> dict[str, Any]:
    """BALROG's aggregate over the environments with pairs (paired), else over each side's own episodes.

    ``paired_row``: the paired aggregate of ``_paired_groups(pooled)`` when it was computed already.
    """
    pooling = POOLING + ("" if one_scale else NORMALIZED)
    errors = {"a": dict(sum(a.errors.values(), Counter())), "b": dict(sum(b.errors.values(), Counter()))}
    if pooled.pairs:
        envs = sorted(pooled.pairs)
        overall = paired_row if paired_row is not None else paired_aggregate(*_paired_groups(pooled))
        left = sorted(set(pooled.own) - set(pooled.pairs))
        if left:
            overall["note"] = f"environments without a shared episode left out: {', '.join(left)}"
    elif pooled.own:
        envs = sorted(pooled.own)
        overall = unpaired_aggregate([pooled.own[e][0] for e in envs], [pooled.own[e][1] for e in envs])
        overall["note"] = f"no episode is shared (different {a.key}s): each side's own episodes, unpaired"
    else:
        return {"paired": False, "n": 0, "errors": errors,
                "note": "no task has scored episodes on both sides: no overall row"}
    return {**overall, "pooling": pooling, "environments": envs, "errors": errors}


# -- the protocol -----------------------------------------------------------------------------------------


def _episodes_per_task(side: Side) -> str:
    """``10`` when every task of the side has 10 episodes, else ``3-10 (255 in all)``."""
    counts = list(side.counts.values()) or [0]
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}-{high} ({sum(counts)} in all)"


def _shown(value: Any) -> Any:
    """A stated value as JSON shows it: scalars kept, anything else as short text."""
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)[:80]


def protocol(a: Side, b: Side, shared: set[str]) -> list[dict[str, Any]]:
    """The settings the sides differ in: ``{"setting", "label", "a", "b", "changes_meaning", "why"}`` each.

    ``changes_meaning`` is None when one side does not state the setting (``a`` or ``b`` None): then it
    cannot be told. ``-T`` values are compared for the shared tasks where both sides state them.
    """
    stated_a = {**a.settings, "episodes": _episodes_per_task(a)}
    stated_b = {**b.settings, "episodes": _episodes_per_task(b)}
    rows = []
    for setting in PROTOCOL:
        va, vb = _shown(stated_a.get(setting.name)), _shown(stated_b.get(setting.name))
        if (va is None and vb is None) or va == vb:
            continue
        rows.append({"setting": setting.name, "label": setting.label, "a": va, "b": vb, "why": setting.why,
                     "changes_meaning": setting.changes_meaning if va is not None and vb is not None else None})
    rows += _param_rows(a.task_params, b.task_params, shared)
    return rows


def _param_rows(a: Mapping[str, Mapping[str, Any]], b: Mapping[str, Mapping[str, Any]],
                shared: set[str]) -> list[dict[str, Any]]:
    """Differing ``-T`` values of the shared tasks that both sides state, one row per parameter and value pair."""
    found: dict[tuple[str, Any, Any], list[str]] = defaultdict(list)
    for task in sorted(shared):
        pa, pb = a.get(task, {}), b.get(task, {})
        for name in sorted(set(pa) & set(pb)):
            va, vb = _shown(pa[name]), _shown(pb[name])
            if va != vb:
                found[(name, va, vb)].append(task)
    return [{"setting": f"-T {name}", "label": f"-T {name}", "a": va, "b": vb, "tasks": tasks, "why": TASK_PARAM,
             "changes_meaning": True} for (name, va, vb), tasks in found.items()]
