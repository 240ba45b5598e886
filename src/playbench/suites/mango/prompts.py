"""The question prompts of the release templates (spec §5.3) and the paper's earlier variant."""

from typing import Literal

PromptStyle = Literal["release", "paper"]

#: keys of a trajectory step (before, action, after) each template asks for
KEYS: dict[str, tuple[str, str, str]] = {
    "release": ("location_before", "action", "location_after"),
    "paper": ("prev_node", "action", "node"),
}

SYSTEM_MESSAGE = "You are a helpful assistant."


def py_list(items: list[str]) -> str:
    """A list of strings written the way Python prints it (``str(list)``: repr of each item)."""
    return str(list(items))


def df_question(src: str, actions: list[str], style: PromptStyle = "release") -> str:
    """The destination-finding question."""
    if style == "paper":
        return (
            f"Starting from {src}, perform a list of actions {py_list(actions)}, where are you now?\n"
            "Describe the trajectory in a Python list of Python dictionaries with keys 'prev_node', 'node' and "
            "'action'.\nStart your response with '['."
        )
    return (
        f'!!! Starting from place "{src}", perform a list of action {py_list(actions)}, where are you now? '
        "Describe the trajectory in a python list of python dictionary with keys 'location_before', 'action' "
        "and 'location_after'. Start your response with '['."
    )


def rf_question(src: str, dst: str, style: PromptStyle = "release") -> str:
    """The route-finding question."""
    if style == "paper":
        return (
            f"How can you go from {src} to {dst}?\n"
            "Describe the trajectory in a Python list of Python dictionaries with keys 'prev_node', 'node' and "
            "'action'.\nStart your response with '['."
        )
    return (
        f'!!! Can you find a path from "{src}" to "{dst}", and format the output as a python list of python '
        "dictionary with keys 'location_before', 'action' and 'location_after'? Start your response with '['."
    )


def build_prompt(prefix: str, actions: list[str], locations: list[str], question: str, style: PromptStyle = "release") -> str:
    """The single user message: walkthrough prefix, the action and location lists, then the question."""
    places = "The list of places are" if style == "paper" else "The list of locations are"
    return (
        f"!!! Here is a walkthrough of a text game:\n{prefix}\n\n"
        f"The allowed actions are: {py_list(actions)}.\n"
        f"{places}: {py_list(locations)}.\n"
        f"{question}"
    )


def format_trajectory(steps: list[tuple[str, str, str]], style: PromptStyle = "release") -> str:
    """A trajectory written as the Python literal the templates ask for (used by reference agents)."""
    before, action, after = KEYS[style]
    return str([{before: b, action: a, after: d} for b, a, d in steps])
