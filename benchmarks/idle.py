"""Idle benchmark: the CPU an untouched game window uses, per second.

Starts the real window in a child process (the launcher, then a game of
eu-classic; sound effects on, as by default), lets it settle, then reads the child's
CPU time (user + system, from /proc) over a few seconds of no input. Prints the
share of one core per second of wall time for each screen. Starts a virtual
screen (Xvfb) when there is no DISPLAY. Linux only (/proc).

Online screens (unless ``--offline``): a ``blockyard serve`` on loopback (an
SQLite file in a temporary folder) is started, the window signed in on it, and
measured in the launcher (listening on the player's own connection, with a
notice of an invitation shown), in the lobby and in a live duel of eu-classic
waiting for the opponent's move (the opponent, a second account, holds the other seat and does
nothing; the window reopens on the table at its start, as after a window closed
mid-duel). Every wait is bounded; the server is stopped at the end.

Run:  python benchmarks/idle.py [--seconds 5] [--language ne] [--offline]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

TARGET_SHARE = 0.05  # of one core
TICKS = os.sysconf("SC_CLK_TCK")

SCREENS = {
    "launcher": "run()",
    "game (eu-classic)": "run(ruleset='eu-classic', seed=1)",
}


SEEN = ("import blockyard; from blockyard.frontend.persistence import Settings; "
        "s = Settings(); s.help_seen = [i.id for i in blockyard.list_rulesets()]; s.save()")


ONLINE_SCREENS = {
    # signed in: the launcher holds the player's own connection and shows a notice
    # (an invitation waiting for the player)
    "launcher, notice": "from blockyard.frontend.app import run; run()",
    "lobby": "from blockyard.frontend import app; "
             "app.BlockyardApp.show_start = lambda self: self.show('lobby'); app.run()",
    # the table is remembered: the window reopens on it (the duel, the opponent idle)
    "duel, waiting": "from blockyard.frontend.app import run; run()",
}
SERVER_START_SECONDS = 60.0

SIGN_IN = (
    "import os; from blockyard.frontend.online.account import OnlineAccount; "
    "OnlineAccount(os.environ['IDLE_SERVER'], os.environ['IDLE_NAME'], "
    "os.environ['IDLE_TOKEN']).save(); "
    "table = os.environ.get('IDLE_TABLE'); "
    "from blockyard import paths; from pathlib import Path; import tomli_w; "
    "table and (paths.config_dir() / 'online-table.toml').write_text(tomli_w.dumps("
    "{'server': os.environ['IDLE_SERVER'], 'name': os.environ['IDLE_NAME'], "
    "'table': table}))")


@contextmanager
def local_server() -> Iterator[str]:
    """A ``blockyard serve`` on a free loopback port (its address, ``host:port``)."""
    import httpx

    folder = tempfile.mkdtemp(prefix="blockyard-idle-server-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "BLOCKYARD_HOME": folder}
    with open(os.path.join(folder, "server.log"), "wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "blockyard", "serve", "--port", str(port), "--database",
             f"sqlite:///{folder}/server.sqlite3"], env=env, stdout=log,
            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the server stopped (exit code {server.returncode}); "
                                   f"see {folder}/server.log")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).is_success:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start in {SERVER_START_SECONDS:g} s")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def online_player(address: str, table: bool, invited: bool = False) -> dict[str, str]:
    """A new account signed in on the server (the window's), and with ``table`` a
    table of eu-classic it plays at against a second account, with ``invited`` an
    invitation of a second account's to a table waiting for it: the child's
    environment."""
    import uuid

    from blockyard.online import Client

    client = Client(address)
    name = client.create_account(f"idle{uuid.uuid4().hex[:8]}", "correct horse")
    token = client.sign_in(name, "correct horse")
    env = {"IDLE_SERVER": address, "IDLE_NAME": name, "IDLE_TOKEN": token}
    if table:
        created = client.create_table("eu-classic")
        opponent = Client(address)
        other = opponent.create_account(f"idle{uuid.uuid4().hex[:8]}", "correct horse")
        opponent.sign_in(other, "correct horse")
        opponent.join(created.id)
        env["IDLE_TABLE"] = str(created.id)
    if invited:
        inviter = Client(address)
        other = inviter.create_account(f"idle{uuid.uuid4().hex[:8]}", "correct horse")
        inviter.sign_in(other, "correct horse")
        inviter.create_table("eu-classic", private=True, invite=[name])
    return env


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def measure(call: str, settle: float, seconds: float, language: str = "en",
            online: dict[str, str] | None = None) -> float:
    home = tempfile.mkdtemp(prefix="blockyard-idle-")
    # a fresh home has no saved language: the window follows LANGUAGE; sound on (the
    # default) and the how-to-play pages already seen, so the game screen itself is
    # measured, not the page shown the first time
    env = {**os.environ, "BLOCKYARD_HOME": home, "LANGUAGE": language, **(online or {})}
    subprocess.run([sys.executable, "-c", SEEN], env=env, check=True)
    if online:
        subprocess.run([sys.executable, "-c", SIGN_IN], env=env, check=True)
    code = call if online else f"from blockyard.frontend.app import run; {call}"
    child = subprocess.Popen([sys.executable, "-c", code], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(settle)
        if child.poll() is not None:
            raise RuntimeError(f"the window closed early (exit code {child.returncode})")
        start_cpu, start = cpu_seconds(child.pid), time.monotonic()
        time.sleep(seconds)
        used = cpu_seconds(child.pid) - start_cpu
        return used / (time.monotonic() - start)
    finally:
        child.terminate()
        child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--settle", type=float, default=4.0)
    parser.add_argument("--language", default="en",
                        help="the window's language (en, de, es, ne; ne draws shaped text)")
    parser.add_argument("--offline", action="store_true",
                        help="leave out the online screens (no local server)")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()
    for name, call in SCREENS.items():
        report(name, measure(call, args.settle, args.seconds, args.language))
    if args.offline:
        return
    with local_server() as address:
        for name, call in ONLINE_SCREENS.items():
            player = online_player(address, table=name.startswith("duel"),
                                   invited=name.startswith("launcher"))
            report(name, measure(call, args.settle, args.seconds, args.language, player))


def report(name: str, share: float) -> None:
    verdict = "OK" if share < TARGET_SHARE else "BUSY"
    print(f"{name:20s} {share * 100:5.1f} % of a core while idle "
          f"(target < {TARGET_SHARE * 100:.0f} %) -> {verdict}")


if __name__ == "__main__":
    main()
