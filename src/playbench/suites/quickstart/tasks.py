"""Registers ``quickstart``: a few episodes of each suite, offline, about a minute in all."""

from playbench.core.registry import register_group

MEMBERS: list[tuple[str, dict]] = [
    ("smartplay/bandit-highlow", {"episodes": 3}),
    ("smartplay/rps-basic", {"episodes": 3}),
    ("smartplay/hanoi-3", {"episodes": 3}),
    ("mango/df", {"episodes": 4}),
    ("mango/rf", {"episodes": 4}),
    ("grasp/energy", {"episodes": 8}),
]

register_group("quickstart", "a small offline sample of every suite (the README's default run)", MEMBERS)
