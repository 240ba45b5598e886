"""BALROG's MiniHack and NetHack environments on BALROG's own NLE build (``balrog-nle``).

The engine (``balrog-nle``, ``minihack`` 0.1.6, legacy ``gym``) is an optional extra, imported only by
``engine.py`` and only when a game starts; Boxoban levels are generated offline (``boxoban/``).
"""
