"""playbench: one harness for spatial reasoning, navigation, planning and game benchmarks."""

from playbench.gymenvs import register_envs as _register_envs

__version__ = "0.1.0"

_register_envs()  # gymnasium.make("playbench/…") works once playbench is imported
