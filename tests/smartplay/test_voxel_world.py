"""The Minecraft substitute world: interface texts, action semantics, physics, biomes, determinism, explorer."""

import hashlib
import math
import re

import numpy as np
import pytest

from playbench.core.registry import get_task
from playbench.suites.smartplay.params import SmartPlayParams
from playbench.suites.smartplay.voxel import blocks as bk
from playbench.suites.smartplay.voxel import physics
from playbench.suites.smartplay.voxel.biomes import BIOME_NAMES, goal_set
from playbench.suites.smartplay.voxel.climate import columns_grid
from playbench.suites.smartplay.voxel.game import ACTIONS, MinecraftGame, manual_text
from playbench.suites.smartplay.voxel.text import _compass, _compat_direction, facing
from playbench.suites.smartplay.voxel.world import World


def test_manual_matches_the_spec_hash():
    text = manual_text("plains")
    assert len(text) == 355 and hashlib.sha256(text.encode()).hexdigest()[:16] == "c1439aaa45a30524"
    assert "find a ice spikes biome" in manual_text("ice spikes")


def test_goal_sets_and_b1():
    assert goal_set("plains", compat=True) == {1, 12, 129, 140}
    assert goal_set("ocean", compat=False) == {0, 10, 24}
    assert goal_set("desert", compat=False) == {2, 17, 130}
    assert goal_set("ice spikes", compat=True) == frozenset()  # B1: never completable in the original
    assert goal_set("ice spikes", compat=False) == {140}
    assert len(BIOME_NAMES) == 62


def test_tasks_are_registered_as_a_substitute():
    task = get_task("MinedojoCreative0-v0")
    assert task.id == "smartplay/minecraft-plains"
    assert "SUBSTITUTE" in task.description and "not" in task.description
    assert task.episodes(task.params({})) == 20
    game = task.make_game(task.params({}), 0)
    assert game.max_steps == 200 and game.legal_actions() == ACTIONS


@pytest.mark.parametrize("yaw,word", [(0, "south"), (-22.5, "south"), (-23, "south-east"), (-90, "east"),
                                      (90, "west"), (180, "north"), (-180, "north"), (157.5, "north"),
                                      (157, "north-west"), (-135, "north-east"), (45, "south-west")])
def test_facing_words(yaw, word):
    assert facing(yaw) == word


def test_turn_is_quantized_to_15_degree_bins():
    p = physics.Player(0.5, 64, 0.5, yaw=0.0)
    for action, yaw in ((1, -90), (0, -180), (3, 90), (2, 0), (1, -90)):
        physics.turn(p, action)
        assert p.yaw == yaw
    p.yaw = 7.0
    physics.turn(p, 1)
    assert abs(p.yaw - (-90)) < 15 and (p.yaw - 7.0) % 15 == 0


def test_lidar_direction_compat_is_mirrored_and_fixed_is_true():
    # Facing east, the centre ray: the original reports "west" (B10); the true direction is east.
    assert _compat_direction(8, 8, -90.0, 0.0) == "at your level to west"
    assert _compass(1.0, 0.0, 0.0) == "at your level to east"
    assert _compat_direction(16, 8, -90.0, 0.0) == "above you to front"  # vertical spans 180 degrees
    assert _compass(0.0, -0.9, -0.3) == "below you to north"


class FlatWorld(World):
    """Flat grass at height 64, with a wall of ``wall`` extra blocks from x = 10 on."""

    def __init__(self, wall: int) -> None:
        super().__init__(0)
        self.wall = wall

    def column(self, x: int, z: int) -> tuple[int, ...]:
        h = 64 + (self.wall if x >= 10 else 0)
        return (h, bk.GRASS_BLOCK, bk.DIRT, 0, 0, -999, -999, -999, -999, -999, -999, 1)


@pytest.mark.parametrize("wall,jump,passes", [(1, False, False), (1, True, True), (2, True, False)])
def test_steps_need_a_jump_and_two_blocks_stop_the_player(wall, jump, passes):
    world = FlatWorld(wall)
    p = physics.Player(5.5, 65.0, 0.5, yaw=-90.0)  # facing east
    for _ in range(60):
        physics.move_tick(world, p, 0, sprint=not jump, jump=jump)
    assert (p.x > 10) == passes
    if passes:
        assert p.y == 65 + wall
    else:
        assert p.x < 10 and p.y == 65


def test_walking_speed_per_tick():
    world = FlatWorld(0)
    p = physics.Player(0.5, 65.0, 0.5, yaw=0.0)  # facing south (+z)
    physics.move_tick(world, p, 0, sprint=False, jump=True)
    assert p.z - 0.5 == pytest.approx(0.216)
    physics.move_tick(world, p, 1, sprint=True, jump=False)
    assert math.hypot(p.x - 0.5, p.z - 0.716) == pytest.approx(0.281)
    assert p.x > 0.5  # facing south, left is east


LINE_AROUND = re.compile(r"^ - [a-z ]+, \d+\.\d\d blocks away, (above you|below you)?( ?to )?"
                         r"(north|south|east|west|north-east|north-west|south-east|south-west|front)$")
