"""Benchmarks: scripts that print figures (``python bench/NAME.py``), and what they share."""
