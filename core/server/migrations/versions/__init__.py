"""The migrations, oldest first (Alembic revisions)."""
