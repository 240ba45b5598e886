"""Reports: pure functions from run records to tables, statistics, plots and the HTML viewer.

Import the modules themselves (``playbench.report.build`` …): this package imports nothing, so that the
command line's start-up does not pay for statistics and plotting it may not use.
"""
