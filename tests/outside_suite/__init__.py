"""A suite declared outside playbench (loaded through ``PLAYBENCH_SUITES=outside_suite.tasks``), with its own
summary, pictures and figures (``tests/report/test_suite_hooks.py`` runs them through the command line) and
its own folder format and command (``tests/cli/test_suite_formats_commands.py``)."""
