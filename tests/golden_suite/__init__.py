"""A toy suite the records' golden test plays (``tests/log/test_records_golden.py``), loaded through
``PLAYBENCH_SUITES=golden_suite.tasks``: no benchmark's game, so changing one never moves the golden records."""
