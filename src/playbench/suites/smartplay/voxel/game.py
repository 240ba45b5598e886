"""SmartPlay's Minecraft "find a biome" tasks on the substitute voxel world (§5.6)."""

from typing import TYPE_CHECKING, Any

import numpy as np

from playbench.core.seeding import derive_seed
from playbench.suites.smartplay.base import SmartPlayGame, action_list_text
from playbench.suites.smartplay.facts import SmartPlayTask
from playbench.suites.smartplay.params import SmartPlayParams
from playbench.suites.smartplay.voxel import physics
from playbench.suites.smartplay.voxel.biomes import BIOME_NAMES, FIND_TASKS, goal_set
from playbench.suites.smartplay.voxel.text import observe
from playbench.suites.smartplay.voxel.world import World

if TYPE_CHECKING:
    from playbench.suites.smartplay.voxel.explorer import Explorer

ACTIONS = ["Move North", "Move East", "Move South", "Move West"]
MOVE_TICKS = 50


def manual_text(goal_word: str) -> str:
    """The task manual (the goal word is inserted verbatim: "a ice spikes biome")."""
    return (
        f"You are in Minecraft and your goal is to find a {goal_word} biome. You are not allowed to craft anything."
        "\n\nIn your observation, you are provided the amount of space an object takes in your field of view. "
        "Note that objects of the same size takes more space when they are closer to you.\n\n"
        + action_list_text(ACTIONS)
    )


class MinecraftGame(SmartPlayGame):
    """Find a biome in the substitute world: score = completed = 1 once standing in a goal biome.

    compat keeps the original's empty goal set for "ice spikes" (B1) and its mirrored lidar directions
    (B10); fixed uses {Ice Plains Spikes} and true geometry. The spawn biome is never checked (B17); the
    record notes when the player spawned in a goal biome.
    """

    actions = ACTIONS
    reference_policies = ("random", "oracle")

    def __init__(self, params: SmartPlayParams, row: SmartPlayTask) -> None:
        super().__init__(params, row)
        self.task_name = biome = str(row.variant)
        self.creative, self.goal_word = FIND_TASKS[biome]
        self.goals = goal_set(self.goal_word, self.compat)
        self.manual = manual_text(self.goal_word)
        self.world: World | None = None
        self.player: physics.Player | None = None
        self.reached: int | None = None
        self.spawn_biome = -1
        self.spawn = (0.0, 0.0, 0.0)
        self._explorer: Explorer | None = None

    def _reset(self) -> str:
        self.world = World(derive_seed("minecraft-world", int(self.rng.integers(2**63))))
        x, y, z = self.world.spawn_point()
        self.player = physics.Player(x, y, z, yaw=0.0, pitch=0.0)
        self.spawn_biome = self.world.biome(x, z)
        self.spawn = (x, y, z)
        self.reached = None
        self._explorer = None
        return observe(self.world, self.player, self.compat)

    def _step(self, index: int) -> tuple[str, float, bool, dict[str, Any]]:
        assert self.world is not None and self.player is not None
        p, rng = self.player, self.rng
        physics.turn(p, index)
        done = False
        for _ in range(MOVE_TICKS):
            u = rng.random(2)
            strafe = 0 if u[0] < 0.5 else (1 if u[0] < 0.75 else -1)
            sprint = bool(u[1] < 0.5)
            physics.move_tick(self.world, p, strafe, sprint, not sprint)
            biome = self.world.biome(p.x, p.z)
            if biome in self.goals:
                self.reached = biome
                done = True
                break
        self.world.step_mobs(p.x, p.z, rng)
        if done:
            self.score, self.completed = 1.0, 1
        obs = f"You took action {ACTIONS[index]}.\n\n" + observe(self.world, p, self.compat)
        return obs, float(done), done, {"biome": BIOME_NAMES.get(self.world.biome(p.x, p.z), "?")}

    def _metrics(self) -> dict[str, Any]:
        if self.player is None or self.world is None:
            return {}
        return {
            "spawned_in_goal_biome": self.spawn_biome in self.goals,
            "spawn_biome": BIOME_NAMES.get(self.spawn_biome),
            "reached_biome": None if self.reached is None else BIOME_NAMES.get(self.reached),
            "substitute_world": True,
        }

    @property
    def progress(self) -> float:
        """1 once a goal biome is reached."""
        return float(self.completed)

    def instance(self) -> dict[str, Any]:
        """World seed, task, goal set and spawn of this episode."""
        if self.world is None:
            return {}
        return {
            "world": "playbench voxel substitute (not MineDojo)",
            "world_seed": self.world.seed,
            "task": f"creative:{self.creative}",
            "goal_word": self.goal_word,
            "goal_biomes": sorted(self.goals),
            "spawn": list(self.spawn),
            "spawn_biome": BIOME_NAMES.get(self.spawn_biome),
            "spawned_in_goal_biome": self.spawn_biome in self.goals,
        }

    def reference_action(self, policy: str, rng: np.random.Generator) -> str:
        """``oracle``: an explorer heading for the nearest goal biome it can find in the world's map."""
        if policy == "oracle":
            from playbench.suites.smartplay.voxel.explorer import Explorer

            assert self.world is not None and self.player is not None
            if self._explorer is None:
                self._explorer = Explorer(self.world, self.goals)
            return ACTIONS[self._explorer.act(self.player, rng)]
        return super().reference_action(policy, rng)
