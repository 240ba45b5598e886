"""The benchmark suites.

Each sub-package owns its games, prompts, metrics and data adapters, and registers its tasks from its
``tasks`` module.
"""
