"""Messenger (SmartPlay L1-L3) on playbench's own engine: no py-vgdl, no pygame.

``data`` holds the rules as data (entities, test triples, movement variants, manual texts), ``manual``
draws the per-episode manual, ``engine`` the dynamics (stage one without an engine, stages two and three
on half-cells), ``text`` the observation, ``game`` the SmartPlay game and ``oracle`` the scripted planner.
"""
