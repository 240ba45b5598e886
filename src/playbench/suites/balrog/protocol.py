"""BALROG's episode protocol, game side: instruction prompts and invalid-action feedback (limits: ``facts``).

Everything here is data taken from the BALROG specification (``specs/balrog.md`` §1, §2.3, §6): the
instruction prompts are reproduced byte for byte (their SHA-256 fingerprints are checked by the tests),
including the original's typos and odd indentation, because they are benchmark inputs.
"""

import hashlib
from functools import lru_cache
from typing import Literal

from playbench.suites.balrog import facts

# Views of the environment rows of ``facts.ENVS`` (the numbers live there only).
ENVS: tuple[str, ...] = facts.env_names()
Preset = Literal["config", "paper"]
#: Episodes per task for each preset: ``config`` = the repository's config.yaml, ``paper`` = the paper's tables.
EPISODES: dict[str, dict[str, int]] = {p: {e.name: e.episodes(p) for e in facts.ENVS} for p in ("config", "paper")}
#: The action executed when the model's output is not a valid action (§1). TextWorld accepts any text.
DEFAULT_ACTIONS: dict[str, str | None] = {e.name: e.default_action for e in facts.ENVS}


def episodes_for(env: str, preset: str) -> int:
    """Episodes per task of ``env`` under a preset (``config`` or ``paper``)."""
    return facts.env(env).episodes(preset)


def fingerprint(text: str) -> str:
    """The spec's prompt fingerprint: the first 16 hex digits of SHA-256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def invalid_action_feedback(executed: str, observation: str) -> str:
    """The long-term text after an invalid output (§2.3 step 5): the note, then the original observation."""
    return (
        f"\n\nYour previous output did not contain a valid action. Defaulted to action: {executed}"
        f"\n\nObservation:\n{observation}"
    )


# -- BabyAI (§6.1) ------------------------------------------------------------------------------------

BABYAI_ACTIONS: tuple[str, ...] = ("turn left", "turn right", "go forward", "pick up", "drop", "toggle")

_BABYAI_PROMPT = """You are an agent playing a simple navigation game. Your goal is to {mission}. \
The following are the possible actions you can take in the game, followed by a short description of each action:

turn left: turn to the left,
turn right: turn to the right,
go forward: take one step forward,
pick up: pick up the object below you,
drop: drop the object that you are holding,
toggle: manipulate the object in front of you.

In a moment I will present you an observation.

Tips:
- Once the desired object you want to interact or pickup in front of you, \
you can use the 'toggle' action to interact with it.
- It doesn't make sense to repeat the same action over and over if the observation doesn't change.

