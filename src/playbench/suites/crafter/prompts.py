"""Crafter's texts: SmartPlay's manual (SPRING context) and BALROG's instruction prompt.

SmartPlay's manual is the "context" string of SPRING (Wu et al. 2023) as SmartPlay edits it
(smartplay.md §5.5.5); it is reproduced from SmartPlay (MIT licence, Microsoft) and printed in the
SmartPlay paper, Appendix C.5. BALROG's prompt is reproduced from BALROG (balrog.md §6.2).
"""

import hashlib
from functools import cache
from importlib import resources

#: First 16 hex digits of the SHA-256 of SmartPlay's final Crafter manual (4,603 chars, 104 lines).
SMARTPLAY_MANUAL_SHA16 = "2ece2c1256a11a3e"
#: The same for BALROG's Crafter instruction prompt (1,732 chars).
BALROG_PROMPT_SHA16 = "96b71528bcc33d33"

#: (action string, BALROG's description), in crafter's action index order.
BALROG_ACTIONS: tuple[tuple[str, str], ...] = (
    ("Noop", "do nothing"),
    ("Move West", "move west on flat ground"),
    ("Move East", "move east on flat ground"),
    ("Move North", "move north on flat ground"),
    ("Move South", "move south on flat ground"),
    ("Do", "Multiuse action to collect material, drink from lake and hit creature in front"),
    ("Sleep", "sleep when energy level is below maximum"),
    ("Place Stone", "place a stone in front"),
    ("Place Table", "place a table"),
    ("Place Furnace", "place a furnace"),
    ("Place Plant", "place a plant"),
    ("Make Wood Pickaxe", "craft a wood pickaxe with a nearby table and wood in inventory"),
    ("Make Stone Pickaxe", "craft a stone pickaxe with a nearby table, wood, and stone in inventory"),
    ("Make Iron Pickaxe", "craft an iron pickaxe with a nearby table and furnace, wood, coal, and iron in inventory"),
    ("Make Wood Sword", "craft a wood sword with a nearby table and wood in inventory"),
    ("Make Stone Sword", "craft a stone sword with a nearby table, wood, and stone in inventory"),
    ("Make Iron Sword", "craft an iron sword with a nearby table and furnace, wood, coal, and iron in inventory"),
)
#: The action strings both suites use, in crafter's index order.
ACTIONS: tuple[str, ...] = tuple(a for a, _ in BALROG_ACTIONS)

#: The achievements in the order BALROG's prompt lists them.
BALROG_ACHIEVEMENT_ORDER: tuple[str, ...] = (
    "Collect Wood", "Place Table", "Eat Cow", "Collect Sapling", "Collect Drink", "Make Wood Pickaxe",
    "Make Wood Sword", "Place Plant", "Defeat Zombie", "Collect Stone", "Place Stone", "Eat Plant",
    "Defeat Skeleton", "Make Stone Pickaxe", "Make Stone Sword", "Wake Up", "Place Furnace", "Collect Coal",
    "Collect Iron", "Make Iron Pickaxe", "Make Iron Sword", "Collect Diamond",
)


def sha16(text: str) -> str:
    """First 16 hex digits of the SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@cache
def smartplay_manual() -> str:
    """SmartPlay's Crafter manual, checked against its fingerprint."""
    text = resources.files("playbench.suites.crafter").joinpath("assets/smartplay_manual.txt").read_text("utf-8")
    if sha16(text) != SMARTPLAY_MANUAL_SHA16:
        raise RuntimeError("the shipped SmartPlay Crafter manual does not match its fingerprint")
    return text


@cache
def balrog_instruction_prompt() -> str:
    """BALROG's Crafter instruction prompt, byte for byte."""
    actions = ",\n".join(f"{name}: {text}" for name, text in BALROG_ACTIONS)
    achievements = "\n".join(f"{i}. {a}" for i, a in enumerate(BALROG_ACHIEVEMENT_ORDER, 1))
    return (
        "You are an agent playing Crafter. The following are the only valid actions you can take in the game, "
        "followed by a short description of each action:\n\n"
        f"{actions}.\n\n"
        f"These are the game achievements you can get:\n{achievements}\n\n"
        "In a moment I will present a history of actions and observations from the game.\n"
        "Your goal is to get as far as possible by completing all the achievements.\n\n"
        "PLAY!"
    )
