"""The ``quickstart`` group: a few episodes of each suite, offline (the README's default run)."""

from typing import Any

GROUP_ID = "quickstart"
DESCRIPTION = "a small offline sample of every suite (the README's default run)"
#: (task id, preset) in run order.
MEMBERS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("smartplay/bandit-highlow", {"episodes": 3}),
    ("smartplay/rps-basic", {"episodes": 3}),
    ("smartplay/hanoi-3", {"episodes": 3}),
    ("mango/df", {"episodes": 4}),
    ("mango/rf", {"episodes": 4}),
    ("grasp/energy", {"episodes": 8}),
    ("smartplay/messenger-2", {"episodes": 3}),
    ("smartplay/minecraft-forest", {"episodes": 2}),
    ("smartplay/crafter", {"episodes": 1, "params": {"max_steps": 200}}),
    ("balrog/babyai/goto", {"episodes": 3}),
    ("balrog/babaisai/goto_win", {"episodes": 3}),
    ("balrog/crafter/default", {"episodes": 1, "params": {"max_steps": 200}}),
    ("balrog/minihack/mazewalk-9x9", {"episodes": 2}),
    ("balrog/minihack/boxoban-medium", {"episodes": 2}),
)
