"""Which (grid, constraints) instance episode *i* plays: generated from the episode seed, or official.

Order (both sources): the 8 constraint combinations vary fastest (official order: movement, carry, cost),
then the distribution, the obstacle setting and the start region, then the grid number. So the first 160
episodes of an unfiltered task cover every one of the 160 settings once, and on the official data the
first 1,600 are exactly the paper's subset (grid indices 0-9).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.suites.grasp.grid import COMBINATIONS, Constraints, Grid
from playbench.suites.grasp.official import custom_id, grid_file_name, load_grids
from playbench.suites.grasp.params import GraspParams, parse_indices
from playbench.suites.grasp.render import render_grid

DEFAULT_EPISODES = 160  # one instance of every setting x constraint combination


@dataclass(frozen=True)
class Instance:
    """A concrete instance: the grid, its text, the constraints and where it came from."""

    grid: Grid
    official_text: str | None  # the grid file's text; None: a generated grid's, rendered when first asked (``text``)
    blocked: bool
    constraints: Constraints
    distribution: str
    obstacle: str
    start_region: str
    energy_probability: float
    source: dict[str, Any]

    @cached_property
    def text(self) -> str:
        """The grid's §3 text: the official file's, or a generated grid's rendering.

        Rendered when first asked: the interactive game shows its own view, and asks only as its episode ends
        (``describe``), so a live episode does not hold it (1.2 KB).
        """
        return self.official_text if self.official_text is not None else render_grid(self.grid)

    def describe(self) -> dict[str, Any]:
        """The JSON dict stored as the episode's ``instance`` (a new dict; what it holds is shared: read only)."""
        return dict(self._described)

    @cached_property
    def _described(self) -> dict[str, Any]:
        """``describe``'s dict, made once: a GRPO group's copies play one instance, each recording it."""
        return {
            **self.source,
            "distribution": self.distribution,
            "obstacle": self.obstacle,
            "start_region": self.start_region,
            "energy_probability": self.energy_probability,
            "start": list(self.grid.start),
            "constraints": self.constraints.as_dict(),
            "grid": self.text,
        }


def _combinations(p: GraspParams) -> list[Constraints]:
    moves, carries, costs = p.choices("movement"), p.choices("carry"), p.choices("cost")
    return [
        c for c in COMBINATIONS
        if str(c.movement) in moves and ("none" if c.carry is None else "2") in carries
        and ("0.3" if c.cost else "0") in costs
    ]


def _settings(p: GraspParams) -> list[tuple[str, str, str]]:
    return [(s, d, o) for s in p.choices("start") for o in p.choices("obstacle") for d in p.choices("distribution")]


def _official_keys(p: GraspParams) -> list[tuple[str, int, Constraints]]:
    grids = load_grids(p.data or "")
    return _keys(id(grids), tuple(_settings(p)), p.indices, tuple(_combinations(p)), p.data or "")


@lru_cache(maxsize=16)
def _keys(
    _grids_id: int, settings: tuple[tuple[str, str, str], ...], indices: str, combos: tuple[Constraints, ...], data: str
) -> list[tuple[str, int, Constraints]]:
    grids = load_grids(data)
    wanted = parse_indices(indices)
    files = [grid_file_name(*s) for s in settings]
    present = sorted({i for f, i in grids if f in files and (wanted is None or i in wanted)})
    return [(f, i, c) for i in present for f in files if (f, i) in grids for c in combos]


def count(p: GraspParams) -> int:
    """How many distinct instances the parameters select.

    Generated: settings x combinations (the generator draws new grids for episodes beyond this count).
    """
    if p.data is None:
        return len(_settings(p)) * len(_combinations(p))
    return len(_official_keys(p))


def default_episodes(p: GraspParams) -> int:
    """The default episode count of the parameters.

    Generated: one per selected setting x combination (160 unfiltered). Official: every selected instance
    when ``indices`` is given, else the first 160 in episode order (grid index 0 of every file).
    """
    if p.data is None:
        return count(p)
    total = count(p)
    return total if p.indices.strip().lower() != "all" else min(total, DEFAULT_EPISODES)


def check_data(p: GraspParams) -> None:
    """``Task.check_inputs``: read and check every grid file of ``-T data=`` and refuse an empty selection.

    The grids are cached, so the episodes then use this reading.
    """
    if p.data is not None and not _official_keys(p):
        raise PlaybenchError(f"the GRASP filters select no instance in {p.data}")


#: Instances kept for the episodes that play them again: the members of a GRPO group play one episode (same
#: parameters, index and seed) at about the same time. Generating one takes about 0.1 ms; one kept, about 4 KB.
KEPT_INSTANCES = 64


def make_instance(p: GraspParams, index: int, seed: int) -> Instance:
    """The instance of episode ``index`` (generated ones from ``seed``).

    The last ``KEPT_INSTANCES`` made are kept and shared by the games that play them (an instance is never
    changed: its grid and constraints are frozen, its ``source`` is copied by ``describe``).
    """
    return _kept(p, index, seed)


@lru_cache(maxsize=KEPT_INSTANCES)
def _kept(p: GraspParams, index: int, seed: int) -> Instance:
    if p.data is None:
        settings, combos = _settings(p), _combinations(p)
        if not settings or not combos:
            raise PlaybenchError("the GRASP filters select no instance")
        constraints = combos[index % len(combos)]
        start_region, distribution, obstacle = settings[(index // len(combos)) % len(settings)]
        import numpy as np  # here, not at the top: counting episodes (``playbench list``) loads no numpy

        from playbench.suites.grasp.generate import generate

        g = generate(np.random.default_rng(seed), distribution, obstacle, start_region, p.skew_axes, p.cluster_centres)
        source = {"source": "generated", "seed": seed, "skew_axes": p.skew_axes, "cluster_centres": p.cluster_centres}
        return Instance(g.grid, None, obstacle == "block", constraints, distribution, obstacle,
                        start_region, g.energy_probability, source)
    keys = _official_keys(p)
    if not keys:
        raise PlaybenchError(f"the GRASP filters select no instance in {p.data}")
    if index >= len(keys):
        raise PlaybenchError(f"episode {index} is beyond the {len(keys)} selected official instances")
    file, grid_index, constraints = keys[index]
    rec = load_grids(p.data)[(file, grid_index)]
    source = {"source": "official", "file": file, "index": grid_index,
              "custom_id": custom_id(file, grid_index, constraints)}
    return Instance(rec.grid, rec.text, rec.blocked, constraints, rec.distribution, rec.obstacle, rec.start_region,
                    rec.energy_probability, source)
