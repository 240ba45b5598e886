"""BALROG's instruction prompts for MiniHack and NetHack (exact benchmark text, §6.5-§6.6)."""

from playbench.suites.balrog.nle.actions import MINIHACK_DESCRIPTIONS

_MINIHACK_GOALS: tuple[tuple[str, str], ...] = (
    ("corridor", "Your goal is to explore the level and reach the stairs down"),
    (
        "quest",
        "Your goal is to explore the level, fight monsters, and navigate rooms and mazes to ultimately "
        "reach the stairs down.",
    ),
    (
        "boxoban",
        "You are playing Boxoban, a box-pushing game inspired by Sokoban. Your goal is to push the boulders "
        "onto the fountains on the map. You can push the boulders by walking into them, as long as there are "
        "no obstacles behind them.",
    ),
)
_DEFAULT_GOAL = "Your goal is to get as far as possible in the game."

_NETHACK_TIPS = """Tips:
- When the message asks for a completion, such as: "What do you want to eat? [d or ?*]", you should respond \
with a single character corresponding to the item you want to eat/use.
    - For example, "What do you want to eat? [dgh or ?*]" -> Possible answers are "d", "g", or "h" to eat the \
associated food.
- When the message asks for a direction, such as: "In what direction?" you should respond with a direction.
- When the message has --More-- at the end, your next action should be "more" to see the rest of the message.
- Explore the environment to find the stairs down to the next level.
- Always carefully read the last message to understand the current state of the game and decide your next \
action accordingly.
- If you keep moving in the same direction, you will eventually hit a wall and stop moving. Your message might \
be: "It's solid stone", or "It's a wall". Change your action to move in another direction to continue exploring \
the environment.
- Read the language observation carefully and look at ascii map or image observation provided to decide the \
next action to take and where to move next.
- You can attack monsters by moving into them."""


def _action_list(pairs: list[tuple[str, str]]) -> str:
    return ",\n".join(f"{name}: {desc}" for name, desc in pairs) + "."


def minihack_goal(env_id: str) -> str:
    """The goal sentence BALROG picks by a lower-cased substring test on the MiniHack env id."""
    low = env_id.lower()
    for key, goal in _MINIHACK_GOALS:
        if key in low:
            return goal
    return _DEFAULT_GOAL


def minihack_prompt(env_id: str, actions: list[str]) -> str:
    """The MiniHack instruction prompt for a task with these text actions."""
    pairs = [(a, MINIHACK_DESCRIPTIONS[a]) for a in actions]
    return (
        "You are an agent playing MiniHack. The following are the possible actions you can take in the game, "
        "followed by a short description of each action:\n\n"
        f"{_action_list(pairs)}\n\n"
        "In a moment I will present a history of actions and observations from the game.\n\n"
        "Tip: there is no point in outputting the same action over and over if nothing changes.\n\n"
        f"{minihack_goal(env_id)}\n\nPLAY!"
    )


def nethack_prompt(pairs: list[tuple[str, str]]) -> str:
    """The NetHack instruction prompt listing these (name, description) pairs."""
    return (
        "You are an agent playing NetHack. The following are the possible actions you can take in the game, "
        "followed by a short description of each action:\n\n"
        f"{_action_list(pairs)}\n\n"
        f"{_NETHACK_TIPS}\n\n"
        "In a moment I will present a history of actions and observations from the game.\n"
        "Your goal is to get as far as possible in the game.\n\nPLAY!"
    )
