"""playbench: one harness for spatial reasoning, navigation, planning and game benchmarks."""

__version__ = "0.1.0"
