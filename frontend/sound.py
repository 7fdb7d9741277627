"""Sound effects, synthesised at start with the standard library and played
through Arcade.

Every effect is a short sequence of tones (:data:`SOUNDS`) written as 16-bit
mono WAV data by :func:`synthesise` (``wave``, ``math``, ``struct``); the files
are cached in the data folder under a name carrying a digest of their recipe,
so they are made once and remade only when a recipe changes. The
:class:`SoundPlayer` plays them through :class:`arcade.Sound` at the volume of
the settings (nothing when sound is off) and keeps a log of what it played, so
tests can check which sound each event triggers with pyglet's silent driver.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import random
import struct
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockyard import paths

if TYPE_CHECKING:
    from .persistence import Settings

RATE = 22050


@dataclass(frozen=True)
class Tone:
    """``seconds`` of a wave gliding from ``start`` to ``end`` Hz at ``level`` (0–1)."""

    start: float
    end: float
    seconds: float
    wave: str = "sine"      # sine, square, triangle or noise
    level: float = 0.5


SOUNDS: dict[str, tuple[Tone, ...]] = {
    "pickup": (Tone(520, 820, 0.06, "triangle", 0.35),),
    "place": (Tone(240, 150, 0.07, "sine", 0.6), Tone(150, 120, 0.03, "noise", 0.15)),
    "invalid": (Tone(180, 170, 0.07, "square", 0.3), Tone(0, 0, 0.03),
                Tone(150, 140, 0.09, "square", 0.3)),
    "clear": (Tone(523, 523, 0.06, "triangle"), Tone(659, 659, 0.06, "triangle"),
              Tone(784, 784, 0.1, "triangle")),
    "perfect": (Tone(523, 523, 0.08, "triangle"), Tone(659, 659, 0.08, "triangle"),
                Tone(784, 784, 0.08, "triangle"), Tone(1047, 1047, 0.08, "triangle"),
                Tone(1319, 1319, 0.3, "triangle")),
    "swap": (Tone(300, 1200, 0.18, "noise", 0.25), Tone(600, 900, 0.06, "sine", 0.3)),
    "game_over": (Tone(392, 392, 0.16), Tone(330, 330, 0.16), Tone(262, 262, 0.16),
                  Tone(196, 180, 0.35)),
    "record": (Tone(523, 523, 0.1, "square", 0.25), Tone(659, 659, 0.1, "square", 0.25),
               Tone(784, 784, 0.1, "square", 0.25), Tone(1047, 1047, 0.35, "square", 0.25)),
    "error": (Tone(140, 120, 0.25, "square", 0.35),),
    "discard": (Tone(320, 90, 0.25, "sine", 0.5), Tone(90, 60, 0.08, "noise", 0.2)),
}
"""Each effect's recipe, by name."""

SEMITONES_PER_COMBO = 2
MAX_PITCH_STEPS = 8


def pitch(combo: int) -> float:
    """The speed (and pitch) factor of the clear sound for a combo factor: one for
    the first clear, two semitones higher for each step of the combo (up to 8)."""
    steps = max(0, min(MAX_PITCH_STEPS, combo - 1))
    return 2 ** (steps * SEMITONES_PER_COMBO / 12)


def synthesise(name: str) -> bytes:
    """The WAV file (16-bit mono, :data:`RATE` Hz) of the effect ``name``."""
    tones = SOUNDS[name]
    noise = random.Random(name)  # the same bytes every time
    samples: list[int] = []
    for tone in tones:
        count = max(1, int(tone.seconds * RATE))
        phase = 0.0
        attack = min(count, int(0.005 * RATE))
        for i in range(count):
            t = i / count
            freq = tone.start + (tone.end - tone.start) * t
            phase += 2 * math.pi * freq / RATE
            if tone.wave == "noise":
                value = noise.uniform(-1, 1)
            elif tone.wave == "square":
                value = 1.0 if math.sin(phase) >= 0 else -1.0
            elif tone.wave == "triangle":
                value = 2 / math.pi * math.asin(math.sin(phase))
            else:
                value = math.sin(phase)
            envelope = min(1.0, i / attack if attack else 1.0) * (1 - t) ** 1.5
            samples.append(int(32767 * max(-1.0, min(1.0, value * tone.level * envelope))))
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(struct.pack(f"<{len(samples)}h", *samples))
    return out.getvalue()


def sound_file(name: str) -> Path:
    """The cached WAV file of effect ``name``, made (atomically) when missing."""
    recipe = repr((RATE, SOUNDS[name])).encode()
    digest = hashlib.sha256(recipe).hexdigest()[:12]
    path = paths.data_dir() / "sounds" / f"{name}-{digest}.wav"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_bytes(synthesise(name))
        os.replace(temp, path)
    return path


class SoundPlayer:
    """Plays the effects at the settings' volume; ``log`` lists what was played
    as ``(name, speed)``. Without a working audio device it turns itself off
    (``problem`` says why) instead of failing a move."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.log: list[tuple[str, float]] = []
        self.problem = ""
        self._sounds: dict[str, Any] = {}

    def load(self) -> None:
        """Make and load every effect now (at start), not at the first event."""
        for name in SOUNDS:
            self._sound(name)

    def _sound(self, name: str) -> Any:
        if name not in self._sounds:
            import arcade

            self._sounds[name] = arcade.Sound(sound_file(name))
        return self._sounds[name]

    def play(self, name: str, combo: int = 1) -> None:
        """Play effect ``name`` (``combo``: the combo factor, raising a clear's pitch)."""
        if name not in SOUNDS:
            raise KeyError(f"unknown sound {name!r} (known: {', '.join(SOUNDS)})")
        if not self.settings.sound or self.settings.volume <= 0 or self.problem:
            return
        speed = pitch(combo) if name == "clear" else 1.0
        self.log.append((name, speed))
        try:
            self._sound(name).play(volume=self.settings.volume, speed=speed)
        except Exception as exc:  # no audio device, a broken driver: play on silently
            self.problem = f"{type(exc).__name__}: {exc}"
