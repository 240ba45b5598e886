"""The optional engines tasks run on, with the command that installs each (checked before a run exists).

Modules are the ones the games import; for NetHack the language wrapper is listed because only BALROG's
NLE build (``balrog-nle``) has it. MiniHack has its own line: see ``docs/suites/balrog.md`` (Installing).
"""

from playbench.core.task import Engine

CRAFTER = Engine("the Crafter engine", ("crafter",), "pip install 'playbench[crafter]'")
BABYAI = Engine("Minigrid (BabyAI)", ("minigrid",), "pip install 'playbench[babyai]'")
TEXTWORLD = Engine("TextWorld", ("textworld",), "pip install 'playbench[textworld]'")
#: MiniHack 0.1.6 pins plain ``nle``, which cannot be built here: it goes in without its dependencies,
#: after BALROG's NLE build (the ``nethack`` extra). The engine module imports it for NetHack too.
NETHACK_INSTALL = "pip install 'playbench[nethack]' && pip install --no-deps minihack==0.1.6"
NETHACK = Engine("NetHack/MiniHack (balrog-nle, gym 0.23, minihack)",
                 ("gym", "nle.language_wrapper.wrappers.nle_language_wrapper", "minihack"), NETHACK_INSTALL)
