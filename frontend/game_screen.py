"""What every game screen shares, tray and falling games alike.

A :class:`GameScreen` is an Arcade view made of :class:`arcade.Section` parts:
the :class:`HudSection` (title, score, rule words, the action and Menu
buttons), the :class:`MessageSection` (short messages, in a place of their own)
and the modal :class:`DialogSection` (the pause menu, and the prompt offered
after the end when the rules allow going on, e.g. "Continue once?"); each kind
of game adds its board (and tray, or controls). The screen holds the flow they
share: saving after every action, pausing, the prompt after the end, recording
the finished game and showing its summary.

Input events reach the sections through the view's ``SectionManager`` (the
modal dialog first, then the section under the pointer, then the view).
Drawing, updating and laying out are driven by the view itself (``on_draw``
draws the sections in their order, ``on_update`` advances each, ``on_resize``
places each), so calling a screen's ``on_draw`` or ``on_update`` directly — the
replay viewer, the tests, the benchmarks — shows exactly what the window shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

import blockyard

from . import theme
from .i18n import _
from .layout import Rect
from .rulewords import action_label, display, engine_text, key_name, over_words
from .text import Text
from .widgets import Button, PauseMenu, click_buttons, draw_card, fit_text, hover_buttons

if TYPE_CHECKING:
    from .session import Session

PROMPT_GUARD = 0.6   # seconds the prompt after the end ignores input at first
MESSAGE_TIME = 2.5   # seconds a message stays
OVER_DELAY = 0.6     # seconds between the end of a game and its summary


class ScreenSections(arcade.SectionManager):
    """The section manager of a game screen. Events it passes on to the view are
    marked handled, so the view's own handlers on the window do not get them a
    second time."""

    def dispatch_mouse_event(self, event: str, x: int, y: int, *args: Any,
                             current_section: arcade.Section | None = None,
                             **kwargs: Any) -> bool | None:
        super().dispatch_mouse_event(event, x, y, *args, current_section=current_section,
                                     **kwargs)
        return True

    def dispatch_keyboard_event(self, event: str, *args: Any, **kwargs: Any) -> bool | None:
        super().dispatch_keyboard_event(event, *args, **kwargs)
        return True


class ScreenSection(arcade.Section):
    """A part of a :class:`GameScreen`, placed by the screen from its layout."""

    def __init__(self, screen: GameScreen, name: str, **options: Any) -> None:
        super().__init__(0, 0, 1, 1, name=name, **options)
        self.screen = screen

    def set_area(self, area: Rect) -> None:
        """Where the section is (and takes its mouse events)."""
        # Arcade keeps the floats it is given (its setters are annotated int)
        self.left, self.bottom = area.left, area.bottom  # type: ignore[assignment]
        self.width = max(1.0, area.width)  # type: ignore[assignment]
        self.height = max(1.0, area.height)  # type: ignore[assignment]

    @property
    def area(self) -> Rect:
        return Rect(self.left, self.bottom, self.width, self.height)

    def advance(self, delta_time: float) -> None:
        """Move the section's effects on by ``delta_time`` seconds."""

    def animating(self) -> bool:
        """Whether the section's next frame differs from the last with no input."""
        return False


class HudSection(ScreenSection):
    """Title, score and rule words (``texts``, over ``sprites``) and the screen's
    buttons (``hud_buttons``: Menu, Hint, one per action of the rules). Takes the
    clicks on the buttons; a click beside them goes on to the screen."""

    def __init__(self, screen: GameScreen) -> None:
        super().__init__(screen, "hud", accept_keyboard_keys=False,
                         accept_mouse_events={"on_mouse_press", "on_mouse_motion",
                                              "on_mouse_leave"},
                         prevent_dispatch_view=set())
        self.texts: list[Text] = []
        self.sprites: list[arcade.SpriteList[arcade.Sprite]] = []  # under the texts

    def on_draw(self) -> None:
        for sprites in self.sprites:
            sprites.draw()
        for text in self.texts:
            text.draw()
        for button in self.screen.hud_buttons:
            button.draw()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons(self.screen.hud_buttons, x, y)

    def on_mouse_leave(self, x: float, y: float) -> None:
        hover_buttons(self.screen.hud_buttons, -1, -1)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> bool:
        """A click on a button is the HUD's; one beside them goes on to the screen
        (where any click cancels an action waiting for confirmation)."""
        hit = click_buttons(self.screen.hud_buttons, x, y)
        self.prevent_dispatch_view = {"on_mouse_press"} if hit else set()
        return hit


