"""``eval --dry-run``: what a run would do and roughly cost, without calling any model.

For each task: the episodes, the step limit (one step for one-step tasks), the expected number of
model calls (episodes × steps × calls per step, an upper bound: episodes may end early), and the input
tokens per call. Those are measured, not guessed: episode 0 is played for up to ``PROBE_STEPS`` steps by
the same agent against the offline mock model in a throw-away run directory, and every request the agent
built (system prompt, manual, history, strategy text) is counted with the local tokenizer. Steps beyond
the probe are taken to be as long as its last request (history windows stop the growth; where history
keeps growing, this is a lower bound). When the probe cannot run, the first observation's text is
counted instead (noted). Output tokens per call are ``-M max_tokens`` when given, else a typical answer
length for the agent. Cost uses the model's list price (``models/pricing.py``: the ``genai-prices`` data, a
request whose prompt is past a tier's threshold at that tier's rates) or ``-M price_input/price_output``; it is
unknown (None) otherwise. No real model is called.

Every figure comes twice: at most (every episode runs to its step limit) and typical (episodes as long as
the task's facts row says a typical one is, ``typical_steps``, where it declares one; at the limit
otherwise). A game whose one-time set-up takes longer than ``PREPARE_BUDGET`` (TextWorld making its game
file the first time) is not measured: its task's tokens and cost are left out, and said so, so that a
dry run of any group takes seconds.

Beside the live cost come two more: *cached*, with the input tokens the provider's prompt cache would serve
and store priced at its rates (the probe's requests replayed through a simulated prefix cache with the
provider's rules: Anthropic's breakpoints, a 1,024-token minimum; later steps reuse no more than the probe's
least-reusing step), and *batch*, the live figure at the model's batch rates.
"""

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Unpack

from playbench.api.evaluate import EvalOptions, check_request, evaluate
from playbench.api.settings import check_settings
from playbench.core.errors import PlaybenchError
from playbench.core.registry import get_task
from playbench.core.seeding import episode_seed

if TYPE_CHECKING:
    from playbench.models.pricing import Price

#: typical answer tokens per call for each agent when ``-M max_tokens`` is not given
TYPICAL_OUTPUT = {"naive": 16, "robust-naive": 24, "few-shot": 16, "cot": 400, "robust-cot": 400,
                  "custom": 400, "two-stage": 300}
#: model calls an agent makes per game step
CALLS_PER_STEP = {"two-stage": 2}
#: steps of episode 0 played with the mock model to measure the requests
PROBE_STEPS = 10
#: seconds the games' one-time set-ups (``Game.prepare``, run together) may take in a dry run
PREPARE_BUDGET = 2.0
#: the shortest prefix providers cache, in tokens (OpenAI, Gemini and most Claude models: 1,024)
CACHE_MINIMUM = 1024


@dataclass
class TaskEstimate:
    """One task's share of a run's estimate."""

    task: str
    episodes: int
    steps: int | None
    calls: int
    input_tokens_per_call: int | None
    input_tokens: int
    output_tokens: int
    note: str | None = None
    #: the same figures for episodes of typical length (equal to the above without a typical length)
    typical_steps: int | None = None
    typical_calls: int = 0
    typical_input_tokens: int = 0
    typical_output_tokens: int = 0
    #: False when the requests could not be measured: tokens and cost are left out
    measured: bool = True
    #: input tokens the provider's prompt cache would serve (read) and store (write), at most and typical
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    typical_cache_read_tokens: int = 0
    typical_cache_write_tokens: int = 0
    #: with ``--instances SOURCE``: the tokens SOURCE records its episodes of the task spent (None: not recorded)
    source_input_tokens: int | None = None
    source_output_tokens: int | None = None


