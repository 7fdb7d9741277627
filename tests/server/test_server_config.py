"""`blockyard serve --config FILE` (docs/online.md, "The configuration file"): a key
for every option and variable, flags and variables over the file, a bad file
refused naming the file and the key; a server started from a file that sets
every key."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from server_support import start_server

from blockyard.cli import build_parser
from blockyard.server import SERVE_DEFAULTS, config, settings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "online.md"

EVERY_KEY = """\
host = "127.0.0.1"
workers = 1
worker_healthcheck_seconds = 20
log_level = "info"
log_format = "json"
access_log = false
metrics = false
forwarded_allow_ips = "127.0.0.1"
verifiers = 1
db_connections = 4
presence_seconds = 30
idle_seconds = 200
abandon_seconds = 100
away_seconds = 20
clock_tolerance = 4.5
header_seconds = 8
body_seconds = 30
hello_seconds = 12
pending_invites = 20
lean = false

[limits]
create = 1000
sign_in_address = 1000
submit = 7
"""
"""Every key but ``port`` and ``database``, which the test's server takes as flags."""


def serve_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_every_option_and_server_variable_has_a_key() -> None:
    keys = {key.name: key for key in config.KEYS}
    flags = set(vars(serve_args())) - {"command", "func", "config", "quit_after", "screenshot"}
    assert flags == {key.flag for key in config.KEYS if key.flag} | {"forwarded_allow_ips"}
    assert set(SERVE_DEFAULTS) | {"database"} == {key.flag for key in config.KEYS if key.flag}
    # every variable the settings read, but the two that serve sets from its flags
    variables = {value for name, value in vars(settings).items()
                 if name.endswith("_ENV") and isinstance(value, str)}
    variables |= {settings.IDLE_ENV, settings.ABANDON_ENV, settings.CLOCK_ENV}
    variables -= {settings.DATABASE_ENV, settings.METRICS_ENV}
    assert variables == {key.env for key in config.KEYS if key.env}
    # and the docs' table lists each key
    documented = re.findall(r"^\| `(\w+)` \| [^|]+ \| `", DOCS.read_text(encoding="utf-8"),
                            re.MULTILINE)
    assert set(keys) <= set(documented)


def test_flags_and_variables_win_over_the_file(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text('port = 9000\nhost = "0.0.0.0"\nidle_seconds = 60\nbody_seconds = 9\n'
                    '[limits]\nsubmit = 5\nphrases = 2\n')
    args = serve_args("--port", "9100")
    environ = {settings.BODY_ENV: "12"}
    config.apply(config.read(path), args, environ)
    assert (args.port, args.host) == (9100, "0.0.0.0")
    assert environ == {settings.BODY_ENV: "12", settings.IDLE_ENV: "60",
                       settings.LIMITS_ENV: "submit=5,phrases=2"}
    # what the settings then read
    read = settings.Settings.from_env(environ, database="sqlite:///x")
    assert read.timing.idle_seconds == 60 and read.body_seconds == 12
    assert read.limits["submit"] == 5 and read.limits["phrases"] == 2


@pytest.mark.parametrize("text, said", [
    ('prot = 8765\n', "unknown key 'prot'"),
    ('port = "8765"\n', "port: expected a whole number, found '8765'"),
    ('metrics = "off"\n', "metrics: expected true or false"),
    ('idle_seconds = true\n', "idle_seconds: expected a number"),
    ('[limits]\nsubmits = 3\n', "limits.submits: expected a whole number for one of"),
    ('port = \n', "not a TOML file"),
])
def test_a_bad_file_is_refused_naming_the_key(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "server.toml"
    path.write_text(text)
    with pytest.raises(config.ConfigError) as refused:
        config.read(path)
    assert str(refused.value).startswith(f"{path}: ") and said in str(refused.value)


def test_serve_with_a_bad_file_stops_before_anything_starts(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("workers = 2.5\n")
    database = tmp_path / "never.sqlite3"
    done = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--database",
                           f"sqlite:///{database}"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, config.CONFIG_ENV: str(path)})
    assert done.returncode == 2
    assert done.stderr == f"blockyard serve: {path}: workers: expected a whole number, " \
        "found '2.5'\n"
    assert not database.exists()
    path.write_text('idle_seconds = -1\n')  # the type right, the value out of range
    done = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--config", str(path),
                           "--database", f"sqlite:///{database}"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "BLOCKYARD_SERVER_IDLE_SECONDS" in done.stderr
    assert not database.exists()


def test_a_server_starts_from_a_file_that_sets_every_key(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text(EVERY_KEY)
    assert set(config.read(path)) | {"port", "database"} == {k.name for k in config.KEYS}
    database = tmp_path / "server.sqlite3"
    # (the tests' servers otherwise get a BLOCKYARD_SERVER_LIMITS, which would win)
    server = start_server(f"sqlite:///{database}", tmp_path, "--config", str(path),
                          env={settings.LIMITS_ENV: ""})
    try:
        # metrics = false
        answer = server.client.get("/metrics")
        assert answer.status_code == 404 and "--no-metrics" in answer.json()["error"]
        # limits.submit = 7: the eighth submission in a minute is refused
        _, token = server.account("ann")
        for _ in range(7):
            assert server.client.post("/api/games", json={},
                                      headers={"Authorization": f"Bearer {token}"}
                                      ).status_code == 422
        assert server.client.post("/api/games", json={},
                                  headers={"Authorization": f"Bearer {token}"}
                                  ).status_code == 429
    finally:
        server.stop()
    # log_format = "json", access_log = false: JSON lines, none of them a request's
    lines = [json.loads(line) for line in server.log.read_text().splitlines()
             if line.startswith("{")]
    assert lines and not any("GET /metrics" in line.get("message", "") for line in lines)