MESSAGE_READABLE = 11.0
"""The smallest size (points) a message is shrunk to while a shorter form of it
is left to try."""


class MessageSection(ScreenSection):
    """One short message at a time ("It does not fit there"), in a line of its own
    that covers neither the board nor the tray; it fades after a few seconds."""

    def __init__(self, screen: GameScreen) -> None:
        super().__init__(screen, "message", accept_keyboard_keys=False,
                         accept_mouse_events=False)
        self.text = Text("", 0, 0, theme.ACCENT, 16, font_name=theme.FONT,
                         anchor_x="center", anchor_y="center")
        self.age = 0.0
        self.size = 16.0
        self.cleared = False  # gone since the last frame: one more frame must be drawn
        self.choices: tuple[str, ...] = ()
        """The message and its shorter forms, longest first (see :meth:`say`)."""
        self.lasts = MESSAGE_TIME  # seconds the message shown stays
        self.resting = ""
        """The line shown while no message is (:meth:`rest`; "": none)."""

    def place(self, area: Rect, size: float) -> None:
        self.set_area(area)
        self.size = size
        self.text.position = (area.center_x, area.center_y)
        self._fit()

    def _fit(self) -> None:
        # a message with shorter forms shrinks only to a readable size before the
        # next form is tried; the last form shrinks as far as it must
        choices = self.choices or (self.text.text,)
        readable = min(self.size, max(MESSAGE_READABLE, self.size * 0.75))
        for n, choice in enumerate(choices):
            if self.text.text != choice:
                self.text.text = choice
            last = n == len(choices) - 1
            fit_text(self.text, self.width - 8, self.height, self.size,
                     smallest=7.0 if last else readable)
            if self.text.content_width <= self.width - 8:
                break

    def say(self, text: str, *shorter: str, seconds: float = MESSAGE_TIME) -> None:
        """Show ``text`` for ``seconds``; when it is too long for the line at a
        readable size (:data:`MESSAGE_READABLE`; a long name in a narrow window),
        the first of ``shorter`` that fits (or the last, shrunk as it must be). An
        empty ``text``: the resting line."""
        if not text:
            self.clear()
            return
        self.choices = (text, *shorter)
        self.text.text = text
        self.text.color = theme.ACCENT
        self.age = 0.0
        self.lasts = seconds
        self._fit()

    def rest(self, text: str) -> None:
        """The line shown while no message is ("" for none): a standing state (a
        live table's "Waiting for bob…"), in the muted colour; it neither expires
        nor makes the window draw frames."""
        if text == self.resting:
            return
        self.resting = text
        if self.resting_shown or not self.text.text:
            self._show_resting()

    @property
    def resting_shown(self) -> bool:
        """Whether the line shows the resting text (no message)."""
        return not self.choices and bool(self.text.text)

    def _show_resting(self) -> None:
        self.choices = ()
        self.text.text = self.resting
        self.text.color = theme.MUTED
        self.cleared = True  # drawn once more, with it
        self._fit()

    def clear(self) -> None:
        """Take the message away now (the next frame is drawn without it, with the
        resting line if there is one)."""
        if self.choices:
            self.text.text = ""
            self.choices = ()
            self.cleared = True
            if self.resting:
                self._show_resting()

    @property
    def shown(self) -> str:
        return self.text.text

    def advance(self, delta_time: float) -> None:
        self.age += delta_time
        if self.choices and self.age > self.lasts:
            self.clear()

    def animating(self) -> bool:
        """While a message shows (it expires), and once more after it went: the window
        draws only when something animates, so the frame without it must be asked for."""
        return bool(self.choices) or self.cleared

    def on_draw(self) -> None:
        self.cleared = False
        self.text.draw()


