"""Messenger's rules as data: entities, the 32 test triples, movement variants, manual texts (§5.4)."""

from itertools import permutations

#: Entity id -> name (ids 2..13; the avatar is 15 without and 16 with the message).
ENTITY_NAMES: dict[int, str] = {
    2: "airplane", 3: "mage", 4: "dog", 5: "bird", 6: "fish", 7: "scientist",
    8: "thief", 9: "ship", 10: "ball", 11: "robot", 12: "queen", 13: "sword",
}
ENTITY_IDS: dict[str, int] = {name: eid for eid, name in ENTITY_NAMES.items()}

#: SmartPlay's action strings, in index order, and their (d_row, d_col) effect.
ACTIONS: list[str] = ["Move North", "Move South", "Move West", "Move East", "Do Nothing"]
MOVES: list[tuple[int, int]] = [(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)]

GRID = 10

# The test split of games.json: for these enemies ...
_PAIRS_A = [("robot", "ship"), ("robot", "fish"), ("queen", "thief"), ("queen", "ball"),
            ("dog", "ship"), ("dog", "fish"), ("sword", "thief"), ("sword", "ball")]
# ... and for these (the val split swaps the two pair sets).
_PAIRS_B = [("robot", "thief"), ("robot", "ball"), ("queen", "ship"), ("queen", "fish"),
            ("dog", "thief"), ("dog", "ball"), ("sword", "ship"), ("sword", "fish")]

#: The 32 (enemy, message, goal) test triples.
TEST_TRIPLES: list[tuple[str, str, str]] = [
    (enemy, message, goal)
    for enemy in ("airplane", "scientist", "bird", "mage")
    for message, goal in (_PAIRS_A if enemy in ("airplane", "scientist") else _PAIRS_B)
]

CHASER, FLEEING, IMMOVABLE = "chaser", "fleeing", "immovable"
TYPES = (CHASER, FLEEING, IMMOVABLE)
_T = {"C": CHASER, "F": FLEEING, "I": IMMOVABLE}

#: L2 "new dynamics": all 27 (enemy, message, goal) type triples; index 9i+3j+k is file dom_{index}.
L2_VARIANTS: list[tuple[str, ...]] = [(a, b, c) for a in TYPES for b in TYPES for c in TYPES]

_L3 = {
    "CFI": ["CF", "IF", "IC"], "CIF": ["CI", "FC", "FI"], "FCI": ["FC", "IC", "IF"],
    "FIC": ["CF", "CI", "FI"], "ICF": ["FI", "FC", "IC"], "IFC": ["CF", "CI", "IF"],
}
#: L3's 18 variants: (enemy, message, goal, decoy-message, decoy-goal) types.
L3_VARIANTS: list[tuple[str, ...]] = [
    (_T[emg[0]], _T[emg[1]], _T[emg[2]], _T[d[0]], _T[d[1]]) for emg, decoys in _L3.items() for d in decoys
]

#: Roles of the sprites, in NPC move order.
ROLES = ("enemy", "message", "goal", "decoy_message", "decoy_goal")

#: Start spots (row, col).
L1_SPOTS = [(3, 5), (5, 3), (5, 7), (7, 5)]
L2_SPOTS = [(2, 2), (2, 7), (7, 2), (7, 7)]
L3_SPOTS = [(1, 2), (1, 8), (4, 5), (6, 1), (6, 9), (9, 5)]
LAYOUT_CHARS = {"avatar": "X", "enemy": "E", "message": "M", "goal": "G", "decoy_message": "N", "decoy_goal": "H"}

CONTEXT = (
    "In the game, MESSENGER, each entity can take on one of three roles: an enemy, message, or goal. "
    "The agent\u2019s objective is to bring the message to the goal while avoiding the enemies. "
    "If the agent encounters an enemy at any point in the game, or the goal without first obtaining the "
    "message, it loses the game and obtains a reward of \u22121."
)
ADVICE = (
    "To solve a game, you may find it helpful to list the objects that you see. Then for each object, match it "
    "with an entity description, and identify whether it is good or bad to interact with the object.\n"
    "The name specifications of in-game objects may not be exact matches. Please try identifying with synonyms."
)

# -- the templated manual's vocabulary (§5.4.2 a) ------------------------------------------------------------
SYNONYMS: dict[str, list[str]] = {
    "airplane": ["plane", "jet", "aircraft"], "mage": ["wizard", "sorcerer", "magician"],
    "dog": ["hound", "canine", "pup"], "bird": ["hawk", "eagle", "sparrow"],
    "fish": ["whale", "shark", "trout"], "scientist": ["researcher", "scholar", "professor"],
    "thief": ["bandit", "robber", "burglar"], "ship": ["boat", "ferry", "vessel"],
    "ball": ["sphere", "orb", "globe"], "robot": ["bot", "android", "automaton"],
    "queen": ["empress", "monarch", "princess"], "sword": ["blade", "saber", "cutlass"],
}
ROLE_PHRASES: dict[str, list[str]] = {
    "enemy": ["deadly opponent", "lethal adversary", "dangerous foe"],
    "message": ["secret report", "classified document", "restricted message"],
    "goal": ["vital target", "crucial objective", "essential goal"],
}
MOVE_PHRASES: dict[str, list[str]] = {
    CHASER: ["is coming toward you", "is chasing you"],
    FLEEING: ["is running away from you", "keeps fleeing"],
    IMMOVABLE: ["does not move", "is stationary"],
}
TYPED_TEMPLATES = [
    "the {name} that {move} is the {role}.",
    "the {role} is the {name} that {move}.",
    "the {name} {move}; it is the {role}.",
    "there is {a_name} that {move}, and it is the {role}.",
]
UNKNOWN_TEMPLATES = [
    "the {name} is the {role}.",
    "the {role} is {a_name}.",
    "you will find the {role} with the {name}.",
]


def all_layout_permutations(n: int) -> list[tuple[int, ...]]:
    """All orderings of ``n`` start spots (the original ships them as 4! / 6! level files)."""
    return list(permutations(range(n)))
