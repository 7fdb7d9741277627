"""Hint benchmark: from the H key to the hint on screen, and the frames meanwhile.

Opens the eu-classic game screen at 720×960 (under Xvfb when there is no
DISPLAY), presses H on a series of mid-game positions, and runs frames
(``on_update`` + ``on_draw`` + ``ctx.finish()``) until the search bot's move is
shown. Prints the time to the hint (median, worst) and the frame times while
it was being found (median, worst). Targets: the hint within 100 ms, no frame
over 16 ms.

Run:  python benchmarks/hint.py [--positions 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from frame import ensure_display, timed_frame  # this folder's frame benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    args = parser.parse_args()
    ensure_display()
    os.environ.setdefault("BLOCKYARD_HOME", f"/tmp/blockyard-bench-{os.getpid()}")
    import arcade

    import blockyard
    from blockyard.frontend.app import BlockyardApp, BlockyardWindow

    window = BlockyardWindow(720, 960, "Blockyard hint benchmark")
    app = BlockyardApp(window)
    latencies: list[float] = []
    frames: list[float] = []
    for i in range(args.positions):
        game = blockyard.new_game("eu-classic", seed=100 + i)
        for _ in range(i % 12):
            moves = game.legal_moves()
            if not moves:
                break
            game.place(*moves[len(moves) // 2])
        if game.over:
            continue
        app.show_game(game)
        view = window.current_view
        for _ in range(3):
            window.dispatch_events()
            view.on_update(1 / 60)
            view.on_draw()
            window.flip()
        asked = time.perf_counter()
        view.on_key_press(arcade.key.H, 0)
        while view.input.hint.placement() is None and view.input.hint.action() is None:
            frames.append(timed_frame(window, view))
        latencies.append((time.perf_counter() - asked) * 1000)
    window.close()
    frames.sort()
    print(f"{len(latencies)} hints on eu-classic at 720×960, renderer {window.ctx.info.RENDERER}")
    print(f"time to the hint: median {statistics.median(latencies):.1f} ms, worst "
          f"{max(latencies):.1f} ms (target ≤ 100 ms)")
    print(f"frames while thinking: {len(frames)}, median {statistics.median(frames):.1f} ms, "
          f"worst {frames[-1]:.1f} ms (target: none over 16 ms)")


if __name__ == "__main__":
    main()