@dataclass
class Estimate:
    """What ``eval`` would run: tasks, episodes, calls, tokens and (when a price is known) cost."""

    agent: str
    model: str | None
    tasks: list[TaskEstimate] = field(default_factory=list)
    price: "Price | None" = None
    instances: str | None = None  # ``--instances SOURCE``: the tasks play its instances

    def source_tokens(self) -> tuple[int, int] | None:
        """(input, output) tokens SOURCE records for the instances the run plays; None unless every task has them."""
        if self.instances is None or any(t.source_input_tokens is None or t.source_output_tokens is None
                                         for t in self.tasks):
            return None
        return (sum(t.source_input_tokens or 0 for t in self.tasks),
                sum(t.source_output_tokens or 0 for t in self.tasks))

    def source_cost_usd(self) -> float | None:
        """The tokens SOURCE recorded, at this run's model's live rates (None without a price or the tokens)."""
        from playbench.models.pricing import token_cost_usd

        if self.price is None or self.source_tokens() is None:
            return None
        return sum(token_cost_usd(self.price, t.source_input_tokens or 0, t.source_output_tokens or 0,
                                  prompt_tokens=t.input_tokens_per_call or 0) for t in self.tasks)

    @property
    def episodes(self) -> int:
        """Episodes of the whole run."""
        return sum(t.episodes for t in self.tasks)

    @property
    def calls(self) -> int:
        """Model calls of the whole run (an upper bound)."""
        return sum(t.calls for t in self.tasks)

    @property
    def input_tokens(self) -> int:
        """Estimated input tokens of the whole run."""
        return sum(t.input_tokens for t in self.tasks)

    @property
    def output_tokens(self) -> int:
        """Estimated output tokens of the whole run."""
        return sum(t.output_tokens for t in self.tasks)

    @property
    def typical_calls(self) -> int:
        """Model calls of the whole run with episodes of typical length."""
        return sum(t.typical_calls for t in self.tasks)

    @property
    def unmeasured(self) -> list[str]:
        """The tasks whose requests could not be measured (left out of tokens and cost)."""
        return [t.task for t in self.tasks if not t.measured]

    @property
    def cache_read_tokens(self) -> int:
        """Input tokens of the whole run the provider's prompt cache would serve (at most steps)."""
        return sum(t.cache_read_tokens for t in self.tasks)

    def cost_usd(self, task: TaskEstimate | None = None, typical: bool = False, cached: bool = False,
                 batch: bool = False) -> float | None:
        """Estimated cost in dollars of one task or the whole run (None without a price).

        ``typical``: with episodes of typical length; else every episode at its step limit (at most).
        ``cached``: the prompt-cache reads and writes at their prices; ``batch``: at the provider's batch rate.
        Each task's requests are priced at the tier their prompt length (its input tokens per call) falls in.
        """
        from playbench.models.pricing import token_cost_usd

        if self.price is None:
            return None
        pre = "typical_" if typical else ""
        total = 0.0
        for t in [task] if task else self.tasks:
            read = getattr(t, f"{pre}cache_read_tokens") if cached else 0
            write = getattr(t, f"{pre}cache_write_tokens") if cached else 0
            total += token_cost_usd(self.price, getattr(t, f"{pre}input_tokens"), getattr(t, f"{pre}output_tokens"),
                                    read, write, batch, prompt_tokens=t.input_tokens_per_call or 0)
        return total

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the estimate."""
        return {"agent": self.agent, "model": self.model, "episodes": self.episodes, "calls": self.calls,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost_usd(), "typical_calls": self.typical_calls,
                "typical_cost_usd": self.cost_usd(typical=True), "unmeasured": self.unmeasured,
                "cache_read_tokens": self.cache_read_tokens, "cached_cost_usd": self.cost_usd(cached=True),
                "typical_cached_cost_usd": self.cost_usd(typical=True, cached=True),
                "batch_cost_usd": self.cost_usd(batch=True), "instances": self.instances,
                "source_tokens": self.source_tokens(), "source_cost_usd": self.source_cost_usd(),
                "tasks": [{**t.__dict__, "cost_usd": self.cost_usd(t), "typical_cost_usd": self.cost_usd(t, True),
                           "cached_cost_usd": self.cost_usd(t, cached=True),
                           "batch_cost_usd": self.cost_usd(t, batch=True)} for t in self.tasks]}


def _prepare_all(games: list[Any], budget: float) -> list[bool]:
    """Run the games' one-time set-ups together; whether each finished within ``budget`` seconds.

    Those still running are cancelled, and a cancelled game abandons its set-up (TextWorld kills the process
    making its file), so nothing is left running.
    """

    async def prepare() -> list[bool]:
        running = [asyncio.ensure_future(game.prepare()) for game in games]
        if not running:
            return []
        _, late = await asyncio.wait(running, timeout=budget)
        for job in late:
            job.cancel()
        await asyncio.gather(*running, return_exceptions=True)  # a failed set-up fails again at reset: noted there
        return [job not in late for job in running]

    return asyncio.run(prepare())


def _step_limit(task: Any, params: Any, game: Any) -> int | None:
    """The episode's step limit as the game, the parameters or the task's facts row state it."""
    if task.one_step:
        return 1
    for value in (getattr(game, "max_steps", None), getattr(params, "max_steps", None), task.max_steps):
        if isinstance(value, int) and value > 0:
            return value
    return None


def _first_request_tokens(task: Any, params: Any, seed: int, game: Any) -> tuple[int | None, int, str | None]:
    """(step limit, tokens of the first request, note: none) from ``game`` (prepared) on episode 0's seed."""
    from playbench.models.tokens import count_tokens

    obs, info = game.reset(seed=episode_seed(seed, task.id, 0))
    messages = info.get("messages")
    if messages:
        text = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
    else:
        text = "\n".join(str(x) for x in (info.get("manual", ""), info.get("history", ""), obs) if x)
    return _step_limit(task, params, game), count_tokens(text) + 8, None


