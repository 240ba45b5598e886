"""BALROG's text view of a Baba Is AI level and its instruction prompt (spec §6.4)."""

from __future__ import annotations

from playbench.suites.balrog.babaisai.engine import ISB, NOUN, OBJ, PROP, World

#: BALROG's Baba Is AI instruction prompt (1132 characters, fingerprint 6b95a390ab4b2fe2).
INSTRUCTION_PROMPT = """Baba Is You is a puzzle game where you can manipulate the rules of each level. The following are the possible actions you can take in the game, followed by a short description of each action:

idle: wait for one step,
up: take one step up,
right: take one step to the right,
down: take one step down,
left: take one step to the left.

Tips:
- Examine the level carefully, noting all objects and text blocks present.
- Identify the current rules, which are formed by text blocks in the format "[Subject] IS [Property]" (e.g. "BABA IS YOU").
- Consider how you can change or create new rules by moving text blocks around.
- Remember that you can only move objects or text that are not defined as "STOP" or similar immovable properties.
- Your goal is usually to reach an object defined as "WIN", but this can be changed.
- Think creatively about how changing rules can alter the properties and behaviors of objects in unexpected ways.
- If stuck, try breaking apart existing rules or forming completely new ones.
- Sometimes the solution involves making yourself a different object or changing what counts as the win condition.

PLAY!"""

#: The line the corrected (B15-fixed) view shows when no object is YOU.
NO_YOU_LINE = "No object is YOU."

#: Prefix of the compat observation when the level was reset because nothing was YOU (bug B15).
BROKEN_YOU_PREFIX = "[...] IS YOU rule was broken, environment reset"
#: The memory address written in place of those of the repr in ``broken_you_text`` (a process's own).
ADDRESS = "0x7f0000000000"

_LISTED = ("ball", "wall", "door", "key")


def rules_text(world: World) -> str:
    """The ``Active rules`` lines: every ``N is P`` rule in reading order."""
    return "\n".join(world.rules.lines())


def you_position(world: World) -> tuple[int, int] | None:
    """BALROG's reference point: the first cell (row-major) whose top object has the last YOU rule's noun."""
    noun = world.rules.you_noun()
    if noun is None:
        return None
    found = world.find_top(noun)
    return found[0] if found else None


def _steps(v: int, corrected: bool) -> str:
    # BALROG compares the signed offset, so left and up distances are always singular (bug B14).
    return "steps" if (abs(v) if corrected else v) > 1 else "step"


def object_lines(world: World, origin: tuple[int, int], corrected: bool = False) -> list[str]:
    """One line per listed top object (flexible ball/wall/door/key and rule blocks), row-major."""
    lines = []
    for y in range(world.height):
        for x in range(world.width):
            o = world.top(x, y)
            if o is None:
                continue
            if o[0] == OBJ and o[1] in _LISTED:
                name = o[1]
            elif o[0] in (NOUN, ISB, PROP):
                name = f"rule `{o[1]}`"
            else:
                continue
            dx, dy = x - origin[0], y - origin[1]
            horiz = ""
            if dx > 0:
                horiz = f"{dx} {_steps(dx, corrected)} to the right"
            elif dx < 0:
                horiz = f"{-dx} {_steps(dx, corrected)} to the left"
            vert = ""
            if dy > 0:
                vert = f"{dy} {_steps(dy, corrected)} down"
            elif dy < 0:
                vert = f"{-dy} {_steps(dy, corrected)} up"
            if horiz and vert:
                lines.append(f"{name} {horiz} and {vert}")
            elif horiz or vert:
                lines.append(f"{name} {horiz or vert}")
            else:
                lines.append("")  # the YOU object itself, when it is a listed kind (as BALROG)
    return lines


def observation_text(world: World, add_ruleset: bool = True, corrected: bool = False) -> str | None:
    """The long-term observation text, or None when no object is YOU (the caller decides what then)."""
    origin = you_position(world)
    if origin is None:
        return None
    out = f"Active rules:\n{rules_text(world)}\n\n" if add_ruleset else ""
    return out + "Objects on the map:\n" + "\n".join(object_lines(world, origin, corrected))


def no_you_text(world: World, add_ruleset: bool = True) -> str:
    """The fixed (B15) observation when nothing is YOU: rules, then objects relative to the top-left corner."""
    out = f"Active rules:\n{rules_text(world)}\n\n" if add_ruleset else ""
    lines = object_lines(world, (0, 0), corrected=True)
    return out + f"{NO_YOU_LINE}\nObjects on the map (from the top-left corner):\n" + "\n".join(lines)


def broken_you_text(old_rules: str, new_obs_text: str, image_size: tuple[int, int]) -> str:
    """The compat (B15) text after a mid-episode reset: old rules, then the repr of the reset observation.

    BALROG prints a ``defaultdict`` repr holding memory addresses; they are written as a fixed
    placeholder (``ADDRESS``) so the text is deterministic.
    """
    inner = {"long_term_context": new_obs_text, "short_term_context": ""}
    addr = ADDRESS
    rep = (
        f"defaultdict(<function BabaIsAIWrapper.textworld_process_obsv.<locals>.<lambda> at {addr}>, "
        f"{{'text': {inner!r}, 'image': <PIL.Image.Image image mode=RGB size={image_size[0]}x{image_size[1]} "
        f"at {addr}>}})"
    )
    return f"{BROKEN_YOU_PREFIX}Active rules:\n{old_rules}\n\nObjects on the map:\n{rep}"
