"""Prefix stability: how much of each request repeats the previous request's beginning (what a prefix cache reuses).

For each task, episodes are played with the offline mock model (``playbench.eval(task, model="mock/x",
agent=...)``) by each suite's default agent (``naive``; SmartPlay also with its paper's ``two-stage``), and
every request is read back from the trajectories. A request's *prefix share* is the length of the longest
common beginning of its text and the previous request's in the same episode, over its own length, in
characters of the rendered prompt (each message as ``role`` + NUL + content + NUL, so a changed role or
message boundary ends the prefix). A one-request task (MANGO, GRASP) has no previous request in its episode:
its share is taken against the previous episode's request instead (marked ``across``), which is what a
provider's cache could reuse between questions that start alike.

Two further columns measure Anthropic's cache with playbench's default breakpoints: each episode's requests
are built by the Anthropic provider's request builder, in order and inside the episode (its ledger current,
as in a run: the history breakpoint only where the request extends the episode's previous one), and
replayed through a simulated prefix cache
(:mod:`playbench.models.prefixcache`, 1,024-token minimum, tokens counted with the local tokenizer): *read*
is the share of input tokens served from the cache, *input cost* the input bill relative to no caching
(reads at 0.1 times the input price, writes at 1.25 times).

    .venv/bin/python benchmarks/prefix_stability.py [--episodes 3] [--steps 40] [--tasks balrog/babyai/goto ...]
"""

import argparse
import statistics
import tempfile
import time
from typing import Any

import playbench
from playbench.core.ledger import CURRENT_EPISODE, EpisodeLedger
from playbench.log import read_run
from playbench.models.prefixcache import PromptCache, request_blocks
from playbench.models.providers.anthropic import AnthropicProvider
from playbench.models.tokens import count_tokens
from playbench.models.types import GenerateConfig, Message

#: (task, agent): the default agent of every suite, and SmartPlay's two-stage agent
CASES = [
    ("balrog/babyai/goto", "naive"), ("balrog/babaisai/goto_win", "naive"), ("balrog/crafter/default", "naive"),
    ("balrog/minihack/corridor-r3", "naive"), ("balrog/nle/nethackchallenge", "naive"),
    ("balrog/textworld/coin_collector", "naive"),
    ("smartplay/hanoi-3", "naive"), ("smartplay/hanoi-3", "two-stage"), ("smartplay/messenger-1", "naive"),
    ("smartplay/messenger-1", "two-stage"), ("smartplay/crafter", "two-stage"), ("smartplay/rps-basic", "two-stage"),
    ("mango/df", "naive"), ("grasp/energy", "naive"),
]
#: Anthropic's prices relative to its input price: cache reads and (5-minute) cache writes
READ_FACTOR, WRITE_FACTOR = 0.1, 1.25
#: the least prefix Anthropic caches (Claude 3.5 Sonnet, 3 Opus; Haiku models need 2,048)
MINIMUM = 1024


def rendered(messages: list[dict[str, Any]]) -> str:
    """A request as one text: message boundaries and roles are part of it."""
    return "".join(f"{m['role']}\0{m['content']}\0" for m in messages)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common beginning of ``a`` and ``b``."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on equal slices: C-speed comparisons
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def episode_requests(task: str, agent: str, episodes: int, steps: int) -> list[list[list[dict[str, Any]]]]:
    """Every episode's requests, in order (two-stage: each step's first request rebuilt from its second)."""
    params = {} if task.startswith(("mango", "grasp")) else {"max_steps": steps}
    with tempfile.TemporaryDirectory() as tmp:
        result = playbench.eval(task, model="mock/x", agent=agent, episodes=episodes, task_params=params,
                                log_dir=tmp, max_episodes=1)
        run = read_run(result.path)
        out = []
        for record in sorted(run.episodes(), key=lambda r: r.index):
            requests: list[list[dict[str, Any]]] = []
            for step in run.read_trajectory(record):
                messages = [{"role": m["role"], "content": m["content"]} for m in step.messages or []]
                if not messages:
                    continue
                if agent == "two-stage":  # a step records its last request: the first stage is it up to its question
                    first = next(i for i, m in enumerate(messages) if m["role"] == "user")
                    requests.append(messages[: first + 1])
                requests.append(messages)
            out.append(requests)
        return out


def shares(episodes: list[list[list[dict[str, Any]]]]) -> tuple[list[float], bool]:
    """Each request's prefix share, and whether it was taken across episodes (one-request episodes)."""
    across = all(len(requests) <= 1 for requests in episodes)
    texts = [[rendered(r) for r in requests] for requests in episodes]
    if across:
        flat = [t for requests in texts for t in requests]
        return [common_prefix(a, b) / len(b) for a, b in zip(flat, flat[1:], strict=False)], True
    out = []
    for requests in texts:
        out += [common_prefix(a, b) / len(b) for a, b in zip(requests, requests[1:], strict=False)]
    return out, False


def anthropic_effect(episodes: list[list[list[dict[str, Any]]]]) -> tuple[float, float]:
    """(share of input tokens read from the cache, input cost relative to no caching) with the default breakpoints."""
    provider = AnthropicProvider("claude", "http://127.0.0.1:9", None)
    cache = PromptCache(explicit=True, minimum=MINIMUM, count=count_tokens)  # one cache for the run, as the provider's
    total = read = written = 0
    for index, requests in enumerate(episodes):
        current = CURRENT_EPISODE.set(EpisodeLedger("benchmark", index))  # the breakpoints depend on the episode
        try:
            for request in requests:
                body = provider.request([Message(m["role"], m["content"]) for m in request], GenerateConfig())[2]
                t, r, w = cache.use(request_blocks("anthropic", body))
                total, read, written = total + t, read + r, written + w
        finally:
            CURRENT_EPISODE.reset(current)
    if not total:
        return 0.0, 1.0
    cost = (total - read - written + READ_FACTOR * read + WRITE_FACTOR * written) / total
    return read / total, cost


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40, help="step limit of many-step tasks (BALROG's window is 16)")
    parser.add_argument("--tasks", nargs="*", help="only these tasks (default: every case)")
    args = parser.parse_args()
    cases = [(t, a) for t, a in CASES if not args.tasks or t in args.tasks]
    print(f"prefix share of each request (characters; {args.episodes} episodes, step limit {args.steps}, mock model)")
    print(f"{'task':34} {'agent':9} {'requests':>8} {'median':>7} {'min':>5} {'max':>5}  {'anthropic read':>14} "
          f"{'input cost':>10}")
    for task, agent in cases:
        started = time.perf_counter()
        try:
            episodes = episode_requests(task, agent, args.episodes, args.steps)
        except Exception as exc:  # an engine this machine lacks: said, and the others still measured
            print(f"{task:34} {agent:9} skipped: {type(exc).__name__}: {str(exc)[:80]}")
            continue
        values, across = shares(episodes)
        if not values:
            print(f"{task:34} {agent:9} no pair of requests to compare")
            continue
        read, cost = anthropic_effect(episodes)
        count = sum(len(r) for r in episodes)
        print(f"{task:34} {agent:9} {count:>8} {statistics.median(values):>7.0%} {min(values):>5.0%} "
              f"{max(values):>5.0%}  {read:>14.0%} {cost:>9.2f}×" + ("  (across episodes)" if across else "")
              + f"  [{time.perf_counter() - started:.0f} s]")


if __name__ == "__main__":
    main()
