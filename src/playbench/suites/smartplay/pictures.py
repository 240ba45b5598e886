"""Pictures for the viewer: the Hanoi rods of each step, drawn as SVG from the observation text."""

import ast
import re

from playbench.core.records import EpisodeRecord, StepRecord

_ROD = re.compile(r"^- ([ABC]): \|bottom, (\[[0-9, ]*\]), top\|$", re.M)
_COLOURS = ["#e45756", "#f58518", "#54a24b", "#4c78a8", "#b279a2", "#9d755d"]


def hanoi_svg(rods: dict[str, list[int]]) -> str:
    """Three rods with their disks (disk 0 is the smallest)."""
    disks = max((d for r in rods.values() for d in r), default=0) + 1
    width, height, unit = 360, 40 + 18 * disks, 90 / max(disks, 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
             f'<rect x="0" y="{height - 12}" width="{width}" height="12" fill="#888"/>']
    for i, name in enumerate("ABC"):
        cx = 60 + i * 120
        parts.append(f'<rect x="{cx - 3}" y="20" width="6" height="{height - 32}" fill="#555"/>')
        parts.append(f'<text x="{cx}" y="14" text-anchor="middle" font-size="12">{name}</text>')
        for level, disk in enumerate(rods.get(name, [])):
            w = 20 + unit * (disk + 1)
            y = height - 12 - 18 * (level + 1)
            parts.append(f'<rect x="{cx - w / 2:.1f}" y="{y}" width="{w:.1f}" height="16" rx="4" '
                         f'fill="{_COLOURS[disk % len(_COLOURS)]}"/>')
    parts.append("</svg>")
    return "".join(parts)


def step_picture(record: EpisodeRecord, step: StepRecord) -> str | None:
    """The rods as the agent saw them at this step (Hanoi only)."""
    if not record.task.startswith("smartplay/hanoi"):
        return None
    rods = {m.group(1): ast.literal_eval(m.group(2)) for m in _ROD.finditer(step.observation)}
    return hanoi_svg(rods) if len(rods) == 3 else None
