"""SmartPlay's Crafter (smartplay.md §5.5) on the shared engine of ``suites/crafter``."""
