"""The server's storage: SQLAlchemy 2 tables and Alembic migrations.

The schema is described here once (:data:`METADATA`) and created or upgraded by
the Alembic migrations shipped in ``blockyard.server.migrations`` (run by
``blockyard serve`` on start, :func:`migrate`). Every query is built with
SQLAlchemy's expression language from these tables: no SQL is ever put together
from strings. ``sqlite:///FILE`` (the default, a file in Blockyard's data
folder) and ``postgresql://…`` (through psycopg 3) are supported. An SQLite file
the server creates is readable by its owner only (0600, and so are its ``-wal``
and ``-shm`` files, which SQLite gives the main file's mode), in a folder of mode
0700 when the server creates that too; an existing file keeps its mode.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    import psycopg
    from alembic.config import Config

from .. import paths

METADATA = sa.MetaData()
MIGRATION_LOCK = 0x426C6F636B  # PostgreSQL advisory lock held while migrating
CONNECT_SECONDS = 10
"""How long opening a connection to PostgreSQL may take."""
FILE_MODE = 0o600
"""The mode of an SQLite file the server creates: its owner's only (password and
token hashes)."""
FOLDER_MODE = 0o700
"""The mode of the SQLite file's folder when the server creates it."""

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
    # whether its rounds' results change the seats' ratings (migration 0010)
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    # the pairs of seats ([[a, b], …], JSON) that had played 3 rated rounds together
    # in the 24 hours before the current round was dealt: the round is friendly
    # (NULL: none; migration 0013)
    sa.Column("friendly_pairs", sa.Text, nullable=True),
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
    # whether the round changed its seats' ratings (migration 0013): one pair's rated
    # rounds of the last 24 hours are counted from it
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index("ix_table_results_rated", "rated", "created"),
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
    # who is there (migration 0011): the seat's open live connections (every
    # process), whether its window last said it is in the background, when its
    # player last acted, said they are active or connected, and the round they
    # left (the leave message, or abandoned)
    sa.Column("links", sa.Integer, nullable=False, server_default="0"),
    sa.Column("away", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("active", sa.DateTime(timezone=True), nullable=True),
    sa.Column("left_round", sa.Integer, nullable=True),
    # (migration 0012) how many times the row changed: a process keeping the rows
    # in memory keeps the newest it has heard of (the presence announcements)
    sa.Column("version", sa.BigInteger, nullable=False, server_default="1"),
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


# -- ratings and Play now (migration 0010) --

ratings = sa.Table(
    "ratings", METADATA,
    # a player's rating in one ruleset (blockyard.ratings: OpenSkill's Plackett-Luce)
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("ruleset_id", sa.String(64), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    # the rated rounds behind it (provisional below blockyard.ratings.PROVISIONAL_GAMES)
    sa.Column("games", sa.Integer, nullable=False),
    # mu - 3 sigma: what is shown and what the rated leaderboard sorts by
    sa.Column("value", sa.Float, nullable=False),
    sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_ratings_board", "ruleset_id", "value"),
)

pairing = sa.Table(
    "pairing", METADATA,
    # Play now: a player waiting for an opponent in one ruleset (one entry each),
    # kept with the table they were seated at once paired
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("ruleset_id", sa.String(64), nullable=False),
    # the player's mu when they entered (players of close mu are paired)
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
    # NULL: waiting; else the rated table both players of the pair were seated at
    sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=True),
    sa.Column("paired", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_pairing_waiting", "ruleset_id", "table_id"),
)


# -- quick phrases and friends (migration 0011) --

mutes = sa.Table(
    "mutes", METADATA,
    # account_id does not hear muted_id's quick phrases
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("muted_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
)

follows = sa.Table(
    "follows", METADATA,
    # account_id follows followed_id (told when they are online, or open a table)
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("followed_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_follows_followed", "followed_id"),
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


POOL_SIZE = 40
"""The connections a server process's pool holds at most on PostgreSQL (by
default: as many as the worker threads that run its blocking database work,
anyio's 40; ``BLOCKYARD_SERVER_DB_CONNECTIONS``)."""


def make_engine(url: str, connections: int = POOL_SIZE) -> Engine:
    """A connection pool on the database at ``url``: on PostgreSQL at most
    ``connections`` of them, each kept open once made."""
    target = engine_url(url)
    if target.drivername == "sqlite":
        assert target.database is not None
        create_private_file(Path(target.database))
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
    # a database host that does not answer fails a connection in 10 s instead of
    # holding a thread (and a request) for as long as the system's TCP timeout.
    # No overflow: a connection opened beyond the pool's size for a burst would be
    # closed when given back, and the next burst would open it again (a server
    # process of PostgreSQL forked and set up each time: the round ends of 100
    # tables at once opened 85 of them, most of PostgreSQL's CPU of the run); past
    # the size, a thread waits for a connection instead
    return sa.create_engine(target, pool_size=connections, max_overflow=0,
                            connect_args={"connect_timeout": CONNECT_SECONDS})


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached or went away
    (SQLAlchemy's ``OperationalError`` or a dropped connection, psycopg's
    ``OperationalError``), rather than a fault of the server's."""
    import sqlalchemy.exc

    if isinstance(exc, sqlalchemy.exc.OperationalError):
        return True
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated:
        return True
    try:
        import psycopg
    except ImportError:  # pragma: no cover  (the server extra brings it)
        return False
    return isinstance(exc, psycopg.OperationalError)


class OwnConnection:
    """A PostgreSQL connection of a server process's own, with psycopg's async
    driver in the event loop, autocommitting (each statement its own
    transaction): opened when first needed and again whenever it is found closed
    or broken. The live tables' store and the announcements each hold one
    (:class:`~blockyard.server.actionstore.ActionStore`,
    :class:`~blockyard.server.events.Events`): a statement on it is no hand-off
    to a worker thread and no checkout from the pool."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._connection: psycopg.AsyncConnection[Any] | None = None

    async def get(self) -> psycopg.AsyncConnection[Any]:
        """The connection (opened now if there is none, or it is closed or broken)."""
        import psycopg

        connection = self._connection
        if connection is None or connection.closed or connection.broken:
            self._connection = None
            url = self.engine.url.set(drivername="postgresql")
            connection = await psycopg.AsyncConnection.connect(
                url.render_as_string(hide_password=False), autocommit=True,
                connect_timeout=CONNECT_SECONDS)
            self._connection = connection
        return connection

    async def execute_again(self, query: str, params: Sequence[Any]
                            ) -> psycopg.AsyncCursor[Any]:
        """Execute a statement that may be sent twice (a read, an announcement):
        when the connection kept from before has died since (the database
        restarted, which nothing tells it until it is used), once more on a new
        one, instead of failing the first call after every restart."""
        import psycopg

        kept = self._connection is not None and not self._connection.closed \
            and not self._connection.broken
        connection = await self.get()
        try:
            return await connection.execute(query, params)
        except psycopg.OperationalError:
            if not kept:
                raise
            await self.close()
            return await (await self.get()).execute(query, params)

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):  # closing one already gone
                await connection.close()


def reading(engine: Engine) -> Connection:
    """A connection for one read of one statement, with no transaction around it
    (autocommit: on PostgreSQL no ``BEGIN`` and ``ROLLBACK``, two round trips, for
    a statement that sees one moment of the database anyway). Use it as
    ``with db.reading(engine) as conn:``; a read of several statements that must
    agree takes ``engine.connect()``."""
    return engine.connect().execution_options(isolation_level="AUTOCOMMIT")


_ALEMBIC_VERSION = sa.table("alembic_version", sa.column("version_num", sa.String))
"""Alembic's own table: the revision a database is at."""


def current_revision(connection: Connection) -> str | None:
    """The revision the database of ``connection`` is at (``None``: never migrated)."""
    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    found = connection.execute(sa.select(_ALEMBIC_VERSION.c.version_num)).scalar()
    return found if isinstance(found, str) else None


def shown_url(url: str) -> str:
    """``url`` to show in a log or a message: its password hidden."""
    return engine_url(url).render_as_string(hide_password=True)


def create_private_file(path: Path) -> None:
    """Create the empty SQLite file ``path`` with mode 0600 (its folder with mode
    0700 when missing) unless it exists: SQLite then opens it as a new database
    and gives its ``-wal`` and ``-shm`` files the same mode. An existing file, or
    folder, is left as it is (its mode is the operator's choice)."""
    # (the folders above it, when missing too, get the usual mode)
    path.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        return
    # the umask may only take bits away; a umask of 0077 or 0022 leaves 0600 as it is
    os.chmod(path, FILE_MODE)


@dataclass(frozen=True)
class Migrated:
    """What :func:`migrate` did: the database's revision before (None: an empty
    database, no Blockyard tables yet) and after (the newest this Blockyard knows)."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        """Whether any migration ran."""
        return self.before != self.after

    def text(self) -> str:
        """One line for the operator: ``migrated from 0007 to 0008``, ``migrated
        from none (an empty database) to 0008`` or ``already at 0008, the newest
        revision``."""
        if not self.changed:
            return f"already at {self.after}, the newest revision"
        before = "none (an empty database)" if self.before is None else self.before
        return f"migrated from {before} to {self.after}"


def _alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    return config


@functools.cache
def head_revision() -> str:
    """The newest revision of the shipped migrations (what :func:`migrate` brings
    a database to, and the one this build needs)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None, "the shipped migrations have no head"
    return head


def pending_revisions(before: str | None) -> list[tuple[str, str]]:
    """The migrations that bring a database at ``before`` (None: empty) to the
    newest revision, oldest first: each revision and the first sentence of its
    description (at most 120 characters). ``ValueError`` when ``before`` is no
    revision this Blockyard ships (a newer Blockyard's database, say)."""
    from alembic.script import ScriptDirectory
    from alembic.script.revision import RevisionError

    scripts = ScriptDirectory.from_config(_alembic_config())
    head = head_revision()
    try:
        steps = list(scripts.iterate_revisions(head, before or "base"))
    except RevisionError:
        raise ValueError(f"the database is at revision {before!r}, which this Blockyard "
                         f"does not know (its newest is {head}): was it migrated by a "
                         "newer Blockyard?") from None
    return [(step.revision, _first_sentence(step.doc or "")) for step in reversed(steps)]


def _first_sentence(doc: str) -> str:
    """A migration's description in one line: its first sentence, shortened."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    end = paragraph.find(". ")
    sentence = paragraph if end < 0 else paragraph[:end + 1]
    return sentence if len(sentence) <= 120 else sentence[:119].rstrip() + "…"


def migrate(url: str) -> Migrated:
    """Bring the database at ``url`` to the newest schema with Alembic (creating it
    when empty); the revisions before and after. ``ValueError`` when the database
    is at a revision this Blockyard does not know (checked before anything runs)."""
    from alembic import command

    config = _alembic_config()
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # several hosts starting at once: one migrates, the others wait for it
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            before = current_revision(connection)
            pending_revisions(before)  # a revision from a newer Blockyard: ValueError
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            after = current_revision(connection)
    finally:
        engine.dispose()
    assert after is not None
    return Migrated(before, after)
