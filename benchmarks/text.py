"""Text benchmark: what the shaping text component costs, apart from the rest of a frame.

Measures on the window (a virtual screen when there is no DISPLAY), with the GPU
finished after each step: rendering a new Nepali text (a cache miss: Pillow/Raqm
shapes it and a texture is made), drawing a cached Nepali text, and drawing an
English text through pyglet as Arcade does. Prints medians in microseconds.

Run:  python benchmarks/text.py [--repeat 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()
    import arcade

    from blockyard.frontend import text

    window = arcade.Window(720, 960, "Blockyard text benchmark")
    ctx = window.ctx

    def timed(step) -> float:
        samples = []
        for i in range(args.repeat):
            start = time.perf_counter()
            step(i)
            ctx.finish()
            samples.append((time.perf_counter() - start) * 1e6)
        return statistics.median(samples)

    fresh = text.Text("", 100, 100, arcade.color.WHITE, 18)

    def new_text(i: int) -> None:
        fresh.text = f"उत्कृष्ट {i:05d} अङ्क"
        fresh.draw()

    cached = text.Text("क्षेत्र श्रेष्ठ स्कोर", 100, 300, arcade.color.WHITE, 18)
    cached.draw()
    latin = text.Text("Best score 12,480", 100, 500, arcade.color.WHITE, 18)
    latin.draw()
    window.clear()
    print(f"new Nepali text (shaped, rendered, drawn): {timed(new_text):8.0f} µs")
    print(f"cached Nepali text drawn:                  {timed(lambda i: cached.draw()):8.0f} µs")
    print(f"English text drawn by pyglet:              {timed(lambda i: latin.draw()):8.0f} µs")
    window.close()


if __name__ == "__main__":
    main()
