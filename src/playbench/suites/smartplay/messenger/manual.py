"""Per-episode Messenger manuals: sentence pools (templated or official) and the per-level draws (§5.4.2)."""

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from playbench.core.errors import PlaybenchError
from playbench.suites.smartplay.base import action_list_text
from playbench.suites.smartplay.messenger.data import (
    ACTIONS,
    ADVICE,
    CONTEXT,
    ENTITY_NAMES,
    IMMOVABLE,
    MOVE_PHRASES,
    ROLE_PHRASES,
    SYNONYMS,
    TYPED_TEMPLATES,
    TYPES,
    UNKNOWN_TEMPLATES,
)

UNKNOWN = "unknown"
_ROLES = ("enemy", "message", "goal")


def _pick(rng: np.random.Generator, items: list[str]) -> str:
    return items[int(rng.integers(len(items)))]


class SentenceSource:
    """Where sentences come from: ``draw(rng, entity, role, types)`` picks one uniformly from the union."""

    name = "templated"
    sha256: str | None = None

    def has(self, entity: str, role: str, mtype: str) -> bool:
        """Whether the pool (entity, role, type) is non-empty."""
        return True

    def draw(self, rng: np.random.Generator, entity: str, role: str, types: tuple[str, ...]) -> str:
        """One sentence describing ``entity`` in ``role`` with a movement type among ``types``."""
        mtype = types[int(rng.integers(len(types)))]
        # The crowd-sourced text sometimes uses the plain name; so do we (one time in four).
        name = entity if rng.random() < 0.25 else _pick(rng, SYNONYMS[entity])
        role_text = _pick(rng, ROLE_PHRASES[role])
        a_name = ("an " if name[0] in "aeiou" else "a ") + name
        if mtype == UNKNOWN:
            text = _pick(rng, UNKNOWN_TEMPLATES).format(name=name, a_name=a_name, role=role_text)
        else:
            move = _pick(rng, MOVE_PHRASES[mtype])
            text = _pick(rng, TYPED_TEMPLATES).format(name=name, a_name=a_name, role=role_text, move=move)
        return text[0].upper() + text[1:]


class OfficialSource(SentenceSource):
    """messenger-emma's ``text_test.json`` (entity -> role -> type -> sentences), supplied by the user."""

    name = "official"

    def __init__(self, path: str) -> None:
        try:
            raw = Path(path).read_bytes()
            data = json.loads(raw)
        except (OSError, ValueError) as exc:
            raise PlaybenchError(f"cannot read Messenger text file {path!r}: {exc}") from None
        self.sha256 = hashlib.sha256(raw).hexdigest()
        if not isinstance(data, dict) or not set(ENTITY_NAMES.values()) <= set(data):
            raise PlaybenchError(f"{path}: not a messenger-emma text file (needs the 12 entity names as keys)")
        for entity, roles in data.items():
            if not isinstance(roles, dict) or not all(
                isinstance(types, dict) and all(isinstance(v, list) and all(isinstance(s, str) for s in v)
                                                for v in types.values())
                for types in roles.values()
            ):
                raise PlaybenchError(f"{path}: entry {entity!r} is not role -> type -> list of sentences")
        self.data: dict[str, dict[str, dict[str, list[str]]]] = data

    def _pool(self, entity: str, role: str, types: tuple[str, ...]) -> list[str]:
        roles = self.data.get(entity, {}).get(role, {})
        return [s for t in types for s in roles.get(t, [])]

    def has(self, entity: str, role: str, mtype: str) -> bool:
        """Whether the pool is non-empty."""
        return bool(self._pool(entity, role, (mtype,)))

    def draw(self, rng: np.random.Generator, entity: str, role: str, types: tuple[str, ...]) -> str:
        """A uniform draw from the union of the named pools."""
        pool = self._pool(entity, role, types)
        if not pool:
            raise PlaybenchError(f"Messenger text has no sentence for {entity} as {role} ({'/'.join(types)})")
        return pool[int(rng.integers(len(pool)))]


def make_source(path: str | None) -> SentenceSource:
    """The templated source (default) or the official file at ``path``."""
    return OfficialSource(path) if path else SentenceSource()


def draw_sentences(
    rng: np.random.Generator, source: SentenceSource, level: int, triple: tuple[str, str, str], variant: tuple[str, ...]
) -> list[str]:
    """The shuffled manual sentences for one episode of ``level``."""
    enemy, message, goal = triple
    if level == 1:
        lines = [source.draw(rng, ent, role, (IMMOVABLE, UNKNOWN)) for ent, role in zip(triple, _ROLES, strict=True)]
    elif level == 2:
        lines = []
        for ent, role, mtype in zip(triple, _ROLES, variant, strict=True):
            use = UNKNOWN if rng.random() < 0.15 else mtype
            lines.append(source.draw(rng, ent, role, (use,)))
    else:
        e_t, m_t, g_t, dm_t, dg_t = variant
        lines = [
            source.draw(rng, enemy, "enemy", (e_t,)),
            source.draw(rng, message, "message", (m_t,)),
            source.draw(rng, goal, "goal", (g_t,)),
            source.draw(rng, message, "enemy", (dm_t,)),
            source.draw(rng, goal, "enemy", (dg_t,)),
        ]
        # The red herring: the enemy entity described in a role it does not have, with another type.
        roles = ["message", "goal"]
        if rng.random() < 0.5:
            roles.reverse()
        other_types = tuple(t for t in TYPES if t != e_t)
        herring_type = other_types[int(rng.integers(2))]
        role = roles[0] if source.has(enemy, roles[0], herring_type) else roles[1]
        lines.append(source.draw(rng, enemy, role, (herring_type,)))
    order = rng.permutation(len(lines))
    return [lines[i] for i in order]


def assemble(sentences: list[str]) -> str:
    """``{context}⏎⏎{sentences}⏎⏎{advice}⏎⏎{action list}``."""
    return f"{CONTEXT}\n\n" + "\n".join(sentences) + f"\n\n{ADVICE}\n\n" + action_list_text(ACTIONS)


#: Where the official sentences come from (documented in docs/suites/smartplay.md).
OFFICIAL_FILE = ("messenger-emma's messenger/envs/texts/text_test.json (also in microsoft/SmartPlay at "
                 "src/messenger/envs/texts/text_test.json)")
TEMPLATED_NOTE = "templated: not comparable with the paper"


def source_note(name: str | None, hint: bool = False) -> str:
    """The words shown beside a Messenger task for its manual source (``templated`` or ``official``).

    ``hint`` adds how to get the official text (the line printed when a run starts).
    """
    if name == "official":
        return "manual: official text_test.json"
    if name == "templated":
        return f"manual: {TEMPLATED_NOTE}" + (" (official text: -T messenger_text=PATH)" if hint else "")
    return f"manual: {name or 'unknown'}"


def describe_source(source: SentenceSource) -> dict[str, Any]:
    """What goes into the record about the manual's source."""
    return {"manual_source": source.name, **({"manual_sha256": source.sha256} if source.sha256 else {})}
