"""The ``playbench`` command line: one module per command, thin over the library."""
