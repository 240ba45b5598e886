"""Crafter, shared by SmartPlay and BALROG: one reproducible engine wrapper, two descriptor variants.

* ``engine``: :class:`CrafterEngine` over PyPI ``crafter`` 1.8.3 (stable creature order, text-only mode
  with the night-noise draw burnt, faster identical world generation; ``fastgen``).
* ``describe``: SmartPlay's frame (compat/fixed) and BALROG's long-/short-term texts.
* ``prompts``: SmartPlay's manual and BALROG's instruction prompt; ``scores``: native Crafter score.
* ``games``: what the two games share; ``oracle``: the scripted reference policy. The games, their
  parameters and their registration live with their suites (``suites/smartplay/crafter``,
  ``suites/balrog/crafter``): this engine depends on no suite that uses it.
"""
