"""``blockyard serve`` behind a real nginx (Debian's package; scripts/setup.sh
installs it when missing): the binary started by the test with a configuration of
its own in a temporary folder, its ``location`` block read from docs/online.md.

A proxy "elsewhere" on one machine: nginx listens on 127.0.0.1 and connects to
the server from 127.0.0.2 (``proxy_bind``), an address the server does not
believe by default; each player connects to nginx from an address of their own
(127.0.0.3 and up; all of 127.0.0.0/8 is the loopback network on Linux). The rate
limits then see each player's own address only with ``--forwarded-allow-ips``
naming the proxy, and never believe an ``X-Forwarded-For`` from anyone else."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import Server, free_port, start_server
from websockets.sync.client import ClientConnection, connect

from blockyard import protocol
from blockyard.server.settings import (
    DEFAULT_FORWARDED_ALLOW_IPS,
    FORWARDED_ENV,
    forwarded_allow_ips,
)

WAIT = 30.0  # seconds: a bound on an answer or a start that must come, never a measured time
ROOT = Path(__file__).resolve().parents[2]
PROXY = "127.0.0.2"  # the address nginx connects to the server from
LIMITS = {"BLOCKYARD_SERVER_LIMITS": "create=2"}  # two new accounts per address a minute


def nginx_binary() -> str:
    """nginx from the PATH or Debian's /usr/sbin (outside a user's PATH); a clear
    failure when missing: the test command installs what its tests need."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx",
                                                                        os.X_OK) else None)
    if found is None:
        pytest.fail("nginx is missing: run `source scripts/setup.sh test` (it installs "
                    "Debian's nginx package)")
    return found


def documented_location() -> str:
    """The nginx ``location /api/`` block of docs/online.md's "A reverse proxy for
    TLS", as the page shows it."""
    page = (ROOT / "docs" / "online.md").read_text(encoding="utf-8")
    section = page[page.index("### A reverse proxy for TLS"):]
    found = re.search(r"^( +)location /api/ \{\n.*?^\1\}\n", section, re.M | re.S)
    assert found, "docs/online.md shows no nginx `location /api/ {` block"
    return found.group(0)


DOCUMENTED_LOG = "/var/log/nginx/blockyard.log"
"""Where the documented block writes its access log (the test's own folder instead)."""


def documented_log_format() -> str:
    """The ``log_format`` line of docs/online.md's "A reverse proxy for TLS"."""
    page = (ROOT / "docs" / "online.md").read_text(encoding="utf-8")
    section = page[page.index("### A reverse proxy for TLS"):]
    found = re.search(r"^ +(log_format blockyard .*;)\n", section, re.M)
    assert found, "docs/online.md shows no nginx `log_format blockyard` line"
    return found.group(1)


def location_for(upstream_port: int) -> str:
    """The documented block (its lines as the page indents them within it) proxying
    to a server on ``upstream_port``, connecting to it from :data:`PROXY`."""
    block = textwrap.dedent(documented_location())
    documented = "    proxy_pass http://127.0.0.1:8765;\n"
    assert documented in block, f"the documented block no longer says {documented.strip()}"
    return block.replace(documented, f"    proxy_pass http://127.0.0.1:{upstream_port};\n"
                                     f"    proxy_bind {PROXY};\n")


CONFIG = """{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log {folder}/access.log;
    {log_format}
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    server {{
        listen 127.0.0.1:{port};
{location}
    }}
}}
"""


@dataclass
class Nginx:
    """A running nginx in front of a server."""

    url: str
    process: subprocess.Popen[bytes]
    folder: Path

    def log(self) -> str:
        """What nginx said on its error log and standard error."""
        return "\n".join(path.read_text(errors="replace")[-2000:]
                         for path in (self.folder / "error.log", self.folder / "stderr.log")
                         if path.exists())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # nginx's fast shutdown
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=WAIT)


