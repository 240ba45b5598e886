"""``playbench eval --dry-run``: print what a run would take (episodes, calls, tokens, cost); call nothing."""

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from playbench.api.estimate import estimate
from playbench.cli.common import console, fmt_cost, fmt_count, id_width, plain, plain_lines, split_ids, wrap_ids


def _share(part: int, whole: int) -> str:
    """``41%``, or ``-`` when there is no input to share."""
    return f"{part / whole:.0%}" if whole else "-"


def dry_run(tasks: tuple[str, ...], options: dict[str, Any]) -> None:
    """Estimate the run ``eval`` was asked for and print it as a table (PlaybenchError for a bad request).

    ``options`` are those given, by the names ``playbench.eval`` takes.
    """
    est = estimate(tasks, **options)
    who = f"{est.model} + {est.agent}" if est.model else est.agent
    table = Table(title=Text.assemble("dry run: ", plain(who), " (nothing is called)"), box=box.SIMPLE_HEAD,
                  caption="calls ≤ episodes × steps; input: measured on a mock-model probe; cache: share of input "
                          "a provider's prompt cache would serve")
    rows = wrap_ids(split_ids([t.task for t in est.tasks]), 22)
    table.add_column("task", overflow="fold", min_width=id_width(rows, cap=22))
    for col in ("eps", "steps", "calls", "input tok", "output tok", "cost", "cache"):
        table.add_column(col, justify="right", no_wrap=True)
    by_id = {t.task: t for t in est.tasks}
    for tid, shown in rows:
        if tid is None:
            table.add_row(plain(shown), style="bold")
            continue
        t = by_id[tid]
        table.add_row(plain_lines(shown), str(t.episodes), "-" if t.steps is None else str(t.steps), fmt_count(t.calls), fmt_count(t.input_tokens), fmt_count(t.output_tokens),
                      fmt_cost(est.cost_usd(t)), _share(t.cache_read_tokens, t.input_tokens))
    table.add_row("total", str(est.episodes), "", fmt_count(est.calls), fmt_count(est.input_tokens),
                  fmt_count(est.output_tokens), fmt_cost(est.cost_usd()), _share(est.cache_read_tokens, est.input_tokens),
                  style="bold")
    console.print(table)
    for t in est.tasks:
        if t.note:
            console.print(Text.assemble(plain(t.task), f": {t.note}"), style="yellow")
        if t.typical_steps is not None and t.steps is not None and t.typical_steps < t.steps:
            typical = fmt_cost(est.cost_usd(t, typical=True)) if est.price else f"{fmt_count(t.typical_calls)} calls"
            most = fmt_cost(est.cost_usd(t)) if est.price else f"{fmt_count(t.calls)} calls"
            console.print(Text.assemble(plain(t.task), f": a typical episode is {t.typical_steps} steps of at most "
                                                       f"{t.steps}: typical ~{typical}, at most {most}"))
    left_out = f" (leaving out {len(est.unmeasured)} task(s) not measured)" if est.unmeasured else ""
    if est.model:
        console.print(f"calls: typical ~{fmt_count(est.typical_calls)}, at most {fmt_count(est.calls)}")
    if est.model and est.price is not None:
        console.print(f"cost: typical ~{fmt_cost(est.cost_usd(typical=True))}, "
                      f"at most {fmt_cost(est.cost_usd())}{left_out}", style="bold")
        console.print(f"with the provider's prompt cache: typical ~{fmt_cost(est.cost_usd(typical=True, cached=True))}, "
                      f"at most {fmt_cost(est.cost_usd(cached=True))}")
        console.print(f"as a batch: typical ~{fmt_cost(est.cost_usd(typical=True, batch=True))}, "
                      f"at most {fmt_cost(est.cost_usd(batch=True))} (the live figures at the batch rates)")
        console.print(Text.assemble("prices: ", plain(est.price.source)))
    if est.instances is not None:
        _source_line(est)
    if est.model and est.price is None:
        console.print("cost: no list price known for this model; give -M price_input=USD -M price_output=USD "
                      "(per million tokens)", style="yellow")
    if not est.model:
        console.print(f"agent {est.agent} calls no model: {est.episodes} episodes, no tokens, no cost")


def _source_line(est: Any) -> None:
    """With ``--instances SOURCE``: the tokens SOURCE recorded for these instances, beside this run's estimate."""
    recorded = est.source_tokens()
    shown = Text.assemble("instances of ", plain(est.instances), ": ")
    if recorded is None:
        console.print(shown + Text("it records no token counts for every one of them"))
        return
    at = f" ({fmt_cost(est.source_cost_usd())} at {est.model}'s rates)" if est.price is not None else ""
    here = (f"; this run: typical ~{fmt_cost(est.cost_usd(typical=True))}, at most {fmt_cost(est.cost_usd())}"
            if est.price is not None else "")
    console.print(shown + Text(f"it recorded {fmt_count(recorded[0])} input and {fmt_count(recorded[1])} output "
                               f"tokens{at}{here}"))
