"""BALROG's text action sets for MiniHack and NetHack, and the descriptions its prompts list (§6.5, §6.6).

Pure data: no engine import. The engine adapter maps a name (or key string) to an NLE action index
with the NLE language wrapper's own table.
"""

import string

_DIRS = ("north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest")

#: BALROG's MiniHack description dict: the 33 names a MiniHack task may expose, in dict order.
MINIHACK_DESCRIPTIONS: dict[str, str] = {
    **{d: f"move {d}" for d in _DIRS},
    **{f"far {d}": f"move far {d}" for d in _DIRS},
    "up": "go up the stairs",
    "down": "go down the stairs",
    "wait": "rest one move while doing nothing",
    "more": "display more of the message",
    "apply": "apply (use) a tool",
    "close": "close an adjacent door",
    "open": "open an adjacent door",
    "eat": "eat something",
    "force": "force a lock",
    "kick": "kick an enemy or a locked door or chest",
    "loot": "loot a box on the floor",
    "pickup": "pick up things at the current location if there are any",
    "pray": "pray to the gods for help",
    "puton": "put on an accessory",
    "quaff": "quaff (drink) something",
    "search": "search for hidden doors and passages",
    "zap": "zap a wand",
}

#: The 80 (name, description) pairs BALROG's NetHack prompt lists, in order (B9: six are not valid).
NETHACK_PROMPT_ACTIONS: tuple[tuple[str, str], ...] = (
    *((d, f"move {d}") for d in _DIRS),
    *((f"far {d}", f"move far {d}") for d in _DIRS),
    ("up", "go up a staircase"),
    ("down", "go down a staircase (tip: you can only go down if you are standing on the stairs)"),
    ("wait", "rest one move while doing nothing"),
    ("more", "display more of the message (tip: ONLY ever use when current message ends with --More--)"),
    ("annotate", "leave a note about the level"),
    ("apply", "apply (use) a tool"),
    ("call", "name a monster or object, or add an annotation"),
    ("cast", "cast a spell"),
    ("close", "close an adjacent door"),
    ("open", "open an adjacent door"),
    ("dip", "dip an object into something"),
    ("drop", "drop an item"),
    ("droptype", "drop specific item types (specify in the next prompt)"),
    ("eat", "eat something (tip: replenish food when hungry)"),
    ("esc", "exit menu or message"),
    ("engrave", "engrave writing on the floor (tip: Elbereth)"),
    ("enhance", "advance or check weapons skills"),
    ("fire", "fire ammunition from quiver"),
    ("fight", "fight a monster (even if you only guess one is there)"),
    ("force", "force a lock"),
    ("inventory", "show your inventory"),
    ("invoke", "invoke "),  # sic: trailing space in the original
    ("jump", "jump to a location"),
    ("kick", "kick an enemy or a locked door or chest"),
    ("look", "look at what is under you"),
    ("loot", "loot a box on the floor"),
    ("monster", "use a monster's special ability (when polymorphed)"),
    ("offer", "offer a sacrifice to the gods (tip: on an aligned altar)"),
    ("overview", "display an overview of the dungeon"),
    ("pay", "pay your shopping bill"),
    ("pickup", "pick up things at the current location"),
    ("pray", "pray to the gods for help"),
    ("puton", "put on an accessory"),
    ("quaff", "quaff (drink) something"),
    ("quiver", "select ammunition for quiver"),
    ("read", "read a scroll or spellbook"),
    ("remove", "remove an accessory"),
    ("rub", "rub a lamp or a stone"),
    ("search", "search for hidden doors and passages"),
    ("swap", "swap wielded and secondary weapons"),
    ("takeoff", "take off one piece of armor"),
    ("takeoffall", "take off all armor"),
    ("teleport", "teleport to another level (if you have the ability)"),
    ("throw", "throw something (e.g. a dagger or dart)"),
    (
        "travel",
        "travel to a specific location on the map (tip: in the next action, specify > or < for stairs, "
        "{ for fountain, and _ for altar)",
    ),
    ("twoweapon", "toggle two-weapon combat"),
    ("untrap", "untrap something"),
    ("wear", "wear a piece of armor"),
    ("wield", "wield a weapon"),
    ("wipe", "wipe off your face"),
    ("zap", "zap a wand"),
    ("minus", "-"),
    ("space", " "),
    ("apos", "'"),
    *((str(i), str(i)) for i in range(10)),
)

#: Letters and digits BALROG appends to NetHack's action names (every one is a key press).
NETHACK_KEYS: tuple[str, ...] = tuple(string.ascii_lowercase + string.ascii_uppercase + string.digits)
#: The 100 two-digit strings BALROG also appends; they crash the engine (B4) and are dropped in fixed mode.
NETHACK_TWO_DIGITS: tuple[str, ...] = tuple(f"{i:02d}" for i in range(100))


def minihack_action_names(env_action_names: list[str]) -> list[str]:
    """The MiniHack text action set: the env's own actions (first names), filtered to BALROG's dict."""
    return [name for name in env_action_names if name in MINIHACK_DESCRIPTIONS]


def nethack_action_names(useful_action_names: list[str], compat: bool) -> list[str]:
    """The NetHack text action set: the 86 useful names, letters, digits, and (compat only) ``00``-``99``."""
    names = list(useful_action_names) + list(NETHACK_KEYS)
    if compat:
        names += list(NETHACK_TWO_DIGITS)
    return names


def nethack_prompt_actions(valid: set[str], compat: bool) -> list[tuple[str, str]]:
    """The (name, description) pairs the NetHack prompt lists; fixed mode drops names that are not valid (B9)."""
    if compat:
        return list(NETHACK_PROMPT_ACTIONS)
    return [(n, d) for n, d in NETHACK_PROMPT_ACTIONS if n in valid]
