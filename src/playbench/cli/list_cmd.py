"""``playbench list``: every task id with a one-line description and its parameters' defaults.

``playbench list balrog`` (or ``--suite balrog``) filters; ``playbench describe TASK`` prints everything.
"""

import json
import shutil
import textwrap
from typing import Any

import click

from playbench.core.params import REQUIRED, declared_defaults, parameters
from playbench.core.registry import list_groups, list_tasks
from playbench.core.task import Task
from playbench.report.inert import inert_text


def default_text(value: Any) -> str:
    """A parameter default as a user would type it: ``true``, ``none``, ``200``, ``fixed``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if value is REQUIRED:
        return "required"
    return str(value)


def param_defaults(task: Task) -> list[str]:
    """``key=default`` for each of the task's parameters (read from the declaration: no pydantic model is built)."""
    return [f"{p.name}={default_text(p.default)}" for p in parameters(task.params_model)]


def first_line(text: str) -> str:
    """The first sentence or line of a description."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    head, dot, _ = line.partition(". ")
    return head + ("." if dot else "")


def default_episodes(task: Task) -> int | None:
    """The task's default episode count, or None when it cannot be worked out without its data.

    It is read from the declared defaults (``tests/cli/test_list_rows.py`` checks that validating them changes
    nothing), so listing builds no pydantic model.
    """
    try:
        return task.episodes(declared_defaults(task.params_model))
    except Exception:
        return None


def matches(task_id: str, filters: tuple[str, ...], suite: str | None) -> bool:
    """Whether a task (or group) id passes ``--suite`` and any of the FILTER words (prefix or substring)."""
    if suite is not None and task_id.split("/", 1)[0] != suite:
        return False
    return not filters or any(f in task_id for f in filters)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


@click.command("list")
@click.argument("filters", nargs=-1)
@click.option("--suite", default=None, help="Only this suite's tasks and groups.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def command(filters: tuple[str, ...], suite: str | None, as_json: bool) -> None:
    """List tasks and groups: id, episodes, one-line description, then parameters with their defaults.

    FILTERS keep the ids that contain any of them (``playbench list balrog``, ``playbench list hanoi``).
    ``playbench describe TASK`` prints one task in full.
    """
    tasks = [t for t in list_tasks() if matches(t.id, filters, suite)]
    groups = {gid: g for gid, g in list_groups().items() if matches(gid, filters, suite)}
    if as_json:
        rows: list[dict[str, Any]] = [
            {"id": task.id, "suite": task.suite, "episodes": default_episodes(task),
             "params": [p.name for p in parameters(task.params_model)], "defaults": dict(p.split("=", 1) for p in param_defaults(task)),
             "aliases": list(task.aliases), "agents": list(task.reference_agents), "description": task.description}
            for task in tasks]
        for gid, (desc, members) in groups.items():
            rows.append({"id": gid, "suite": gid.split("/")[0], "group": members, "description": desc})
        click.echo(json.dumps(rows, indent=2))
        return
    if not tasks and not groups:
        raise click.UsageError("no task or group matches " + " ".join(filters or (suite or "",)))
    width = max(60, shutil.get_terminal_size((80, 24)).columns)
    for task in tasks:
        episodes = f"({default_episodes(task) or '?'} episodes) "
        head = f"{task.id}  {episodes}"
        desc = inert_text(first_line(task.description), one_line=True)
        if len(head) > width - 30:  # a long id: the description goes on its own line
            click.echo(head.rstrip() if len(head) <= width else task.id)
            head = "    " if len(head) <= width else "    " + episodes
        click.echo(head + _fit(desc, width - len(head)))
        params = " ".join(param_defaults(task)) or "no parameters"
        for line in textwrap.wrap(params, width=width - 4, initial_indent="    ", subsequent_indent="      "):
            click.echo(line)
    for gid, (desc, members) in groups.items():
        head = f"{gid}  (group of {len(members)} tasks) "
        click.echo(head + _fit(inert_text(first_line(desc), one_line=True), width - len(head)))
    click.echo(f"({len(tasks)} tasks, {len(groups)} groups; 'playbench describe TASK' for one task in full)")


def describe_lines(task: Task) -> list[str]:
    """Everything about a task, as lines of text."""
    lines = [task.id, ""]
    lines += textwrap.wrap(inert_text(task.description), width=78) or ["(no description)"]
    lines += ["", f"suite: {task.suite}", f"default episodes: {default_episodes(task) or '?'}",
              f"one-step task: {'yes' if task.one_step else 'no'}",
              f"aliases: {', '.join(task.aliases) or 'none'}",
              f"reference agents: {', '.join(task.reference_agents) or 'none'}"]
    if task.engine is not None:
        lines.append(f"engine: {task.engine.name} (install: {task.engine.install})")
    groups = [gid for gid, (_, members) in list_groups().items() if task.id in members]
    lines.append(f"in groups: {', '.join(groups) or 'none'}")
    lines += ["", "parameters (-T key=value):"]
    for p in parameters(task.params_model):
        lines.append(f"  {p.name} ({p.type_name}, default {default_text(p.default)})")
        if p.description:
            lines += textwrap.wrap(p.description, width=74, initial_indent="      ", subsequent_indent="      ")
    return lines
