"""Colour-vision simulation, to check that piece colours stay apart for players
with a colour-vision deficiency (tested, not judged by eye).

:func:`simulate` applies the Machado, Oliveira and Fernandes (2009) matrices for
full protanopia, deuteranopia and tritanopia to linear sRGB; :func:`delta_e` is
the CIE 1976 colour difference in CIELAB (D65). A difference of about 2.3 is
just noticeable; 20 or more reads as clearly another colour at a glance.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

Matrix = tuple[tuple[float, float, float], tuple[float, float, float],
               tuple[float, float, float]]

MACHADO: dict[str, Matrix] = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
"""Simulation matrices (severity 1.0) on linear RGB, by kind of vision."""

Rgb = Sequence[int]


def _linear(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def simulate(color: Rgb, vision: str) -> tuple[float, float, float]:
    """The linear RGB (0–1) a player with ``vision`` perceives for an sRGB colour."""
    matrix = MACHADO[vision]
    lin = [_linear(v) for v in color[:3]]
    r, g, b = (min(1.0, max(0.0, sum(matrix[i][j] * lin[j] for j in range(3))))
               for i in range(3))
    return r, g, b


def lab(linear_rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear RGB colour."""
    r, g, b = linear_rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: Rgb, b: Rgb, vision: str = "normal") -> float:
    """How far apart two sRGB colours look to a player with ``vision`` (CIE76 ΔE)."""
    return math.dist(lab(simulate(a, vision)), lab(simulate(b, vision)))


def smallest_difference(colours: Sequence[Rgb], vision: str) -> float:
    """The smallest ΔE between any two of ``colours`` as seen with ``vision``."""
    return min(delta_e(a, b, vision) for a, b in itertools.combinations(colours, 2))
