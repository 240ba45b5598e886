"""The consoles commands print through, the command line's and the suites' own commands' alike.

On a terminal a table is as wide as the terminal; piped or in a CI log it is 160 columns unless ``COLUMNS``
says otherwise, so a table read by a script is not folded at 80.
"""

import os

from rich.console import Console

console = Console()
if not console.is_terminal and "COLUMNS" not in os.environ:  # pipes and CI logs: wide unless COLUMNS says
    console = Console(width=160)
err_console = Console(stderr=True)