LINE_SEEN = re.compile(r"^ - ([a-z ]+|Entity[A-Za-z]+), \d+\.\d\d blocks away, (above you|below you|at your level) "
                       r"to (north|south|east|west|north-east|north-west|south-east|south-west|front), "
                       r"taking \d+% of screen$")


def check_frame(frame: str, action: str | None) -> None:
    if action:
        assert frame.startswith(f"You took action {action}.\n\n")
        frame = frame.split("\n\n", 1)[1]
    location, rest = frame.split("\n\n", 1)
    assert re.fullmatch(r"Coordinate \(-?\d+\.\d\d,-?\d+\.\d\d,-?\d+\.\d\d\)\. Facing [a-z-]+\.", location)
    cursor, rest = rest.split("\n", 1)
    assert re.fullmatch(r"You're (not aiming at any block|aiming at [a-z ]+)\.", cursor)
    assert rest.startswith("Around you:")
    around, seen = rest.split("\n\n", 1) if "\n\n" in rest else (rest, "")
    for line in around.split("\n")[1:]:
        assert LINE_AROUND.match(line) or LINE_SEEN.match(line), line
    if seen:
        assert seen.startswith("You see:")
        for line in seen.split("\n")[1:]:
            assert LINE_SEEN.match(line), line
    else:
        assert frame.endswith("\n")


def minecraft(biome: str, **params: bool) -> MinecraftGame:
    """The game of ``smartplay/minecraft-BIOME``, built from its facts row."""
    return MinecraftGame(SmartPlayParams(**params), get_task(f"smartplay/minecraft-{biome}").facts)


def run(game: MinecraftGame, seed: int, steps: int, policy: str = "random") -> tuple[list[str], dict]:
    obs, info = game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [obs]
    for _ in range(steps):
        obs, r, term, trunc, info = game.step(game.reference_action(policy, rng))
        frames.append(obs)
        if term or trunc:
            break
    return frames, info


def test_observation_format_entities_and_determinism():
    game = minecraft("desert")
    frames, info = run(game, 4, 25)
    check_frame(frames[0], None)
    for frame in frames[1:]:
        check_frame(frame, re.match(r"You took action ([A-Za-z ]+)\.", frame).group(1))
    again, _ = run(minecraft("desert"), 4, 25)
    assert again == frames
    other, _ = run(minecraft("desert"), 5, 3)
    assert other[0] != frames[0]
    assert info["metrics"]["substitute_world"] is True
    assert game.instance()["world"].startswith("playbench voxel substitute")


def test_passive_mobs_show_up_as_entity_lines():
    seen = False
    for seed in range(8):
        frames, _ = run(minecraft("desert"), seed, 15)
        with_mobs = [f for f in frames if re.search(r"^ - Entity(Cow|Pig|Sheep|Chicken|Squid), ", f, re.M)]
        if with_mobs:
            seen = True
            # Entity lines follow the Around-you list directly, then a blank line, then the blocks.
            frame = with_mobs[0]
            assert re.search(r"Around you:(\n - [a-z ]+, [^\n]+)*\n( - Entity[A-Za-z]+, [^\n]+\n)+\n(You see:|$)", frame)
            break
    assert seen


def test_biome_families_occur_and_patch_sizes():
    found: set[int] = set()
    for seed in (11, 12):
        found |= set(np.unique(columns_grid(seed, -4096, -4096, 512, 512, 16).biome).tolist())
    for family in ("plains", "forest", "ocean", "beach", "taiga", "jungle", "desert", "river", "extreme hills",
                   "swampland", "savanna", "mesa", "mushroomisland", "ice plains spikes"):
        assert any(family in BIOME_NAMES[b].lower() for b in found), family


def test_spawns_are_on_land_mostly_in_spawn_biomes():
    spawns = []
    for seed in range(12):
        world = World(seed)
        x, y, z = world.spawn_point()
        spawns.append(BIOME_NAMES[world.biome(x, z)])
        assert y >= 63 and not world.solid(math.floor(x), int(y), math.floor(z))
    common = {"Plains", "Forest", "Taiga", "Mega Taiga", "Birch Forest", "Flower Forest", "Sunflower Plains"}
    assert sum(s in common for s in spawns) >= 10


def test_completion_ends_the_episode_and_spawn_biome_is_noted():
    game = minecraft("plains")
    for seed in range(20):
        obs, info = game.reset(seed=seed)
        if game.instance()["spawned_in_goal_biome"]:
            obs, reward, term, trunc, info = game.step("Move North")  # B17: completes on the first step
            assert term and info["score"] == 1 and info["completed"] == 1
            assert info["metrics"]["spawned_in_goal_biome"] is True and info["metrics"]["reached_biome"]
            return
    pytest.fail("no spawn in plains found")


def test_ice_spikes_compat_can_never_complete():
    game = minecraft("ice-spikes", compat=True)
    assert game.goals == frozenset()
    frames, info = run(game, 0, 5, "oracle")
    assert info["completed"] == 0


