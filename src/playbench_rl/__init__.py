"""The name verifiers resolves for playbench's environment: ``vf-eval playbench-rl`` (needs ``playbench[verifiers]``).

verifiers (v1) finds a taskset by importing a top-level module of its id and taking the classes its
``__all__`` exports; the environment itself lives in :mod:`playbench.rl.verifiers`.
"""

from playbench.rl.verifiers import PlaybenchEnv, PlaybenchHarness, PlaybenchTaskset, load_environment

__all__ = ["PlaybenchEnv", "PlaybenchHarness", "PlaybenchTaskset", "load_environment"]