class DialogSection(ScreenSection):
    """The modal part of a game screen: the pause menu, or the prompt offered after
    the end when the rules offer actions then (eu's "continue"), with "Finish: see
    the score". While either shows it takes every input event."""

    def __init__(self, screen: GameScreen) -> None:
        super().__init__(screen, "dialog", modal=True, enabled=False)
        self.pause = PauseMenu(screen.restart, screen.to_launcher, screen.show_help,
                               screen.show_settings)
        self.specs = [spec for spec in screen.game.ruleset.action_specs.values()
                      if spec.after_end and not spec.automatic]
        self.buttons = {spec.name: Button(engine_text(spec.label), screen.clicker(spec.name),
                                          font_size=18, color="GO")
                        for spec in self.specs}
        self.give_up_button = Button(_("Finish: see the score"), screen.finish, font_size=18)
        self.overlay_text = Text("", 0, 0, theme.TEXT, 26, font_name=theme.FONT, bold=True,
                                 anchor_x="center", anchor_y="center")
        self.overlay_help = Text("", 0, 0, theme.TEXT, 15, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="top", multiline=True,
                                 width=400, align="center")
        self.age = 0.0   # how long the prompt has been showing
        self.scale = 1.0
        self.box = 400.0  # the prompt's width
        self.card = Rect(0, 0, 0, 0)  # behind the prompt's texts and buttons

    # -- state --------------------------------------------------------------------------------

    @property
    def prompting(self) -> bool:
        """Over, with an action offered after the end: the prompt shows."""
        screen = self.screen
        game = screen.game
        return game.over and not screen.spectator and not screen.recorded \
            and bool(game.actions())

    @property
    def ready(self) -> bool:
        """The prompt has been on screen long enough to be read: a click or key meant
        for the board a moment earlier never answers it."""
        return self.age >= PROMPT_GUARD

    @property
    def prompt_buttons(self) -> list[Button]:
        return [*self.buttons.values(), self.give_up_button]

    def sync(self) -> None:
        """Show the dialog exactly while the pause menu is open or the prompt is due."""
        self.enabled = self.pause.open or self.prompting

    def open_pause(self) -> None:
        self.pause.show()
        self.sync()

    def refresh(self) -> None:
        """Labels and visibility of the prompt's buttons, from ``game.actions()``."""
        available = {action.name: action for action in self.screen.game.actions()}
        for spec in self.specs:
            action = available.get(spec.name)
            button = self.buttons[spec.name]
            button.visible = action is not None
            button.label = action_label(spec.label, action.uses_left if action else None)

    def place(self, width: float, height: float, scale: float) -> None:
        """The pause menu, and the prompt: title, what going on does, its buttons."""
        self.set_area(Rect(0, 0, width, height))
        self.scale = scale
        self.pause.place(width, height, scale)
        box = self.box = min(width - 24, 420 * scale)
        self.overlay_text.position = (width / 2, height * 0.7)
        fit_text(self.overlay_text, box, 40 * scale, 26 * scale)
        self.overlay_help.width = int(box)
        self.overlay_help.font_size = 15 * scale
        self.overlay_help.position = (width / 2, height * 0.66)
        y = height * 0.5
        for button in self.prompt_buttons:
            button.place(Rect(width / 2 - box / 2, y, box, 50 * scale), 18 * scale)
            y -= 64 * scale
        pad = 14 * scale
        self.card = Rect(width / 2 - box / 2 - pad, y + 64 * scale - pad, box + 2 * pad,
                         height * 0.7 + 20 * scale + pad - (y + 64 * scale - pad))

    def advance(self, delta_time: float) -> None:
        if self.prompting and not self.pause.open:
            self.age += delta_time

    # -- drawing ------------------------------------------------------------------------------

    def on_draw(self) -> None:
        if self.pause.open:
            self.pause.draw()
        elif self.prompting:
            self._draw_prompt()

    def _draw_prompt(self) -> None:
        """Over, with a way to go on: why, what going on does, and the choices."""
        game = self.screen.game
        arcade.draw_lrbt_rectangle_filled(0, self.width, 0, self.height, theme.SCRIM)
        draw_card(self.card)
        actions = game.actions()
        title = display(game.ruleset).text("continue") or over_words(game)
        if self.overlay_text.text != title:
            self.overlay_text.text = title
            fit_text(self.overlay_text, self.box, 40 * self.scale, 26 * self.scale)
        helps = "\n".join(engine_text(a.help) for a in actions if a.help)
        keys = "  ·  ".join(f"{key_name(a.key)}: {engine_text(a.label)}"
                            for a in actions if a.key)
        body = helps + ("\n" + keys + "  ·  " + _("F: Finish") if keys else "")
        if self.overlay_help.text != body:
            self.overlay_help.text = body
        self.overlay_text.draw()
        self.overlay_help.draw()
        for button in self.prompt_buttons:
            button.draw()

    # -- input --------------------------------------------------------------------------------

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if self.pause.open:  # the pointer moves the menu's one choice
            self.pause.on_mouse_motion(x, y)
        else:
            hover_buttons(self.prompt_buttons, x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> bool:
        if self.pause.open:
            self.pause.on_mouse_press(x, y)
        elif self.ready:
            click_buttons(self.prompt_buttons, x, y)
        self.sync()
        return True

    def on_key_press(self, symbol: int, modifiers: int) -> bool:
        key = arcade.key
        if self.pause.on_key(symbol):
            pass
        elif symbol == key.ESCAPE:  # pause, also over the prompt: nothing is thrown away
            self.pause.show()
        elif self.ready:
            # only the choices' own keys (C, F): Enter or Space pressed to place a piece
            # a moment ago must never spend the one continue or end the game unseen
            name = self.screen.action_for_key(symbol, self.specs)
            if name is not None:
                self.screen.use_action(name)
            elif symbol == key.F:
                self.screen.finish()
        self.sync()
        return True

    def on_key_release(self, symbol: int, modifiers: int) -> bool:
        return True


class GameScreen(arcade.View):
    """The base of the game screens: the sections every game has and the flow
    between actions, the end, and the summary.

    Subclasses add their own sections (:meth:`add`), lay everything out in
    :meth:`place_sections`, bring sprites up to date in :meth:`refresh`, and
    list their HUD buttons in :attr:`hud_buttons`. ``spectator`` screens (the
    replay viewer) show a game without playing, saving or recording it;
    ``reserve_bottom`` keeps a band at the bottom of the window free."""

    menu_while_watching = False
    """Whether the Menu button stays while the screen only shows a game (a live
    table's board watched: the menu is how a mouse player leaves the table); the
    replay viewer has its own controls."""

    def __init__(self, session: Session, game: blockyard.Game, *, spectator: bool = False,
                 reserve_bottom: float = 0.0) -> None:
        super().__init__()
        self.session = session
        self.game = game
        self.spectator = spectator
        self.reserve_bottom = reserve_bottom
        self.recorded = False
        self.over_age = 0.0
        self.over_delay = OVER_DELAY
        self.effects: list[str] = []  # the effects started, in order (tests, figures)
        self._moving = False  # the last frame drawn was animating
        self.scale = 1.0
        self.section_manager = ScreenSections(self)
        # input only: drawing, updates and resizing are the view's (see the module doc)
        self.section_manager.managed_events -= {"on_draw", "on_update", "on_resize"}
        self.section_manager.view_draw_first = None
        self.menu_button = Button(_("Menu"), self.open_pause, font_size=13)
        self.hud = HudSection(self)
        self.message_line = MessageSection(self)
        self.dialog = DialogSection(self)
        self.add(self.dialog, 100)
        self.add(self.hud, 20)
        self.add(self.message_line, 30)

    def add(self, section: ScreenSection, order: int) -> None:
        """Add a section, drawn after those of lower ``order`` (board and tray below
        20, the HUD at 20, the message line at 30; the modal dialog always on top)."""
        self.section_manager.add_section(section, at_draw_order=order)

    @property
    def parts(self) -> list[ScreenSection]:
        """The sections of the screen."""
        return [s for s in self.section_manager.sections if isinstance(s, ScreenSection)]

    # -- what subclasses provide --------------------------------------------------------------

    @property
    def hud_buttons(self) -> list[Button]:
        return [self.menu_button]

    def place_sections(self, width: int, height: int) -> None:
        """Lay every section out for a window of this size."""
        raise NotImplementedError

    def refresh(self) -> None:
        """Bring every sprite and text up to date with the game."""
        self.dialog.refresh()

    def game_update(self, delta_time: float) -> None:
        """The game's own time (a clock, falling stones), while it runs."""

    def use_action(self, name: str) -> None:
        """Take the action ``name`` of the rules (a button or its key)."""
        raise NotImplementedError

    # -- the shared flow ----------------------------------------------------------------------

    def clicker(self, name: str) -> Callable[[], None]:
        return lambda: self.use_action(name)

    @staticmethod
    def action_for_key(symbol: int, specs: list[Any]) -> str | None:
        """The action among ``specs`` whose key is ``symbol``."""
        for spec in specs:
            if spec.key and getattr(arcade.key, spec.key.upper(), None) == symbol:
                return str(spec.name)
        return None

    @property
    def motion(self) -> bool:
        """Whether effects move (off under the reduced-motion setting)."""
        return not self.session.reduced_motion

    def play(self, name: str, combo: int = 1) -> None:
        """Play a sound effect (not while watching a replay)."""
        if not self.spectator:
            self.session.sounds.play(name, combo)

    def say(self, text: str, *shorter: str, seconds: float = MESSAGE_TIME) -> None:
        """Show a short message in the message line for ``seconds`` (or the first
        of ``shorter`` that fits it, when ``text`` does not)."""
        self.message_line.say(text, *shorter, seconds=seconds)

    @property
    def message(self) -> str:
        return self.message_line.shown

    def saved(self) -> None:
        """Save the game in progress after an action (not for a replay)."""
        if not self.spectator:
            self.session.after_action(self.game)
        self.dialog.sync()

    def perform(self, action: list[Any]) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        self.game.apply(action)
        self.refresh()

    @property
    def paused(self) -> bool:
        return self.dialog.pause.open

    @property
    def prompting(self) -> bool:
        """Over, with an action offered after the end (continue): the prompt shows."""
        return self.dialog.prompting

    @property
    def prompt_ready(self) -> bool:
        return self.dialog.ready

    @property
    def give_up_button(self) -> Button:
        return self.dialog.give_up_button

    def open_pause(self) -> None:
        self.dialog.open_pause()

    def restart(self) -> None:
        self.session.confirm_restart(self.game, self)

    def to_launcher(self) -> None:
        self.session.show_launcher()

    def show_help(self) -> None:
        self.session.show_help(self.game.ruleset, lambda: self.session.show_game(self.game))

    def show_settings(self) -> None:
        self.session.show_settings(lambda: self.session.show_game(self.game))

    def finish(self) -> None:
        """Finish now: record the game and show its summary."""
        self.over_age = self.over_delay
        self.show_summary()

    def show_summary(self) -> None:
        if not self.recorded and not self.spectator:
            self.recorded = True
            self.dialog.sync()
            self.session.finish_game(self.game)

    # -- Arcade events --------------------------------------------------------------------------

    def on_show_view(self) -> None:
        self.section_manager.enable()
        self.dialog.sync()

    def on_hide_view(self) -> None:
        self.section_manager.disable()

    def on_resize(self, width: int, height: int) -> None:
        self.place_sections(width, height)
        self.refresh()

    def on_update(self, delta_time: float) -> None:
        game = self.game
        if not self.spectator and not self.paused and not game.over:
            self.game_update(delta_time)
        for part in self.parts:
            part.advance(delta_time)
        self.dialog.sync()
        if game.over and not self.paused and not self.spectator and not self.prompting:
            self.over_age += delta_time
            if self.over_age >= self.over_delay:
                self.show_summary()

    def animating(self) -> bool:
        """Whether the next frame differs from the last with no input (the window
        draws only then, or after input). The frame after an effect ends counts too:
        the last one drawn may still show it (a "+3" that has just gone)."""
        return self._moving or any(part.animating() for part in self.parts if part.enabled) \
            or (self.game.over and not self.prompting and not self.recorded
                and not self.spectator)

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.section_manager.on_draw()
        self._moving = False
        self._moving = self.animating()  # this frame moves: the next is drawn too


__all__ = ["DialogSection", "GameScreen", "HudSection", "MessageSection", "ScreenSection"]
