"""Shared test helpers (importable as `tests.helpers` or, with tests/ on sys.path,
`helpers`)."""
