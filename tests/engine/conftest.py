"""The engine's tests are pure Python: ``make test-fast`` runs them without Django.

The property tests that play many whole games are marked ``slow``; deselect them with
``-m "not slow"``.
"""
