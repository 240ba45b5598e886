"""The ``quickstart`` group: a small sample of every suite, the README's default run."""
