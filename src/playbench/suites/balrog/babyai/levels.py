"""BabyAI ``MixedTrainLocal`` levels, one task kind each (``specs/balrog.md`` §6.1, B1d).

The original level (BabyAI-Text, in the Minigrid fork BALROG pins) draws its task kind in the
constructor and BALROG re-creates the env until the kind matches; here the kind is a constructor
argument (B1d). Everything else follows the original draw for draw, so a seed gives the original's
level: same grid, objects, agent position and direction, and mission (tested against recorded
facts, ``tests/data/balrog/babyai_instances.json``). The draws, in order, for one level:

1. Minigrid's room grid (``RoomGrid._gen_grid``: for ``open``, the door position between the rooms);
2. the task kind from the one-kind list (the original's ``_rand_elem(action_kinds)``);
3. until every object is reachable and the mission avoids the held-out phrases: the rooms are
   emptied (``open`` draws the door position again), then the kind's own draws (below);
4. Minigrid's instruction check (``validate_instrs``); a rejection starts again at 1.

Grid, verifier and instruction classes are PyPI Minigrid's own.
"""

from collections.abc import Callable, Sequence
from typing import Any

from minigrid.core.roomgrid import RoomGrid
from minigrid.core.world_object import WorldObj
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

from playbench.suites.balrog.facts import BABYAI_LEVELS

#: Missions containing one of these phrases are held out of the training levels and regenerated.
HELD_OUT: tuple[str, ...] = ("yellow box", "red key", "red door", "green ball", "grey door")
#: Colours of the locked door of the ``open`` level (red and grey doors are held out).
DOOR_COLOURS: tuple[str, ...] = ("yellow", "green", "blue", "purple")
#: The original's name of each kind in its ``action_kinds`` list.
_ORIGINAL_NAME = {"goto": "goto", "pickup": "pickup", "open": "open", "putnext": "putnext",
                  "pick_up_seq_go_to": "pick up seq go to"}
_MAX_TRIES = 1000
#: The observation and action spaces of every level of an agent view size: minigrid makes a pair for each env
#: (1.5 KB, held by each live episode) and reads neither; they are never sampled or seeded here.
_SPACES: dict[int, tuple[Any, Any]] = {}


