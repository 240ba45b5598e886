"""A suite declared outside playbench (loaded through ``PLAYBENCH_SUITES=outside_suite.tasks``), with its own
summary, pictures and figures: ``tests/report/test_suite_hooks.py`` runs it through the command line."""
