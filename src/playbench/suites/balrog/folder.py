"""BALROG's submission folder as a declared folder format (``Suite(formats={"balrog": ...:FORMAT})``).

``report`` reads and shows such a folder, ``export --format balrog`` writes one from a run, ``verify``
re-plays one, ``compare`` pairs its episodes by seed and ``eval --instances`` plays them again, each through
``FORMAT``: the folder's layout (and its instances) is ``submission.py``'s, its re-play ``verify.py``'s, what
compare reads ``compared.py``'s.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playbench.core.records import RunConfig
from playbench.core.suite import Comparable, Episodes, FormatHooks, Published, PublishedFigure
from playbench.suites.balrog import compared, leaderboard_instances, submission
from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.verify import SETTINGS, verify_submission

#: What a folder that publishes its summary alone is, for compare and the board
SUMMARY_ALONE = "a published summary alone (no episode files): nothing to pair"


def render(result: dict[str, Any]) -> list[Any]:
    """The folder's leaderboard figure as BALROG prints it, and any disagreement (``read``'s result, inert).

    A folder without episode files has nothing to recompute: its published figures are shown as written,
    and marked so.
    """
    from rich.table import Table
    from rich.text import Text

    def text(markup: str, style: str = "") -> Text:  # strings arrive escaped for markup: shown as written
        return Text.from_markup(markup, style=style, emoji=False)

    recomputed = result["recomputed"]
    summary = result["summary"] if recomputed else result["published"]
    table = Table(title=text(f"BALROG submission {result['folder']}"))
    for col in ("environment", "progression % ± SE" if recomputed else "published % ± SE", "episodes"):
        table.add_column(col, justify="left" if col == "environment" else "right")
    for env, block in summary["environments"].items():
        figure = (f"{block['progression_percentage']:.2f} ± {block['standard_error']:.2f}" if recomputed
                  else f"{block['progression_percentage']!r} ± {block['standard_error']!r}")  # as written
        table.add_row(text(env), figure, str(block["episodes_played"]))
    shown: list[Any] = [table]
    line = submission.leaderboard_line(summary)
    if not recomputed:
        shown += [Text(f"{line} (published, not recomputed)"), text(result["note"], "yellow")]
    elif result["recorded"] is None:
        shown += [Text(line), Text("no summary.json: figure computed from the episode files", style="yellow")]
    elif result["mismatches"]:
        shown += [Text(line), Text("summary.json disagrees with its episode files (figure above: the episode files):",
                             style="bold red")]
        shown += [text(f"  {mismatch}") for mismatch in result["mismatches"]]
    else:
        shown += [Text(line), Text("summary.json agrees with the episode files", style="green")]
    return shown


def write(folder: Path, episodes: Episodes, config: RunConfig) -> tuple[int, list[str]]:
    """Write a run's BALROG episodes as the submission ``folder``: ``(episodes written, notes on what was left out)``."""
    params = dict(config.agent_params)
    if "max_image_history" in params and not any(task.params.get("images") is True for task in config.tasks):
        params["max_image_history"] = 0  # no task sent images: BALROG states a text-only run so
    written = submission.write_submission(folder, episodes, submission.agent_config(config.agent, params),
                                          submission.client_config(config.model, config.model_params))
    notes = []
    if written.other_tasks:
        notes.append(f"not BALROG tasks, left out: {', '.join(written.other_tasks)}")
    if written.left_out:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(written.left_out.items()))
        notes.append(f"episodes not ok, left out as BALROG leaves them ({counts}); "
                     "'playbench eval --resume RUN --retry-errors' re-runs them")
    return written.episodes, notes


def episodes(folder: Path, options: Mapping[str, str]) -> Comparable:
    """The folder as compare reads it (``compared.episodes``); one without episode files: its published figures.

    A leaderboard folder that publishes its ``summary.json`` alone holds nothing to pair: its figures come back
    as written (``Comparable.published``, checked to be numbers as ``report`` checks them), with the protocol
    and model its summary states; an environment playbench does not have is left out, said in a note.
    """
    if submission.episode_files(folder):
        return compared.episodes(folder, options)
    read = submission.read_submission(folder)  # refuses a folder with neither episodes nor a summary
    recorded, figures = read["recorded"], read["published"]
    places = {row.env: row.id.rpartition("/")[0] for row in TASKS}
    envs = {places[env]: _figure(block["progression_percentage"], block["standard_error"], block["episodes_played"])
            for env, block in figures["environments"].items() if env in places}
    unknown = sorted(env[:40] for env in figures["environments"] if env not in places)
    notes = [SUMMARY_ALONE] + ([f"environments playbench does not have, left out: {', '.join(unknown)}"]
                               if unknown else [])
    usage = {name: figures[f"total_{name}"] for name in ("input_tokens", "output_tokens")
             if f"total_{name}" in figures}
    played = sum(block["episodes_played"] for block in figures["environments"].values())
    overall = _figure(figures["average_progress"], figures["standard_error"], played)
    settings = compared.episode_settings(recorded.get("agent"), recorded.get("client"))
    date = compared._date(folder)
    if date is not None:
        settings["date"] = date
    client = recorded.get("client")
    names = [str(client[k])[:80] for k in ("client_name", "model_id") if isinstance(client, dict) and client.get(k)]
    model = "/".join(names) if isinstance(client, dict) and client.get("model_id") else None
    label = " + ".join(str(x) for x in (model, settings.get("agent")) if x) or Path(folder).name
    return Comparable(label=label, episodes=(), key="seed", run_key=lambda record: None, unpairable=SUMMARY_ALONE,
                      settings=settings, notes=tuple(notes),
                      model=compared._playbench_model(model) if model else None,
                      published=Published(overall, envs, usage))


def _figure(percent: float, error: float, episodes: int | None = None) -> PublishedFigure:
    """A published percentage and its standard error, on [0, 1]."""
    return PublishedFigure(percent / 100, error / 100, episodes)


FORMAT = FormatHooks(title="BALROG submission", detect=submission.is_submission, read=submission.read_submission,
                     render=render, write=write, verify=verify_submission, episodes=episodes,
                     instances=leaderboard_instances.instances, verify_options=SETTINGS)
