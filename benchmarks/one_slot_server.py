"""How fast the adaptive limit comes down to one connection against a server that answers one request at a time.

The case from the field: ``--max-connections 64``, 31 calls in flight at once (31 episodes) and a server with
one slot (llama.cpp's and Ollama's default) whose answers take longer than half the ``--timeout``, so only one
request at a time is ever answered within it. Starts ``python -m playbench.models.fakeserver --slots 1`` in
its own process, sends the calls through a :class:`playbench.models.model.Model` and times, from the first
request, the moment its limit first reaches 1.

Each halving waits for a request sent under the previous limit to time out, so no halving limiter can do
better than one timeout per halving from the number in flight: the ideal is ``timeout x floor(log2(in
flight))`` (31 in flight, timeout 5 s: 31 -> 15 -> 7 -> 3 -> 1, 20 s). Halving the configured limit instead
wastes a timeout on each halving above the number in flight (64 -> 32 changes nothing with 31 in flight).
Goal: at most the ideal plus one timeout. Also printed: the concurrency the first hint names (it must be
below the number in flight, or the hint names a change that changes nothing).

    .venv/bin/python benchmarks/one_slot_server.py [--repeat 3] [--timeout 5] [--latency 3] [--in-flight 31]
        [--max-connections 64]
"""

import argparse
import asyncio
import math
import re
import statistics
import subprocess
import sys
import time

from playbench.models import Message, ModelSettings, create_model
from playbench.models.model import Model

ASK = [Message("user", "Pick one:\n1. left\n2. right")]
POLL_SECONDS = 0.02


def start_server(latency: float) -> tuple[subprocess.Popen[str], int]:
    """The one-slot fake server in its own process, and its port."""
    proc = subprocess.Popen([sys.executable, "-m", "playbench.models.fakeserver", "--slots", "1",
                             "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("PORT "), line
    return proc, int(line.split()[1])


async def to_one(model: Model, in_flight: int, cap: float) -> tuple[float, str]:
    """(seconds until the limit first reached 1, the hint told) with ``in_flight`` calls sent at once."""
    told: list[str] = []
    model.on_note = told.append
    calls = [asyncio.create_task(model.generate(ASK)) for _ in range(in_flight)]
    started = time.perf_counter()
    reached = math.inf
    while time.perf_counter() - started < cap:
        await asyncio.sleep(POLL_SECONDS)
        slots = model._slots
        if slots is not None and slots.limit == 1:
            reached = time.perf_counter() - started
            break
    for call in calls:
        call.cancel()
    await asyncio.gather(*calls, return_exceptions=True)
    await model.aclose()
    return reached, told[0] if told else "(no hint)"


def sample(port: int, args: argparse.Namespace) -> tuple[float, str]:
    """One measurement against a freshly started server (an empty queue)."""
    model = create_model("openai/bench", {}, ModelSettings(
        base_url=f"http://127.0.0.1:{port}/v1", max_connections=args.max_connections, timeout=args.timeout,
        max_retries=100, retry_backoff=0.01))
    cap = 3 * args.timeout * args.max_connections.bit_length()
    return asyncio.run(to_one(model, args.in_flight, cap))


def main() -> None:
    """Repeat the measurement (a fresh server each time); print min / median / max beside the ideal and goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--latency", type=float, default=3.0, help="seconds per answer (over half the timeout)")
    parser.add_argument("--in-flight", type=int, default=31)
    parser.add_argument("--max-connections", type=int, default=64)
    args = parser.parse_args()
    ideal = args.timeout * math.floor(math.log2(args.in_flight))
    goal = ideal + args.timeout
    times: list[float] = []
    hinted: list[str] = []
    for _ in range(args.repeat):
        proc, port = start_server(args.latency)
        try:
            seconds, hint = sample(port, args)
        finally:
            proc.terminate()
            proc.wait()
        times.append(seconds)
        figure = re.search(r"lowering concurrency to (\d+)", hint)
        hinted.append(figure.group(1) if figure else "?")
    print(f"one-slot server, {args.latency:g} s per answer, --timeout {args.timeout:g}, --max-connections "
          f"{args.max_connections}, {args.in_flight} in flight")
    print(f"to one connection: s min {min(times):.1f} median {statistics.median(times):.1f} max {max(times):.1f} "
          f"| ideal {ideal:.0f} s | goal <= {goal:.0f} s (ideal + one timeout)")
    print(f"first hint says: lowering concurrency to {', '.join(hinted)} (goal < {args.in_flight}: a change "
          f"that changes something)")


if __name__ == "__main__":
    main()
