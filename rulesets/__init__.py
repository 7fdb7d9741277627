"""Bundled rule files (data only; read with ``importlib.resources``)."""
