"""Block vocabulary (lower-cased Minecraft 1.11 localized names) and their physical classes."""

BLOCK_NAMES: tuple[str, ...] = (
    "air", "stone", "grass block", "dirt", "gravel", "sand", "sandstone", "clay", "water", "ice",
    "packed ice", "snow", "wood", "leaves", "grass", "plant", "flower", "cactus", "dead bush", "vines",
    "lily pad", "mycelium", "mushroom", "hardened clay", "coal ore", "iron ore",
)
B = {name: i for i, name in enumerate(BLOCK_NAMES)}
AIR, STONE, GRASS_BLOCK, DIRT, GRAVEL, SAND, SANDSTONE, CLAY, WATER, ICE = range(10)
PACKED_ICE, SNOW, WOOD, LEAVES, TALL_GRASS, PLANT, FLOWER, CACTUS, DEAD_BUSH, VINES = range(10, 20)
LILY_PAD, MYCELIUM, MUSHROOM, HARDENED_CLAY, COAL_ORE, IRON_ORE = range(20, 26)

#: Blocks the player cannot walk through (plants, snow layers, vines and water are passable).
SOLID: frozenset[int] = frozenset({
    STONE, GRASS_BLOCK, DIRT, GRAVEL, SAND, SANDSTONE, CLAY, ICE, PACKED_ICE, WOOD, LEAVES, CACTUS,
    MYCELIUM, HARDENED_CLAY, COAL_ORE, IRON_ORE,
})
SOLID_TABLE: tuple[bool, ...] = tuple(i in SOLID for i in range(len(BLOCK_NAMES)))