def start_nginx(folder: Path, upstream_port: int) -> Nginx:
    """nginx (in the foreground, its files in ``folder``) on a free port of 127.0.0.1
    forwarding ``/api/`` to the server on ``upstream_port``, once its own health
    check through nginx answers."""
    binary = nginx_binary()
    folder.mkdir(parents=True, exist_ok=True)
    # as root nginx's workers would switch to "nobody", who cannot reach this folder
    user = "user root;\n" if os.geteuid() == 0 else ""
    location = "".join(f"        {line}\n" for line in
                       location_for(upstream_port).strip().splitlines())
    assert DOCUMENTED_LOG in location, f"the documented block no longer logs to {DOCUMENTED_LOG}"
    location = location.replace(DOCUMENTED_LOG, str(folder / "access.log"))
    for _attempt in range(5):  # a port the OS gave out may be taken again meanwhile
        port = free_port()
        config = folder / "nginx.conf"
        config.write_text(CONFIG.format(user=user, folder=folder, port=port,
                                        log_format=documented_log_format(),
                                        location=location.rstrip("\n")))
        with open(folder / "stderr.log", "wb") as err:
            process = subprocess.Popen(
                [binary, "-p", str(folder), "-e", str(folder / "error.log"), "-c",
                 str(config), "-g", "daemon off;"], stdout=err, stderr=subprocess.STDOUT)
        nginx = Nginx(f"http://127.0.0.1:{port}", process, folder)
        deadline = time.monotonic() + WAIT
        while True:
            if process.poll() is not None:
                said = nginx.log()
                if "address already in use" in said.lower():
                    break
                raise AssertionError(f"nginx stopped: {said}")
            try:
                if httpx.get(f"{nginx.url}/api/health", timeout=2).status_code == 200:
                    return nginx
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                nginx.stop()
                raise AssertionError(f"nginx did not answer through to the server: "
                                     f"{nginx.log()}")
            time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    raise AssertionError("no free port for nginx after 5 attempts")


@dataclass
class Proxied:
    """A server and the nginx in front of it."""

    server: Server
    nginx: Nginx


def proxied(tmp_path_factory: pytest.TempPathFactory, *extra: str) -> Iterator[Proxied]:
    """A server on an SQLite file (``create=2``, started with ``extra``) behind nginx,
    both stopped afterwards."""
    home = tmp_path_factory.mktemp("proxied")
    server = start_server(f"sqlite:///{home / 'server.sqlite3'}", home, *extra, env=LIMITS)
    try:
        nginx = start_nginx(home / "nginx", int(server.url.rsplit(":", 1)[1]))
        try:
            yield Proxied(server, nginx)
        finally:
            nginx.stop()
    finally:
        server.stop()