PLAY!"""


@lru_cache(maxsize=256)
def babyai_prompt(mission: str) -> str:
    """BabyAI's instruction prompt for a mission (e.g. ``go to the grey ball``).

    The same string for every episode of a mission, while it is among the last 256 asked: every live episode
    holds its prompt (0.8 KB), and a level has few missions.
    """
    return _BABYAI_PROMPT.format(mission=mission)


# -- TextWorld (§6.3) ---------------------------------------------------------------------------------
# Every line after the first is indented by four spaces in the original (a triple-quoted string that
# is only stripped); the curly quotes, missing full stops and the garbled "2in the game by" are kept.

_TW_TREASURE_HUNTER = [
    "You are an agent playing TextWorld, a text-based adventure game where you are in a randomly generated",
    "maze and must find a specific object. You need to explore different rooms to find the target object.",
    "Here are the available commands: look: describe the current room. goal: print the goal of this game",
    "inventory: print the player\u2019s inventory go <dir>: move the player north, east, south, or west. You can",
    "only go in the direction indicated with an exit or a door. open ...: open a door or a container. "
    "You need to",
    "open a closed door before you want to go through it. drop ...: drop an object on the floor take ...: "
    "take an",
    "object that is visible. Make sure the object is visible to take. put ... on ...: place an object on a "
    "supporter",
    "take ... from ...: take an object from a container or a supporter insert ... into ...: place an object into a",
    "container unlock ... with ...: unlock a door or a container with a key. You need to unlock a locked door",
    "with a matched key in your inventory before you want to open it.",
    "- The target object might be located in a closed or locked container. - The adjective is useful for",
    "determining whether the key is matched with the lock (e.g. non-euclidean keycard is matched with",
    "non-euclidean safe). Make sure it is matched to unlock! - The key required to unlock the door may be in",
    "another room or locked inside a container. - Take the key whenever you can. - After unlocking a locked",
    "door or container, it will remain closed. You will then need to open it.",
    "You have 40 steps to complete the task. Restarting is forbidden.",
]

_TW_COOKING = [
    "You are an agent playing TextWorld, a text-based adventure game where you navigate through different",
    "rooms, interact with objects, and solve puzzles. Your goal is to first find the recipe, find and prepare "
    "food",
    "according to the recipe, and finally prepare and eat the meal.",
    "Here are the available commands: look: describe the current room goal: print the goal of this game",
    "inventory: print player\u2019s inventory go <dir>: move the player north, east, south or west. You can only go",
    "to directions indicated with an exit or a door. examine ...: examine something more closely eat ...: eat",
    "edible food open ...: open a door or a container. You need to open a closed door before you can go through",
    "it. drop ...: drop an object onto the floor take ...: take an object that is visible put ... on ...: "
    "place an object",
    "on a supporter take ... from ...: take an object from a container or a supporter insert ... into ...: "
    "place an",
    "object into a container lock ... with ...: lock a door or a container with a key unlock ... with ...: "
    "unlock a",
    "door or a container with a key cook ... with ...: cook cookable food with something providing heat slice ...",
    "with ...: slice cuttable food with something sharp chop ... with ...: chop cuttable food with something",
    "sharp dice ... with ...: dice cuttable food with something sharp prepare meal: combine ingredients from",
    "inventory into a meal. You can only prepare meals in the Kitchen.",
    "- You can examine the cookbook to see the recipe when it is visible. - The BBQ is for grilling things,",
    "the stove is for frying things, the oven is for roasting things. Cooking ingredients in the wrong way will",
    "lead to a failure of the game. - Once you have got processed ingredients and the appropriate cooking tool",
    "ready, cook all of them according to the recipe. - There are two conditions to correctly cook something",
    "(grill/fry/roast): a) the ingredient you want to cook is in your inventory and b) there is a suitable "
    "cooking",
    "tool in the room, and then use \u2018cook . . . with . . . \u2019 command. - When you need to chop/slice/dice",
    "ingredients, you need to take the knife and the ingredient in your inventory and then \u2018slice/chop/dice ...",
    "with knife\u2019 - Make sure to first process the food (chop/slice/dice) before you try to cook them. - When",
    "you have all the ingredients (that got processed or cooked according to the menu), you can \u2018prepare meal\u2019",
    "in the kitchen and then \u2018eat meal\u2019 to win the game. - The ingredients should EXACTLY match the color",
    "in the recipe, but if the recipe doesn\u2019t specify color, any color would be fine. When you \u2018take ... "
    "with ...\u2019,",
    "use the EXACT name you see. - You don\u2019t need to examine the container/supporter (e.g. toolbox) when",
    "it says something like \"there isn\u2019t a thing on it\"/\"has nothing on it\"",
    "You have 80 steps to complete the task. Restarting is forbidden.",
]

_TW_COIN = [
    "You are an agent playing TextWorld, a text-based adventure game where you are in a randomly generated",
    "maze and must find the coin. You need to explore different rooms to find the target object.",
    "Here are the available commands: goal: print the goal of this game go <dir>: move the player north, east,",
    "south, or west. You can only go in the direction indicated with something like an exit or a door. "
    "take coin:",
    "2in the game by \u2018take coin\u2019 if you see the coin in the room",
    "The only action you can do is go <dir> to explore the maze and \u2018take coin\u2019 when you see the coin in the",
    "room.",
    "You have 25 steps to complete the task. Restarting is forbidden.",
]

TEXTWORLD_PROMPTS: dict[str, str] = {
    name: "\n    ".join(lines)
    for name, lines in (
        ("treasure_hunter", _TW_TREASURE_HUNTER),
        ("the_cooking_game", _TW_COOKING),
        ("coin_collector", _TW_COIN),
    )
}


def textworld_prompt(task: str) -> str:
    """TextWorld's instruction prompt for a game type (not mission-specific)."""
    return TEXTWORLD_PROMPTS[task]


#: Fingerprints (length, 16-hex SHA-256 prefix) of §11.1, for the prompts this module owns.
FINGERPRINTS: dict[str, tuple[int, str]] = {
    "babyai:go to the grey ball": (714, "c2c0db17bac5cc14"),
    "textworld:treasure_hunter": (1617, "273c2044222973ba"),
    "textworld:the_cooking_game": (2915, "72275e346f9a233e"),
    "textworld:coin_collector": (671, "6832ddb71f719a6e"),
}
