"""BALROG's Crafter (balrog.md §6.2) on the shared engine of ``suites/crafter``."""