@pytest.fixture(scope="module")
def by_default(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    """Behind nginx, the server believing the proxies it does by default."""
    yield from proxied(tmp_path_factory)


@pytest.fixture(scope="module")
def believing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    """Behind nginx, the server started with ``--forwarded-allow-ips 127.0.0.2``."""
    yield from proxied(tmp_path_factory, "--forwarded-allow-ips", PROXY)


def player(url: str, address: str) -> httpx.Client:
    """An HTTP client of ``url`` connecting from the loopback address ``address``."""
    return httpx.Client(base_url=url, timeout=WAIT,
                        transport=httpx.HTTPTransport(local_address=address))


def new_account(client: httpx.Client, headers: dict[str, str] | None = None
                ) -> httpx.Response:
    """``POST /api/accounts`` for a new name."""
    return client.post("/api/accounts", headers=headers,
                       json={"name": f"x{uuid.uuid4().hex[:10]}", "password": "correct horse"})


def creations(url: str, addresses: list[str]) -> list[int]:
    """The answers to one new account from each of ``addresses``, in turn."""
    answers = []
    for address in addresses:
        with player(url, address) as client:
            answers.append(new_account(client).status_code)
    return answers


def test_behind_a_proxy_not_believed_every_player_shares_its_address(
        by_default: Proxied) -> None:
    said = by_default.server.log.read_text()
    assert f"X-Forwarded-For believed from {DEFAULT_FORWARDED_ALLOW_IPS}" in said, said
    assert creations(by_default.nginx.url, ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) \
        == [201, 201, 429]


def test_behind_a_believed_proxy_each_player_counts_by_their_own_address(
        believing: Proxied) -> None:
    said = believing.server.log.read_text()
    assert f"X-Forwarded-For believed from {PROXY}" in said, said
    url = believing.nginx.url
    assert creations(url, ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) == [201, 201, 201]
    # still a limit per player: the first one's second account, then none
    assert creations(url, ["127.0.0.3", "127.0.0.3"]) == [201, 429]
    # an X-Forwarded-For the player sends is replaced by nginx: no fresh budget
    with player(url, "127.0.0.3") as client:
        assert new_account(client, {"X-Forwarded-For": "198.51.100.7"}).status_code == 429
    assert creations(url, ["127.0.0.4"]) == [201]  # the others keep their own


def test_a_peer_not_listed_is_counted_by_its_own_address_whatever_it_forwards(
        believing: Proxied) -> None:
    # straight to the server (not through nginx), from an address not listed
    answers = []
    for n in range(3):
        with player(believing.server.url, "127.0.0.6") as client:
            answers.append(new_account(client, {"X-Forwarded-For": f"198.51.100.{n + 1}"})
                           .status_code)
    assert answers == [201, 201, 429]


def test_an_empty_list_believes_no_one(tmp_path: Path) -> None:
    # not even a peer on the loopback address, which is believed by default
    server = start_server(f"sqlite:///{tmp_path / 'server.sqlite3'}", tmp_path,
                          "--forwarded-allow-ips", "", env=LIMITS)
    try:
        assert "X-Forwarded-For believed from no one" in server.log.read_text()
        answers = []
        for n in range(3):
            with player(server.url, "127.0.0.1") as client:
                answers.append(new_account(
                    client, {"X-Forwarded-For": f"198.51.100.{n + 1}"}).status_code)
        assert answers == [201, 201, 429]
    finally:
        server.stop()


def receive(socket: ClientConnection) -> dict[str, Any]:
    message = json.loads(socket.recv(timeout=WAIT))
    assert isinstance(message, dict)
    return message


def live(nginx: Nginx, path: str, address: str, token: str | None = None
         ) -> ClientConnection:
    """A WebSocket to ``path`` through nginx, connecting from ``address``, its
    ``hello`` (with ``token``) sent."""
    socket = connect(nginx.url.replace("http://", "ws://") + path, open_timeout=WAIT,
                     source_address=(address, 0)).__enter__()  # closed by the caller's with
    socket.send(json.dumps(protocol.hello(token)))
    return socket


def server_log_has(server: Server, line: str) -> bool:
    """Whether the server's log has a line containing ``line``, waiting for it
    (with a deadline: the log is written by another process)."""
    deadline = time.monotonic() + WAIT
    while line not in server.log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    return True


def test_the_live_websockets_work_through_the_proxy(believing: Proxied) -> None:
    address = "127.0.0.7"
    name = f"w{uuid.uuid4().hex[:10]}"
    with player(believing.nginx.url, address) as client:
        body = {"name": name, "password": "correct horse"}
        assert client.post("/api/accounts", json=body).status_code == 201
        token = client.post("/api/sessions", json=body).json()["token"]
        table = client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                            headers={"Authorization": f"Bearer {token}"})
        assert table.status_code == 201, table.text
    with live(believing.nginx, "/api/me/live", address, token) as socket:
        first = {receive(socket)["type"] for _ in range(3)}
        assert first == {"invitations", "online", "friends"}
        socket.send(json.dumps({"type": "refresh"}))  # and back: the lists again
        assert {receive(socket)["type"] for _ in range(3)} == first
    table_id = table.json()["id"]
    with live(believing.nginx, f"/api/tables/{table_id}/live", address,
              token) as socket:
        message = receive(socket)
        assert message["type"] == "table" and message["id"] == table_id
        assert message["seats"][0] == name
    # the server counted the WebSocket as the player's, not the proxy's
    assert server_log_has(believing.server,
                          f'{address}:0 - "WebSocket /api/tables/{table_id}/live'), \
        believing.server.log.read_text()[-2000:]


