"""Frame-time benchmark: a scripted drag on the eu-classic game screen at 720×960,
then frames with the effects of moves running (particles, combo, perfect clear,
shake) and sound effects on.

Measures, per frame, ``on_update`` + ``on_draw`` with the GPU finished
(``ctx.finish()``), on whatever OpenGL the machine has (on a server: Mesa's
llvmpipe software renderer under Xvfb, which this script starts when there is
no DISPLAY). Prints the median and the 95th percentile.

Then the launcher: milliseconds per mouse-wheel notch (handler and the frame after
it), down the list and back.

Run:  python benchmarks/frame.py [--frames 600] [--language ne]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

TARGET_MEDIAN_MS = 8.0
TARGET_SCROLL_MS = 16.0


def ensure_display() -> None:
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()


def timed_frame(window, view, *, update: bool = True) -> float:
    """Milliseconds of one frame (``on_update`` when asked, then ``on_draw``, with the
    GPU finished); the frame is then shown."""
    start = time.perf_counter()
    if update:
        view.on_update(1 / 60)
    view.on_draw()
    window.ctx.finish()
    spent = (time.perf_counter() - start) * 1000
    window.flip()
    return spent


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
        times.append(timed_frame(window, view))
    view.on_mouse_release(x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    effects = effect_frames(window, view, args.frames)
    notches = scroll_times(window, app)
    renderer = window.ctx.info.RENDERER
    window.close()
    print(f"renderer: {renderer}, 720×960, sound effects {'on' if app.settings.sound else 'off'}")
    report(f"{len(times)} frames of a scripted drag", times)
    report(f"{len(effects)} frames with effects (clear particles of two lines, the big "
           "combo, a perfect-clear burst, the invalid-drop shake, one after the other)",
           effects)
    notches.sort()
    print(f"launcher scroll: {len(notches)} wheel notches, median "
          f"{statistics.median(notches):.2f} ms, worst {notches[-1]:.2f} ms per notch "
          f"(target: under {TARGET_SCROLL_MS} ms) -> "
          f"{'OK' if notches[-1] < TARGET_SCROLL_MS else 'SLOW'}")


def scroll_times(window, app) -> list[float]:
    """Milliseconds of the launcher's work per mouse-wheel notch (the handler and the
    next frame drawn, GPU finished), down the list and back."""
    app.show_launcher()
    view = window.current_view
    view.on_draw()
    times = []
    for step in [-1] * 20 + [1] * 20:
        start = time.perf_counter()
        view.on_mouse_scroll(100, 100, 0, step)
        handler = (time.perf_counter() - start) * 1000
        times.append(handler + timed_frame(window, view, update=False))
    return times


def effect_frames(window, view, frames: int) -> list[float]:
    """Frame times while the effects of a move run: every 40 frames a two-line clear
    (20 cells of particles) with the combo shown big, then a perfect-clear burst,
    then an invalid drop; sounds played through the app's player."""
    board = view.layout.board
    effects = view.board_section
    times = []
    for frame in range(frames):
        phase = frame % 120
        if phase == 0:
            cells = [(view.layout.cell_center(r, c), view.colour(1 + c % 8))
                     for r in (3, 4) for c in range(10)]
            effects.burst(cells, 3, 2.5)
            effects.big_combo_text.text = "Combo x3"
            effects.combo_age = 0.0
            view.play("clear", 3)
        elif phase == 40:
            effects.burst([((board.center_x, board.center_y), view.colour(1 + i % 8))
                           for i in range(40)], 4, 7.0)
            effects.perfect_age = 0.0
            view.play("perfect")
        elif phase == 80:
            view.input.refuse()
        times.append(timed_frame(window, view))
    return times


def report(what: str, times: list[float]) -> None:
    times = sorted(times)
    median = statistics.median(times)
    p95 = times[int(len(times) * 0.95) - 1]
    verdict = "OK" if median <= TARGET_MEDIAN_MS else "SLOW"
    print(f"{what}: median {median:.2f} ms   95th percentile {p95:.2f} ms   "
          f"(target: median ≤ {TARGET_MEDIAN_MS} ms) -> {verdict}")


if __name__ == "__main__":
    main()