@pytest.mark.slow
def test_explorer_reaches_the_goal_biome():
    wins = 0
    for seed in range(4):
        _, info = run(minecraft("forest"), seed, 200, "oracle")
        wins += info["completed"]
    assert wins >= 3


_TRAJECTORY_HASH = """
import hashlib, sys
import numpy as np
from playbench.suites.smartplay.params import SmartPlayParams
from playbench.suites.smartplay.params import MessengerParams
from playbench.suites.smartplay.messenger.game import MessengerGame
from playbench.suites.smartplay.voxel.game import MinecraftGame
from playbench.core.registry import get_task
h = hashlib.sha256()
for game in (MinecraftGame(SmartPlayParams(), get_task("smartplay/minecraft-jungle").facts),
             MessengerGame(MessengerParams(), get_task("smartplay/messenger-3").facts)):
    obs, info = game.reset(seed=123)
    h.update(obs.encode())
    rng = np.random.default_rng(7)
    for _ in range(12):
        obs, r, term, trunc, info = game.step(game.reference_action("random", rng))
        h.update(obs.encode())
        if term or trunc:
            break
print(h.hexdigest())
"""


def test_same_seed_same_trajectory_across_processes():
    import os
    import subprocess
    import sys

    outs = {
        subprocess.run([sys.executable, "-c", _TRAJECTORY_HASH], check=True, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, timeout=300).stdout.strip()
        for seed in ("1", "2")
    }
    assert len(outs) == 1 and len(outs.pop()) == 64


class TinyWorld(World):
    """Flat grass (top block at y = 64) everywhere, one 3-block trunk at (2, 0) and a cow at (0.5, -5.5)."""

    def region(self, rx: int, rz: int):
        from playbench.suites.smartplay.voxel.worldgen import COLUMN_FIELDS, REGION, make_region

        reg = self.regions.get((rx, rz))
        if reg is None:
            empty = np.full((REGION, REGION), -999, dtype=np.int32)
            cols = {f: empty.copy() for f in COLUMN_FIELDS}
            cols["height"][:] = 64
            cols["top"] = np.full((REGION, REGION), bk.GRASS_BLOCK, dtype=np.uint8)
            cols["fill"] = np.full((REGION, REGION), bk.DIRT, dtype=np.uint8)
            cols["frozen"] = np.zeros((REGION, REGION), dtype=bool)
            cols["feat"] = np.zeros((REGION, REGION), dtype=np.uint8)
            cols["biome"][:] = 1
            mobs = []
            if (rx, rz) == (0, 0):
                cols["feat"][2, 0], cols["feat_lo"][2, 0], cols["feat_hi"][2, 0] = bk.WOOD, 65, 67
            if (rx, rz) == (0, -1):
                mobs.append(["EntityCow", 0.5, 65.0, -5.5])
            reg = self.regions[(rx, rz)] = make_region(rx, rz, cols, mobs)
        return reg


def test_observation_on_a_known_world():
    from playbench.suites.smartplay.voxel.text import observe

    world = TinyWorld(0)
    south = physics.Player(0.5, 65.0, 1.5, yaw=0.0)  # feet block (0, 65, 1); the trunk is at (2, 65..67, 0)
    frame = observe(world, south, compat=False)
    assert frame.startswith("Coordinate (0.50,65.00,1.50). Facing south.\n\nYou're not aiming at any block.\n")
    around = frame.split("Around you:")[1].split("\n\n")[0]
    assert " - grass block, 1.00 blocks away, below you to front" in around
    assert " - wood, 2.45 blocks away, above you to north-east" in around  # centroid (6, 2, 3)
    # Ground fills rows 0-7 (elevations -48..-6 degrees); row 8 and up see the sky.
    seen = frame.split("You see:\n")[1].split("\n")
    grass = [line for line in seen if line.startswith(" - grass block")]
    # Every ray of the bottom row is equally near; the first (column 0, turned 48 degrees right: west) wins.
    assert grass == [f" - grass block, {1.62 / math.sin(math.radians(48)):.2f} blocks away, below you to south-west, "
                     "taking 47% of screen"]
    assert observe(world, south, compat=True).count("below you to front, taking 47% of screen") == 1
    north = physics.Player(0.5, 65.0, 1.5, yaw=180.0)  # facing the cow five blocks to the north
    frame = observe(world, north, compat=False)
    assert re.search(r"^ - EntityCow, [0-9.]+ blocks away, (at your level|below you) to north, taking \d+% of screen$",
                     frame, re.M)
    assert "\n - EntityCow" in frame.split("You see:")[0]


def test_compat_merges_the_first_sorted_name_into_one_component():
    from playbench.suites.smartplay.voxel.text import _components

    grid = ["dirt"] * 289
    for k in range(289):
        if (k % 17) in (8, 9):
            grid[k] = "stone"  # a vertical band splitting the dirt into two parts
    fixed = _components(grid, {"air", "null"}, compat=False)
    compat = _components(grid, {"air", "null"}, compat=True)
    assert sorted(len(c) for n, c in fixed if n == "dirt") == [119, 136]
    assert [len(c) for n, c in compat if n == "dirt"] == [255]
    assert [len(c) for n, c in compat if n == "stone"] == [34]
