"""BabyAI ``MixedTrainLocal`` levels built directly for one task kind (``specs/balrog.md`` §6.1, B1d).

The original level draws its task kind in the constructor and BALROG re-creates the env until the
kind matches; here the kind is a constructor argument and every level is drawn from the env's RNG,
which ``reset(seed=...)`` seeds. Grid, verifier and instruction classes are PyPI Minigrid's own.
"""

from typing import Any

from minigrid.core.roomgrid import RoomGrid
from minigrid.envs.babyai.core.roomgrid_level import RejectSampling, RoomGridLevel
from minigrid.envs.babyai.core.verifier import (
    AfterInstr,
    BeforeInstr,
    GoToInstr,
    Instr,
    ObjDesc,
    OpenInstr,
    PickupInstr,
    PutNextInstr,
)

KINDS: tuple[str, ...] = ("goto", "pickup", "open", "putnext", "pick_up_seq_go_to")
#: Missions containing one of these phrases are held out of the training levels and regenerated.
HELD_OUT: tuple[str, ...] = ("yellow box", "red key", "red door", "green ball", "grey door")
#: Colours of the locked door of the ``open`` level (red and grey doors are held out).
DOOR_COLOURS: tuple[str, ...] = ("yellow", "green", "blue", "purple")
_MAX_TRIES = 1000


class MixedTrainLocal(RoomGridLevel):
    """One ``BabyAI-MixedTrainLocal-v0`` task kind: one 8x8 room (two side by side for ``open``)."""

    instrs: Instr  # set by gen_mission()

    def __init__(self, kind: str, room_size: int = 8, num_dists: int = 0, **kwargs: Any) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown BabyAI task kind {kind!r}")
        self.kind = kind
        self.num_dists = num_dists
        num_cols = 2 if kind == "open" else 1
        super().__init__(room_size=room_size, num_rows=1, num_cols=num_cols, **kwargs)

    def _gen_grid(self, width: int, height: int) -> None:
        # Minigrid's loop prints every rejection; this one regenerates silently (same seed -> same level).
        for _ in range(_MAX_TRIES):
            RoomGrid._gen_grid(self, width, height)
            try:
                self.gen_mission()
                self.validate_instrs(self.instrs)
                surface = self.instrs.surface(self)
                if any(phrase in surface for phrase in HELD_OUT):
                    raise RejectSampling("held-out mission")
            except RejectSampling:
                continue
            break
        else:  # pragma: no cover - never observed
            raise RuntimeError(f"could not generate a BabyAI {self.kind} level")
        self.surface = self.instrs.surface(self)
        self.mission = self.surface

    def gen_mission(self) -> None:
        """Place the agent and objects for the kind and build its instruction."""
        if self.kind == "open":
            self._gen_open()
            return
        self.place_agent(0, 0)
        n = self.num_dists + (1 if self.kind in ("goto", "pickup") else 2)
        objs = self.add_distractors(0, 0, num_distractors=n, all_unique=False)
        self.check_objs_reachable()
        if self.kind == "goto":
            obj = self._rand_elem(objs)
            self.instrs = GoToInstr(ObjDesc(obj.type, obj.color))
        elif self.kind == "pickup":
            obj = self._rand_elem(objs)
            self.instrs = PickupInstr(ObjDesc(obj.type, obj.color))
        elif self.kind == "putnext":
            a, b = objs[0], objs[1]
            self.instrs = PutNextInstr(ObjDesc(a.type, a.color), ObjDesc(b.type, b.color))
        else:  # pick_up_seq_go_to
            a, b = objs[0], objs[1]
            if (a.type, a.color) == (b.type, b.color):
                raise RejectSampling("both parts name the same object")
            pick, go = PickupInstr(ObjDesc(a.type, a.color)), GoToInstr(ObjDesc(b.type, b.color))
            self.instrs = BeforeInstr(pick, go) if self._rand_bool() else AfterInstr(go, pick)

    def _gen_open(self) -> None:
        """Two rooms joined by a locked door; its key lies in the agent's room."""
        colour = self._rand_elem(DOOR_COLOURS)
        locked = self._rand_int(0, 2)
        free = 1 - locked
        door, _ = self.add_door(locked, 0, 0 if locked == 0 else 2, colour, locked=True)
        self.add_object(free, 0, "key", colour)
        if self.num_dists:
            self.add_distractors(free, 0, num_distractors=self.num_dists, all_unique=False)
        self.place_agent(free, 0)
        self.check_objs_reachable()
        self.instrs = OpenInstr(ObjDesc("door", door.color if self._rand_bool() else None))