def _close(game: Any) -> None:
    close = getattr(game, "close", None)
    if close is not None:
        close()


def _message_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of one recorded request (text content, per-message overhead, images by allowance)."""
    from playbench.models.tokens import count_message_tokens
    from playbench.models.types import Message

    out = []
    for m in messages:
        content = m.get("content")
        text = content if isinstance(content, str) else "".join(
            str(part.get("text", "")) for part in content or [] if isinstance(part, dict))
        out.append(Message(str(m.get("role", "user")), text))
    images = sum(len(m.get("images") or []) for m in messages)
    from playbench.models.tokens import _PER_IMAGE

    return count_message_tokens(out) + _PER_IMAGE * images


def probe_requests(task_id: str, params: dict[str, Any], agent: str, agent_params: dict[str, Any], seed: int,
                   steps: int | None, requests: list[list[dict[str, Any]]] | None = None) -> list[int] | None:
    """Input tokens of each request the agent sends in the first ``PROBE_STEPS`` steps of episode 0.

    Played against the offline mock model in a temporary run directory (deleted afterwards); None when the
    probe cannot run (the caller then counts the first observation). ``requests``, when given, receives
    each request's messages.
    """
    import tempfile

    from playbench.log import read_run

    task = get_task(task_id)
    values = {k: v for k, v in params.items() if v is not None}  # None is every such default; "None" would not parse
    if "max_steps" in task.params_model.model_fields and (steps is None or steps > PROBE_STEPS):
        values["max_steps"] = PROBE_STEPS
    try:
        with tempfile.TemporaryDirectory(prefix="playbench-dry-run-") as tmp:
            result = evaluate(task_id, agent=agent, model="mock/dry-run", episodes=1, seed=seed,
                              task_params=values, agent_params=agent_params, log_dir=tmp, max_episodes=1)
            run = read_run(result.path)
            out = []
            for record in run.episodes():
                for step in run.read_trajectory(record):
                    if step.messages:
                        out.append(_message_tokens(step.messages))
                        if requests is not None:
                            requests.append(step.messages)
            return out[: PROBE_STEPS * CALLS_PER_STEP.get(agent, 1)] or None
    except Exception:
        return None


def _per_call(measured: list[int], calls: int) -> int:
    """Mean input tokens per call over ``calls`` calls, the unmeasured ones as long as the last measured."""
    if calls <= len(measured):
        return round(sum(measured[:calls]) / max(1, calls))
    return round((sum(measured) + (calls - len(measured)) * measured[-1]) / calls)


def cache_use(requests: list[list[dict[str, Any]]], model: str, config: Any) -> list[tuple[int, int, int]]:
    """(tokens, read, written) of each request replayed through the provider's prompt cache (simulated).

    Anthropic's requests are built with their breakpoints (none with ``-M cache_prompt=false``); the others
    cache every prefix by themselves. Prefixes under ``CACHE_MINIMUM`` tokens are not cached. Empty for the mock.
    """
    from playbench.models.prefixcache import PromptCache, request_blocks
    from playbench.models.providers.anthropic import AnthropicProvider
    from playbench.models.tokens import count_tokens
    from playbench.models.types import Message

    provider = model.partition("/")[0]
    if provider == "mock":
        return []
    cache = PromptCache(explicit=provider == "anthropic", minimum=CACHE_MINIMUM, count=count_tokens)
    out = []
    for messages in requests:
        wire = [Message(str(m.get("role", "user")), c if isinstance(c := m.get("content"), str) else json.dumps(c))
                for m in messages]
        if provider == "anthropic":
            body, fmt = AnthropicProvider("m", "http://127.0.0.1", None).request(wire, config)[2], "anthropic"
        else:
            body, fmt = {"messages": [{"role": m.role, "content": m.content} for m in wire]}, "openai"
        out.append(cache.use(request_blocks(fmt, body)))
    return out


def _stages(request: list[dict[str, Any]], per_step: int) -> list[list[dict[str, Any]]]:
    """A step's requests rebuilt from the last one it records (two-stage): cut after each earlier question, then whole."""
    users = [i for i, m in enumerate(request) if m.get("role") == "user"]
    return [request[: i + 1] for i in users[: per_step - 1]] + [request]


