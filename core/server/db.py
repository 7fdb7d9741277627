"""The server's storage: SQLAlchemy 2 tables and Alembic migrations.

The schema is described here once (:data:`METADATA`) and created or upgraded by
the Alembic migrations shipped in ``blockyard.server.migrations`` (run by
``blockyard serve`` on start, :func:`migrate`). Every query is built with
SQLAlchemy's expression language from these tables: no SQL is ever put together
from strings. ``sqlite:///FILE`` (the default, a file in Blockyard's data
folder) and ``postgresql://…`` (through psycopg 3) are supported.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .. import paths

METADATA = sa.MetaData()
MIGRATION_LOCK = 0x426C6F636B  # PostgreSQL advisory lock held while migrating

accounts = sa.Table(
    "accounts", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(24), nullable=False),
    # the name in lower case: names are unique whatever their case
    sa.Column("name_key", sa.String(24), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    # the last authenticated call or live connection (players online; migration 0005)
    sa.Column("last_seen", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_accounts_last_seen", "last_seen"),
)

sessions = sa.Table(
    "sessions", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    # SHA-256 of the token: a stolen database gives no usable token
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked", sa.Boolean, nullable=False, default=False),
)

games = sa.Table(
    "games", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("ruleset_id", sa.String(64), nullable=False),
    sa.Column("ruleset_digest", sa.String(64), nullable=False),
    sa.Column("daily", sa.Boolean, nullable=False),
    # the game's date (YYYY-MM-DD; the day of a daily game), or NULL
    sa.Column("date", sa.String(10), nullable=True),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("score", sa.BigInteger, nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("counted", sa.Boolean, nullable=False),
    # SHA-256 of the stored log (games from migration 0007 on: the identity)
    sa.Column("log_digest", sa.String(64), nullable=False, unique=True),
    # the game's identity (blockyard.gamecheck.game_identity): one game is stored
    # once, whoever sends it and however it is spelt; NULL for a copy stored
    # before migration 0007 found it (its first record holds the identity)
    sa.Column("identity", sa.String(64), nullable=True, unique=True),
    sa.Column("replay", sa.Text, nullable=False),
    sa.Column("submitted", sa.DateTime(timezone=True), nullable=False),
    # the version of the server build that verified and stored the game
    # (blockyard.__version__; migration 0009 gave the games stored before it the
    # one their stored replay names, NULL where it names none)
    sa.Column("server_version", sa.String(64), nullable=True),
    sa.Index("ix_games_board", "ruleset_id", "date", "counted"),
    # a player's first finished game of a daily date is the one counted game
    sa.Index("uq_games_daily_first", "account_id", "ruleset_id", "date", unique=True,
             sqlite_where=sa.text("daily AND counted"),
             postgresql_where=sa.text("daily AND counted")),
)


tables = sa.Table(
    "tables", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("code", sa.String(16), nullable=False),
    sa.Column("ruleset_id", sa.String(64), nullable=False),
    sa.Column("seats", sa.Integer, nullable=False),
    sa.Column("private", sa.Boolean, nullable=False),
    # waiting (for players), playing, finished
    sa.Column("status", sa.String(16), nullable=False),
    # the deal of the current round (a rematch starts the next round)
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("date", sa.String(10), nullable=True),
    # when the current round started (the falling games' clock check)
    sa.Column("started", sa.DateTime(timezone=True), nullable=True),
    # the seat whose rematch dealt the current round (NULL: the first round); 0006
    sa.Column("rematch_by", sa.Integer, nullable=True),
    sa.Column("creator_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
)

table_invites = sa.Table(
    "table_invites", METADATA,
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    # who invited, when, and the answer (NULL: pending, "accepted", "declined");
    # migration 0005
    sa.Column("inviter_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=True),
    sa.Column("answer", sa.String(8), nullable=True),
    sa.Index("ix_table_invites_account", "account_id", "answer"),
    sa.Index("ix_table_invites_inviter", "inviter_id", "created"),
)

table_seats = sa.Table(
    "table_seats", METADATA,
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.UniqueConstraint("table_id", "account_id", name="uq_table_seats_player"),
)

table_actions = sa.Table(
    "table_actions", METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    # the action's place among its seat's stored actions of the round (1: the first)
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("score", sa.BigInteger, nullable=False),
    sa.Column("over", sa.Boolean, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("table_id", "round", "seat", "n", name="uq_table_actions_step"),
)

table_results = sa.Table(
    "table_results", METADATA,
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    # JSON: {"seats": [names], "scores": [...], "winner": seat or null}
    sa.Column("result", sa.Text, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
)

# -- shared by every server process: rate-limit counts and who is at a table (0003) --

rate_counts = sa.Table(
    "rate_counts", METADATA,
    # the limit (sign_in_address, sign_in_name, create, submit)
    sa.Column("name", sa.String(32), primary_key=True),
    # SHA-256 of the key (an address, a name, an account): nothing readable kept
    sa.Column("key", sa.String(64), primary_key=True),
    # the slice of time counted: seconds since 1970 // the slice's length
    sa.Column("slice", sa.BigInteger, primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
)

seat_presence = sa.Table(
    "seat_presence", METADATA,
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    # the last moment the seat's player was connected to the table (any process)
    sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
)

# the sweep for abandoned seats reads only the waiting and playing tables
ix_tables_status = sa.Index("ix_tables_status", tables.c.status)


table_result_seats = sa.Table(
    "table_result_seats", METADATA,
    # who sat where in a finished round: a player's table results (their account page)
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    sa.Index("ix_table_result_seats_account", "account_id"),
)


def default_url() -> str:
    """The default database: ``server.sqlite3`` in Blockyard's data folder."""
    return f"sqlite:///{paths.data_dir() / 'server.sqlite3'}"


def engine_url(url: str) -> sa.URL:
    """``url`` for SQLAlchemy: ``postgresql://`` is driven by psycopg 3.
    ``ValueError`` for any other kind of database."""
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise ValueError(f"--database: not a database URL: {url!r:.80}") from None
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise ValueError("--database: an SQLite database needs a file "
                             "(sqlite:///PATH)")
        return parsed
    raise ValueError(f"--database: expected sqlite:///FILE or postgresql://…, found "
                     f"{parsed.drivername!r}")


def is_sqlite(url: str) -> bool:
    """Whether ``url`` names an SQLite file (one server process only)."""
    return engine_url(url).drivername == "sqlite"


def make_engine(url: str) -> Engine:
    """A connection pool on the database at ``url``."""
    target = engine_url(url)
    if target.drivername == "sqlite":
        assert target.database is not None
        Path(target.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(target, connect_args={"timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(conn: object, record: object) -> None:
            cursor = conn.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            # with WAL: durable across crashes of the process, one fsync per checkpoint
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    # no ping before every use of a pooled connection (a round trip each time):
    # after the database restarts, the first use of a broken connection fails
    # (answered as the database away) and SQLAlchemy then replaces every
    # connection of the pool opened before it
    return sa.create_engine(target, pool_size=10, max_overflow=20)


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest schema with Alembic (creating it
    when empty)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # several hosts starting at once: one migrates, the others wait for it
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()
