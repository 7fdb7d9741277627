"""Alembic's environment for the Blockyard server: migrations run on the
connection that :func:`blockyard.server.db.migrate` hands over."""

from __future__ import annotations

from alembic import context

from blockyard.server.db import METADATA

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through blockyard.server.db.migrate
    raise RuntimeError("run the Blockyard server's migrations with blockyard serve")
context.configure(connection=connection, target_metadata=METADATA,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
