"""The ``quickstart`` suite: no tasks of its own, one group over the other suites' tasks."""

from playbench.core.suite import Group, Suite
from playbench.suites.quickstart.facts import DESCRIPTION, GROUP_ID, MEMBERS

SUITE = Suite(name="quickstart", groups=(Group.of(GROUP_ID, DESCRIPTION, list(MEMBERS)),))