def test_forwarded_allow_ips_defaults_to_uvicorns() -> None:
    assert forwarded_allow_ips(None, {}) == DEFAULT_FORWARDED_ALLOW_IPS == "127.0.0.1,::1"
    assert forwarded_allow_ips(None, {FORWARDED_ENV: "10.0.0.9"}) == "10.0.0.9"
    # the option wins over the variable
    assert forwarded_allow_ips("10.0.0.5", {FORWARDED_ENV: "10.0.0.9"}) == "10.0.0.5"


@pytest.mark.parametrize(("value", "expected"), [
    ("127.0.0.2", "127.0.0.2"),
    (" 10.0.0.0/8 , fd00::/8,::1", "10.0.0.0/8,fd00::/8,::1"),
    ("*", "*"),
    ("", ""),
    (" ", ""),
])
def test_forwarded_allow_ips_takes_addresses_and_networks(value: str, expected: str) -> None:
    assert forwarded_allow_ips(value, {}) == expected


@pytest.mark.parametrize(("value", "named"), [
    ("proxy.example.org", "'proxy.example.org' is not an IP address (a name is never"),
    ("10.0.0.1/8", "'10.0.0.1/8' is not a network (its host bits are set: 10.0.0.0/8?)"),
    ("10.0.0.0/33", "'10.0.0.0/33' is not a network"),
    ("10.0.0.5,,10.0.0.6", "an empty entry in '10.0.0.5,,10.0.0.6'"),
    ("*,10.0.0.5", "'*' (every peer) stands alone"),
    ("300.1.2.3", "'300.1.2.3' is not an IP address"),
])
def test_forwarded_allow_ips_refuses_what_is_not_an_address(value: str, named: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"--forwarded-allow-ips: {named}")):
        forwarded_allow_ips(value, {})


@pytest.mark.parametrize(("args", "env", "named"), [
    (["--forwarded-allow-ips", "nginx"], {},
     "blockyard serve: --forwarded-allow-ips: 'nginx' is not an IP address"),
    ([], {FORWARDED_ENV: "172.18.0.1/16"},
     f"blockyard serve: {FORWARDED_ENV}: '172.18.0.1/16' is not a network"),
], ids=["option", "variable"])
def test_serve_refuses_a_bad_list_of_proxies(tmp_path: Path, args: list[str],
                                              env: dict[str, str], named: str) -> None:
    database = tmp_path / "never.sqlite3"
    answer = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--database",
                             f"sqlite:///{database}", *args], capture_output=True,
                            text=True, timeout=60, env={**os.environ, **env})
    assert answer.returncode == 2 and named in answer.stderr, answer.stderr
    assert not database.exists()  # refused before anything started


def test_the_documented_proxy_logs_no_token_and_no_code(believing: Proxied) -> None:
    # a careless client puts both in its addresses (neither is taken by the
    # server): nginx's access log, in the documented format, keeps neither
    address = "127.0.0.8"
    secret_token, secret_code = uuid.uuid4().hex, uuid.uuid4().hex[:8].upper()
    with player(believing.nginx.url, address) as client:
        answer = client.get(f"/api/tables/999999?code={secret_code}&token={secret_token}")
        assert answer.status_code == 404
    with live(believing.nginx, f"/api/me/live?token={secret_token}&code={secret_code}",
              address) as socket:  # a hello without a token: refused
        assert receive(socket)["kind"] == "signed-out"
    written = believing.nginx.folder / "access.log"
    deadline = time.monotonic() + WAIT
    while "/api/me/live" not in (written.read_text() if written.exists() else ""):
        assert time.monotonic() < deadline, "nginx wrote no line for the live connection"
        time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    log = written.read_text()
    assert "GET /api/tables/999999 HTTP/1.1" in log
    assert secret_token not in log and secret_code not in log
