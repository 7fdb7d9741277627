"""Frame-time benchmark: a scripted drag on the eu-classic game screen at 720×960.

Measures, per frame, ``on_update`` + ``on_draw`` with the GPU finished
(``ctx.finish()``), on whatever OpenGL the machine has (on a server: Mesa's
llvmpipe software renderer under Xvfb, which this script starts when there is
no DISPLAY). Prints the median and the 95th percentile.

Run:  python benchmarks/frame.py [--frames 600] [--language ne]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

TARGET_MEDIAN_MS = 8.0


def ensure_display() -> None:
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--language", default="en",
                        help="the window's language (en, de, es, ne; ne draws shaped text)")
    args = parser.parse_args()
    ensure_display()
    os.environ.setdefault("BLOCKYARD_HOME", os.path.join("/tmp", f"blockyard-bench-{os.getpid()}"))
    import arcade

    import blockyard
    from blockyard.frontend.app import BlockyardApp, BlockyardWindow

    window = BlockyardWindow(720, 960, "Blockyard frame benchmark")
    app = BlockyardApp(window)
    app.set_language(args.language)
    game = blockyard.new_game("eu-classic", seed=11)
    for _ in range(9):  # a mid-game board
        moves = game.legal_moves()
        game.place(*moves[len(moves) // 3])
    app.show_game(game)
    view = window.current_view
    for _ in range(10):
        window.dispatch_events()
        view.on_update(1 / 60)
        view.on_draw()
        window.flip()
    slot = next(i for i, p in enumerate(game.tray) if p is not None)
    rect = view.layout.slots[slot]
    view.on_mouse_press(rect.center_x, rect.center_y, arcade.MOUSE_BUTTON_LEFT, 0)
    board = view.layout.board
    times = []
    for frame in range(args.frames):
        t = frame / 120
        x = board.center_x + board.width * 0.45 * math.sin(t * 2.1)
        y = board.center_y + board.height * 0.45 * math.cos(t * 1.3)
        view.on_mouse_drag(x, y, 1, 1, arcade.MOUSE_BUTTON_LEFT, 0)
        start = time.perf_counter()
        view.on_update(1 / 60)
        view.on_draw()
        window.ctx.finish()
        times.append((time.perf_counter() - start) * 1000)
        window.flip()
    renderer = window.ctx.info.RENDERER
    window.close()
    times.sort()
    median = statistics.median(times)
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"frames: {len(times)} at 720×960 during a scripted drag, renderer: {renderer}")
    verdict = "OK" if median <= TARGET_MEDIAN_MS else "SLOW"
    print(f"median {median:.2f} ms   95th percentile {p95:.2f} ms   "
          f"(target: median ≤ {TARGET_MEDIAN_MS} ms) -> {verdict}")


if __name__ == "__main__":
    main()
