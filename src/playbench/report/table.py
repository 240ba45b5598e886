"""One tidy table of episodes, from one run or several: a row per episode, a column per fact.

Every table starts with ``COLUMNS``; then one column per task parameter (``param.NAME``), per suite metric
(``metric.NAME``) and per usage count other than the two token counts (``usage.NAME``), each family in
name order, over all the runs given. A row leaves the columns its task or record does not have empty.
"""

import json
from typing import Any

from playbench.log.read import RunLog
from playbench.report.build import run_label

#: The columns every table starts with, in this order (``seed`` is the episode's, ``base_seed`` the run's)
COLUMNS = ["run", "run_id", "label", "model", "agent", "base_seed", "task", "index", "seed", "status", "score",
           "completion", "progress", "reward", "steps", "invalid_actions", "input_tokens", "output_tokens",
           "error", "instance"]
#: The columns of the tables one run's export wrote before several runs made one table (still recognised)
FIRST_COLUMNS = ["run_id", "task", "index", "seed", "instance", "agent", "model", "status", "score", "completion",
                 "progress", "reward", "steps", "invalid_actions", "input_tokens", "output_tokens", "error"]
#: The families of columns that follow ``COLUMNS``, in this order
FAMILIES = ("param.", "metric.", "usage.")
_TOKENS = ("input_tokens", "output_tokens")  # usage counts with a column of their own


def is_table_header(names: list[str]) -> bool:
    """Whether ``names`` are the columns of a table ``episode_table`` makes (or the first layout's)."""
    if names == FIRST_COLUMNS:
        return True
    if names[:len(COLUMNS)] != COLUMNS:
        return False
    rest = names[len(COLUMNS):]
    return all(name.startswith(FAMILIES) for name in rest) and rest == _ordered(rest)


def _ordered(names: list[str]) -> list[str]:
    return sorted(names, key=lambda name: (next(i for i, f in enumerate(FAMILIES) if name.startswith(f)), name))


def _cell(value: Any) -> Any:
    """A value as a table cell: scalars as they are, lists, mappings and integers beyond 64 bits as JSON text."""
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, int | float) else "text"


def _uniform(rows: list[dict[str, Any]], column: str) -> None:
    """Make one column hold one kind of value.

    When its values mix kinds (a number here, text there), each becomes its JSON text, so Parquet gets one
    type and nothing reads as what it is not.
    """
    kinds = {_kind(row[column]) for row in rows if row.get(column) is not None}
    if len(kinds) > 1:
        for row in rows:
            if row.get(column) is not None:
                row[column] = json.dumps(row[column])


def episode_rows(stores: list[RunLog]) -> tuple[list[dict[str, Any]], list[str]]:
    """The latest record of every episode of ``stores`` as flat rows, and the table's columns.

    Rows follow the runs in the order given, then task and index; columns are ``COLUMNS`` then the
    ``param.``, ``metric.`` and ``usage.`` columns.
    """
    rows: list[dict[str, Any]] = []
    extra: set[str] = set()
    for store in stores:
        config = store.meta.config
        params = {spec.id: spec.params for spec in config.tasks}
        label = run_label(store)
        for r in store.episodes():
            row: dict[str, Any] = {
                "run": store.root.name, "run_id": store.meta.run_id, "label": label, "model": r.model,
                "agent": r.agent, "base_seed": config.seed, "task": r.task, "index": r.index, "seed": r.seed,
                "status": r.status, "score": r.score, "completion": r.completion, "progress": r.progress,
                "reward": r.reward, "steps": r.steps, "invalid_actions": r.invalid_actions,
                "input_tokens": r.usage.get("input_tokens", 0), "output_tokens": r.usage.get("output_tokens", 0),
                "error": r.error, "instance": json.dumps(r.instance, sort_keys=True),
            }
            facts = {**{f"param.{k}": v for k, v in params.get(r.task, {}).items()},
                     **{f"metric.{k}": v for k, v in r.metrics.items()},
                     **{f"usage.{k}": v for k, v in r.usage.items() if k not in _TOKENS}}
            row.update((name, _cell(value)) for name, value in facts.items())
            extra.update(facts)
            rows.append(row)
    columns = COLUMNS + _ordered(list(extra))
    for column in columns[len(COLUMNS):]:
        _uniform(rows, column)
    return rows, columns


def episode_frame(rows: list[dict[str, Any]], columns: list[str]) -> Any:
    """``episode_rows`` as a pandas DataFrame; whole-number columns keep integers beside empty cells."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=columns)
    for column in columns[len(COLUMNS):]:
        values = [row[column] for row in rows if row.get(column) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            frame[column] = frame[column].astype("Int64")
    return frame
