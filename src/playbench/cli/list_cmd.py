"""``playbench list``: every task id with its description."""

import json

import click

from playbench.core.params import valid_keys
from playbench.core.registry import list_groups, list_tasks


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def command(as_json: bool) -> None:
    """List the tasks: the id first, then suite, default episodes, parameters and description."""
    rows = []
    for task in list_tasks():
        try:
            episodes = task.episodes(task.params())
        except Exception:
            episodes = None
        rows.append(
            {
                "id": task.id,
                "suite": task.suite,
                "episodes": episodes,
                "params": list(task.params_model.model_fields),
                "aliases": list(task.aliases),
                "agents": list(task.reference_agents),
                "description": task.description,
            }
        )
    groups = list_groups()
    if as_json:
        for gid, (desc, members) in groups.items():
            rows.append({"id": gid, "suite": gid.split("/")[0], "group": members, "description": desc})
        click.echo(json.dumps(rows, indent=2))
        return
    for task, row in zip(list_tasks(), rows, strict=True):
        click.echo(
            f"{row['id']}  [{row['suite']}, {row['episodes']} episodes, params: {valid_keys(task.params_model)}] "
            f"{row['description']}"
        )
    for gid, (desc, members) in groups.items():
        click.echo(f"{gid}  [group of {len(members)} tasks] {desc}")
