"""Baba Is AI (BALROG §6.4), native.

Rules as data, a small engine, the 40 level generators, BALROG's text view, images for VLM mode
and an exact-state search oracle.
"""