class MixedTrainLocal(RoomGridLevel):
    """One ``BabyAI-MixedTrainLocal-v0`` task kind: one 8x8 room (two side by side for ``open``)."""

    instrs: Instr  # set by gen_mission()

    def __init__(self, kind: str, room_size: int = 8, num_dists: int = 0, **kwargs: Any) -> None:
        if kind not in BABYAI_LEVELS:
            raise ValueError(f"unknown BabyAI task kind {kind!r}")
        self.kind = kind
        self.num_dists = num_dists
        self.locked_room: Any = None
        num_cols = 2 if kind == "open" else 1
        super().__init__(room_size=room_size, num_rows=1, num_cols=num_cols, **kwargs)
        spaces = _SPACES.setdefault(self.agent_view_size, (self.observation_space, self.action_space))
        self.observation_space, self.action_space = spaces

    def _gen_grid(self, width: int, height: int) -> None:
        # Minigrid's loop prints every rejection; this one regenerates silently (same seed -> same level).
        for _ in range(_MAX_TRIES):
            RoomGrid._gen_grid(self, width, height)
            try:
                self.gen_mission()
                self.validate_instrs(self.instrs)
            except (RejectSampling, RecursionError):
                continue
            break
        else:  # pragma: no cover - never observed
            raise RuntimeError(f"could not generate a BabyAI {self.kind} level")
        self.surface = self.instrs.surface(self)
        self.mission = self.surface

    def gen_mission(self) -> None:
        """Place the agent and objects for the kind and build its instruction, as the original does."""
        self._rand_elem([_ORIGINAL_NAME[self.kind]])  # the original's draw of its (one) task kind
        attempt: Callable[[], bool] = {
            "goto": self._try_goto, "pickup": self._try_pickup, "open": self._try_open,
            "putnext": self._try_putnext, "pick_up_seq_go_to": self._try_sequence,
        }[self.kind]
        while True:
            self._empty_rooms()
            reachable = attempt()
            if reachable and not self._held_out():
                return

    # -- one attempt per kind: returns whether every object is reachable ----------------------------

    def _place_objects(self, count: int) -> tuple[list[WorldObj], bool]:
        """The agent first, then ``count`` random objects anywhere in the room."""
        self.place_agent()
        objs = self.add_distractors(num_distractors=count, all_unique=False)
        return objs, bool(self.check_objs_reachable(raise_exc=False))

    def _try_goto(self) -> bool:
        objs, reachable = self._place_objects(self.num_dists + 1)
        obj = self._rand_elem(objs)
        self.instrs = GoToInstr(ObjDesc(obj.type, obj.color))
        return reachable

    def _try_pickup(self) -> bool:
        objs, reachable = self._place_objects(self.num_dists + 1)
        obj = self._pick_movable(objs)
        self.instrs = PickupInstr(ObjDesc(obj.type, obj.color))
        return reachable

    def _try_putnext(self) -> bool:
        objs, reachable = self._place_objects(self.num_dists + 2)
        move = self._pick_movable(objs)
        fixed = self._pick_second(objs, move)
        self.instrs = PutNextInstr(ObjDesc(move.type, move.color), ObjDesc(fixed.type, fixed.color))
        return reachable

    def _try_sequence(self) -> bool:
        objs, reachable = self._place_objects(self.num_dists + 2)
        first = self._pick_movable(objs)
        pick = PickupInstr(ObjDesc(first.type, first.color))
        second = self._pick_second(objs, first)
        go = GoToInstr(ObjDesc(second.type, second.color))
        if self._rand_elem(["Before", "After"]) == "Before":
            self.instrs = BeforeInstr(pick, go)
        else:
            self.instrs = AfterInstr(go, pick)
        return reachable

    def _try_open(self) -> bool:
        """Two rooms joined by a locked door; its key lies in the other room, with the agent."""
        colour = self._rand_elem(DOOR_COLOURS)
        self._add_locked_room(colour)
        self.connect_all()
        for i in range(self.num_cols):
            if self.get_room(i, 0) is not self.locked_room:
                self.add_distractors(i, 0, num_distractors=self.num_dists, all_unique=False)
        while True:
            self.place_agent()
            if self.room_from_pos(*self.agent_pos) is not self.locked_room:
                break
        reachable = bool(self.check_objs_reachable(raise_exc=False))
        self.instrs = OpenInstr(ObjDesc("door", self._rand_elem([None, colour])))
        return reachable

    # -- helpers ------------------------------------------------------------------------------------

    def _pick_movable(self, objs: Sequence[WorldObj]) -> WorldObj:
        """A random object that is not a door."""
        obj = self._rand_elem(objs)
        while obj.type == "door":
            obj = self._rand_elem(objs)
        return obj

    def _pick_second(self, objs: Sequence[WorldObj], first: WorldObj) -> WorldObj:
        """A random object; redrawn while it has ``first``'s description if ``first`` is the only such object.

        When two objects share a description, both parts of the mission may name it (the original allows it:
        ``go to a yellow key after you pick up a yellow key``).
        """
        second = self._rand_elem(objs)
        if (second.type, second.color) == (first.type, first.color):
            matching, _ = ObjDesc(first.type, first.color).find_matching_objs(self)
            if len(matching) < 2:
                while (second.type, second.color) == (first.type, first.color):
                    second = self._rand_elem(objs)
        return second

    def _add_locked_room(self, colour: str) -> None:
        """A locked door of ``colour`` on a random inner wall, and its key in another room."""
        while True:
            i, j = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows)
            door_idx = self._rand_int(0, 4)
            self.locked_room = self.get_room(i, j)
            if self.locked_room.neighbors[door_idx] is not None:
                break
        self.add_door(i, j, door_idx, color=colour, locked=True)
        while True:
            i, j = self._rand_int(0, self.num_cols), self._rand_int(0, self.num_rows)
            if self.get_room(i, j) is not self.locked_room:
                self.add_object(i, j, "key", colour)
                return

    def _empty_rooms(self) -> None:
        """Empty the grid back to the rooms' walls and draw the door positions again (the original's regen)."""
        self.grid.grid = [None] * (self.width * self.height)
        for row in self.room_grid:
            for room in row:
                room.doors = [None] * 4
                room.door_pos = [None] * 4
                room.neighbors = [None] * 4
                room.locked = False
                room.objs = []
                self.grid.wall_rect(*room.top, *room.size)
        for j, row in enumerate(self.room_grid):
            for i, room in enumerate(row):
                left, top = room.top[0] + 1, room.top[1] + 1
                right, bottom = room.top[0] + room.size[0] - 1, room.top[1] + room.size[1] - 1
                if i < self.num_cols - 1:
                    room.neighbors[0] = row[i + 1]
                    room.door_pos[0] = (right, self._rand_int(top, bottom))
                if j < self.num_rows - 1:
                    room.neighbors[1] = self.room_grid[j + 1][i]
                    room.door_pos[1] = (self._rand_int(left, right), bottom)
                if i > 0:
                    room.neighbors[2] = row[i - 1]
                    room.door_pos[2] = row[i - 1].door_pos[0]
                if j > 0:
                    room.neighbors[3] = self.room_grid[j - 1][i]
                    room.door_pos[3] = self.room_grid[j - 1][i].door_pos[1]
        centre = self.room_size // 2
        self.agent_pos = ((self.num_cols // 2) * (self.room_size - 1) + centre,
                          (self.num_rows // 2) * (self.room_size - 1) + centre)
        self.agent_dir = 0

    def _held_out(self) -> bool:
        surface = self.instrs.surface(self)
        return any(phrase in surface for phrase in HELD_OUT)
