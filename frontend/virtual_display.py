"""Start a virtual X screen (Xvfb) for headless runs: tests, benchmarks, screenshots."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess


def start_virtual_display(size: str = "1600x1200x24") -> subprocess.Popen[bytes]:
    """Start Xvfb on a free display number, point ``DISPLAY`` at it, and stop it
    when the process exits. Raises ``RuntimeError`` naming what is missing."""
    missing = [tool for tool in ("Xvfb",) if shutil.which(tool) is None]
    if missing:
        raise RuntimeError("a virtual screen needs Xvfb: install it with "
                           "'apt-get install xvfb' (bash scripts/test.sh does)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", size,
                               "-nolisten", "tcp"], pass_fds=(write,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.terminate()
        raise RuntimeError("Xvfb did not start")
    os.environ["DISPLAY"] = f":{number}"
    os.environ.pop("ARCADE_HEADLESS", None)
    atexit.register(server.terminate)
    return server
