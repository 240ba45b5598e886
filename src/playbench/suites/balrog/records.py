"""BALROG's demonstration records (``.npz``), read without running any code they could hold.

The suite's ``demos`` hook (``read_demos``): the few-shot agent reads them through it, knowing no suite.

BALROG's few-shot agent reads ``records/<env>/<task>/**/*.npz`` (``balrog/dataset.py``), recorded by
balrog-ai/balrog-demo's ``EpisodeRecorder``: one array per key over the episode's transitions, the first
transition being the reset (its action a zero placeholder), the others ``action``, the observation's
fields (``text`` is a dict with ``long_term_context``), ``reward``, ``terminated`` and ``truncated``.
File stems look like ``20241201T225823-seed13-rew1.00-len47``. The records themselves are a Google
Drive download (BALROG's ``docs/few_shot_learning.md``), not available offline: give their folder.

``text`` is an object array, which numpy stores as a pickle. Loading a pickle can run any code, so only
the four arrays needed are read, and a pickle may name nothing but numpy's array reconstruction:
anything else is refused with one line (no code from a record ever runs).
"""

import glob
import io
import os
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.suites.balrog.facts import TASKS
from playbench.suites.balrog.submission import original_name

#: The only globals a record's pickle may name: numpy rebuilding an array, its dtype and its scalars.
_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
}
_KEYS = ("action", "terminated", "truncated", "text")


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name}")
        return super().find_class(module, name)


def _object_array(archive: zipfile.ZipFile, key: str) -> np.ndarray:
    """An object array of the archive, unpickled with numpy's array classes only."""
    with archive.open(f"{key}.npy") as member:
        fp = io.BytesIO(member.read())
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        np.lib.format.read_array_header_1_0(fp)
    else:
        np.lib.format.read_array_header_2_0(fp)
    value = _ArraysOnly(fp, encoding="ASCII").load()
    if not isinstance(value, np.ndarray):
        raise pickle.UnpicklingError("not an array")
    return value


def read_record(path: Path) -> tuple[int, list[tuple[str, str]]]:
    """``(seed, steps)`` of one record: (observation, action taken from it) pairs as BALROG's loader walks them.

    The episode runs from the reset's observation to the first done transition; the last observation
    is paired with ``""`` (nothing was played from it; the demonstration block ends on it).
    """
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise PlaybenchError(f"{path} is not a BALROG demonstration record (.npz): {exc}") from None
    arrays: dict[str, np.ndarray] = {}
    with archive:
        names = set(archive.namelist())
        for key in _KEYS:
            if f"{key}.npy" not in names:
                raise PlaybenchError(f"{path} is not a BALROG demonstration record (no {key!r} array)")
            try:
                with archive.open(f"{key}.npy") as member:
                    arrays[key] = np.lib.format.read_array(io.BytesIO(member.read()), allow_pickle=False)
            except ValueError:  # an object array: a pickle, read with numpy's classes only
                try:
                    arrays[key] = _object_array(archive, key)
                except (pickle.UnpicklingError, ValueError, EOFError, AttributeError, TypeError) as exc:
                    raise PlaybenchError(f"{path}: {key!r} holds Python objects other than text and arrays "
                                         f"({exc}); playbench reads no others (no code from a record runs)") from None
    texts = arrays["text"].tolist()
    actions = arrays["action"].tolist()
    dones = np.logical_or(arrays["terminated"], arrays["truncated"]).tolist()
    if not (len(texts) == len(actions) == len(dones)) or not texts:
        raise PlaybenchError(f"{path}: its arrays have different lengths or are empty")
    observations = []
    for text in texts:
        if not isinstance(text, dict) or not isinstance(text.get("long_term_context", ""), str):
            raise PlaybenchError(f"{path}: 'text' entries must be dicts with a 'long_term_context' text")
        observations.append(text.get("long_term_context", ""))
    steps: list[tuple[str, str]] = []
    current = observations[0]
    for observation, action, done in zip(observations[1:], actions[1:], dones[1:], strict=True):
        steps.append((current, str(action)))
        current = observation
        if done:
            break
    steps.append((current, ""))
    return record_seed(path), steps


def record_seed(path: Path) -> int:
    """The seed in a record's file name (``…-seed13-…``); -1 when it names none."""
    seeds = [part.removeprefix("seed") for part in Path(path).stem.split("-") if part.startswith("seed")]
    return int(seeds[0]) if seeds and seeds[0].isdigit() else -1


def _natural(text: str) -> list[Any]:
    return [int(c) if c.isdigit() else c.lower() for c in re.split(r"(\d+)", text)]


def record_files(root: Path, env: str, task: str) -> list[Path]:
    """BALROG's list of a task's records: ``root/env/task/**/*.npz`` in natural order."""
    folder = Path(root) / env / task
    found = glob.glob(os.path.join(glob.escape(str(folder)), "**", "*.npz"), recursive=True)
    return [Path(p) for p in sorted(found, key=_natural)]


def is_records_folder(root: Path) -> bool:
    """A folder laid out as BALROG's ``records`` (some ``<env>/<task>/**/*.npz``)."""
    return Path(root).is_dir() and any(Path(root).glob("*/**/*.npz"))


def read_demos(root: Path) -> dict[str, list[tuple[int, list[tuple[str, str]]]]] | None:
    """The records under ``root`` by task id, each ``(seed, steps)``; None if ``root`` is no records folder."""
    if not is_records_folder(root):
        return None
    found: dict[str, list[tuple[int, list[tuple[str, str]]]]] = {}
    for row in TASKS:
        env, name = original_name(row.id)
        for path in record_files(root, env, name):
            found.setdefault(row.id, []).append(read_record(path))
    return found
