"""Alembic migrations of the Blockyard server's database."""
