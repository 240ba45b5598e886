"""Prompt texts, history building, output parsing and action matching for the model agents."""