def _cache_ratios(rows: list[tuple[int, int, int]], per_step: int, calls: int) -> tuple[float, float]:
    """(share of input read, share written) over an episode of ``calls`` calls, ``per_step`` calls a step.

    The probe's calls count as measured; later ones are taken to reuse no more than the probe's least-reusing
    later step and, where anything was written, to write all the rest (a window that slides, like BALROG's,
    keeps only its stable beginning): a cost not understated.
    """
    rows = rows[:calls]
    total = sum(t for t, _, _ in rows)
    if not total:
        return 0.0, 0.0
    read, written = float(sum(r for _, r, _ in rows)), float(sum(w for _, _, w in rows))
    if calls > len(rows):
        steps = [rows[i:i + per_step] for i in range(0, len(rows), per_step)]
        later = [step for step in steps[1:] if sum(t for t, _, _ in step)] or steps
        tail_read = min(sum(r for _, r, _ in step) / max(1, sum(t for t, _, _ in step)) for step in later)
        tail_write = (1 - tail_read) if written else 0.0
        tail = (calls - len(rows)) * total / len(rows)  # as long as the measured calls on average
        read, written = read + tail * tail_read, written + tail * tail_write
        return read / (total + tail), written / (total + tail)
    return read / total, written / total


def estimate(tasks: str | Iterable[str] = (), /, **options: Unpack[EvalOptions]) -> Estimate:
    """The estimate of the run ``playbench.eval(tasks, **options)`` would make; no model is called.

    Raises PlaybenchError for what ``eval`` would refuse (unknown tasks, options or settings, missing
    engines, bad data), and for ``resume`` and a custom agent factory, which it does not estimate.
    """
    from playbench.models.pricing import price_for
    from playbench.models.types import build_generate_config

    request = check_request(tasks, dict(options))
    if request.resume:
        raise PlaybenchError("--dry-run estimates a new run; it does not go with --resume")
    if request.custom is not None:
        raise PlaybenchError("a dry run measures a registered agent, not a custom agent factory")
    check_settings(request.settings, request.given)
    config = request.asked.config()
    out = Estimate(agent=config.agent, model=config.model, instances=request.settings.instances)
    recorded = _source_tokens(config, out.instances) if out.instances is not None else {}
    gen = build_generate_config(dict(config.model_params), f"model {config.model}") if config.model else None
    if config.model and gen is not None:
        out.price = price_for(config.model, gen)
    per_step = CALLS_PER_STEP.get(config.agent, 1) if config.model else 0
    answer = (gen.output_budget() if gen is not None else None) or TYPICAL_OUTPUT.get(config.agent, 100)
    picked = [(spec, get_task(spec.id)) for spec in config.tasks]
    params_of = [task.params(spec.params) for spec, task in picked]
    games: list[Any] = []
    for (_, task), params in zip(picked, params_of, strict=True):
        try:
            games.append(task.make_game(params, 0))
        except PlaybenchError:
            for game in games:
                _close(game)
            raise
        except Exception as exc:  # a game that cannot be built here: noted below
            games.append(exc)
    made = [game for game in games if not isinstance(game, Exception)]
    prepared = dict(zip(map(id, made), _prepare_all(made, PREPARE_BUDGET), strict=True))
    for (spec, task), params, game in zip(picked, params_of, games, strict=True):
        slow = False
        note: str | None
        try:
            if isinstance(game, Exception):
                raise game
            if not prepared[id(game)]:
                slow = True
                steps, per_call = _step_limit(task, params, game), None
                note = ("not measured: its game is made the first time it is played (once, then cached), which "
                        "takes longer than a dry run waits; tokens and cost left out")
            else:
                steps, per_call, note = _first_request_tokens(task, params, config.seed, game)
        except PlaybenchError:
            raise
        except Exception as exc:  # a game that cannot start here: say so, estimate nothing for it
            steps, per_call, note = None, None, f"could not start the game to measure it ({type(exc).__name__})"
        finally:
            if not isinstance(game, Exception):
                _close(game)
        typical = getattr(task.facts, "typical_steps", None)
        typical = min(typical, steps) if isinstance(typical, int) and steps else steps
        calls = spec.episodes * (steps or 0) * per_step
        typical_calls = spec.episodes * (typical or 0) * per_step
        typical_per_call = per_call
        cached = {"at_most": (0.0, 0.0), "typical": (0.0, 0.0)}
        if per_step and steps and not slow:
            requests: list[list[dict[str, Any]]] = []
            measured = probe_requests(spec.id, spec.params, config.agent, dict(config.agent_params), config.seed,
                                      steps, requests)
            if measured:
                per_call = _per_call(measured, steps * per_step)
                typical_per_call = _per_call(measured, (typical or steps) * per_step)
                if config.model and gen is not None:
                    if per_step > 1:
                        requests = [part for r in requests for part in _stages(r, per_step)]
                    rows = cache_use(requests[: len(measured) * per_step], config.model, gen)
                    cached = {"at_most": _cache_ratios(rows, per_step, steps * per_step),
                              "typical": _cache_ratios(rows, per_step, (typical or steps) * per_step)}
            elif note is None:
                note = "requests not measured (the probe did not run): first observation counted"
        if steps is None and per_step and note is None:
            note = "no step limit known: calls not estimated"
        out.tasks.append(TaskEstimate(task=spec.id, episodes=spec.episodes, steps=steps, calls=calls,
                                      input_tokens_per_call=per_call if per_step else None,
                                      input_tokens=calls * (per_call or 0),
                                      output_tokens=0 if slow else calls * answer, note=note,
                                      typical_steps=typical, typical_calls=typical_calls,
                                      typical_input_tokens=typical_calls * (typical_per_call or 0),
                                      typical_output_tokens=0 if slow else typical_calls * answer,
                                      measured=not slow or not per_step,
                                      cache_read_tokens=round(calls * (per_call or 0) * cached["at_most"][0]),
                                      cache_write_tokens=round(calls * (per_call or 0) * cached["at_most"][1]),
                                      typical_cache_read_tokens=round(typical_calls * (typical_per_call or 0)
                                                                      * cached["typical"][0]),
                                      typical_cache_write_tokens=round(typical_calls * (typical_per_call or 0)
                                                                       * cached["typical"][1]),
                                      source_input_tokens=recorded.get(spec.id, (None, None))[0],
                                      source_output_tokens=recorded.get(spec.id, (None, None))[1]))
    return out


def _source_tokens(config: Any, source: str) -> dict[str, tuple[int | None, int | None]]:
    """Task -> (input, output) tokens ``source`` records for the instances the run plays of it (None: not all)."""
    from pathlib import Path

    from playbench.api.instances import read_instances

    held: dict[str, list[Any]] = {}
    for instance in read_instances(Path(source), {spec.id: spec.params for spec in config.tasks}):
        held.setdefault(instance.task, []).append(instance)
    out: dict[str, tuple[int | None, int | None]] = {}
    for spec in config.tasks:
        played = held.get(spec.id, [])[: spec.episodes]
        if len(played) < spec.episodes or any(i.input_tokens is None or i.output_tokens is None for i in played):
            out[spec.id] = (None, None)
        else:
            out[spec.id] = (sum(i.input_tokens for i in played), sum(i.output_tokens for i in played))
    return out
