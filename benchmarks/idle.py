"""Idle benchmark: the CPU an untouched game window uses, per second.

Starts the real window in a child process (the launcher, then a game of
eu-classic; sound effects on, as by default), lets it settle, then reads the child's
CPU time (user + system, from /proc) over a few seconds of no input. Prints the
share of one core per second of wall time for each screen. Starts a virtual
screen (Xvfb) when there is no DISPLAY. Linux only (/proc).

Run:  python benchmarks/idle.py [--seconds 5] [--language ne]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

TARGET_SHARE = 0.05  # of one core
TICKS = os.sysconf("SC_CLK_TCK")

SCREENS = {
    "launcher": "run()",
    "game (eu-classic)": "run(ruleset='eu-classic', seed=1)",
}


SEEN = ("import blockyard; from blockyard.frontend.persistence import Settings; "
        "s = Settings(); s.help_seen = [i.id for i in blockyard.list_rulesets()]; s.save()")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def measure(call: str, settle: float, seconds: float, language: str = "en") -> float:
    home = tempfile.mkdtemp(prefix="blockyard-idle-")
    # a fresh home has no saved language: the window follows LANGUAGE; sound on (the
    # default) and the how-to-play pages already seen, so the game screen itself is
    # measured, not the page shown the first time
    env = {**os.environ, "BLOCKYARD_HOME": home, "LANGUAGE": language}
    subprocess.run([sys.executable, "-c", SEEN], env=env, check=True)
    child = subprocess.Popen(
        [sys.executable, "-c", f"from blockyard.frontend.app import run; {call}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()
    for name, call in SCREENS.items():
        share = measure(call, args.settle, args.seconds, args.language)
        verdict = "OK" if share < TARGET_SHARE else "BUSY"
        print(f"{name:20s} {share * 100:5.1f} % of a core while idle "
              f"(target < {TARGET_SHARE * 100:.0f} %) -> {verdict}")


if __name__ == "__main__":
    main()
