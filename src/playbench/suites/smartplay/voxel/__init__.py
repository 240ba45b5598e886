"""A native voxel world standing in for MineDojo in SmartPlay's Minecraft "find a biome" tasks.

MineDojo (Java, Minecraft 1.11) cannot run offline, so playbench ships this substitute with the
original's text interface: ``blocks`` and ``biomes`` are the rules as data, ``noise`` and ``climate``
make biomes and heights, ``worldgen`` the regions' surfaces, features and mobs, ``world`` caches
regions, ``physics`` moves the player, ``text`` builds the observation (lidar, voxels, cursor), ``game``
is the SmartPlay game and ``explorer`` the reference explorer. Scores are not comparable with the
paper's Minecraft column.
"""
