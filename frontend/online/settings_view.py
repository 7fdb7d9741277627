"""Settings → Online: the server's address (empty: offline), creating an account,
signing in and out.

Every call to the server runs in the background (:func:`blockyard.online.run_in_background`);
the screen polls it each frame, shows "Connecting…" meanwhile and, when it
fails, a sentence in the player's language saying what happened and what to do
(:mod:`.errors`), so the window never waits on the network.
What is kept (address, account name, token — never the password) is the
player's :class:`~.account.OnlineAccount`, saved at once.

Keys: Tab/↓ and Shift+Tab/↑ move between the fields and buttons, typing fills
the field in focus (Ctrl+V pastes, Ctrl+C copies the field; the password is
never copied), Enter on the address saves it and moves to the account name, on
the name moves to the password, on the password signs in, on a
button presses it; Esc goes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

from blockyard import accountrules
from blockyard.online import (
    BAD_ADDRESS,
    BAD_NAME,
    BAD_PASSWORD,
    Client,
    OnlineError,
    Pending,
    run_in_background,
)

from .. import theme
from ..i18n import _, format_number
from ..layout import Rect
from ..text import Text
from ..widgets import (
    Button,
    fit_text,
    focus_buttons,
    hover_buttons,
    is_back_tab,
    pointer_focus,
    screen_scale,
)
from .account import OnlineAccount
from .errors import LOG, kind_text, online_error_text

if TYPE_CHECKING:
    from ..session import Host

MAX_FIELD = 200


class TextField:
    """A one-line text field: a label above a box with the value (``secret``: shown
    as dots). The view routes typed text and keys to the field in focus."""

    def __init__(self, label: str, value: str = "", *, secret: bool = False,
                 longest: int = MAX_FIELD) -> None:
        self.value = value
        self.secret = secret
        self.longest = longest
        self.rect = Rect(0, 0, 0, 0)
        self.label = Text(label, 0, 0, theme.MUTED, 13, font_name=theme.FONT,
                          anchor_y="bottom")
        self.text = Text("", 0, 0, theme.TEXT, 17, font_name=theme.FONT, anchor_y="center")

    def place(self, rect: Rect, scale: float) -> None:
        self.rect = rect
        self.label.x, self.label.y = rect.left, rect.top + 2 * scale
        fit_text(self.label, rect.width, 22 * scale, 13 * scale, smallest=8.0)
        self.text.x, self.text.y = rect.left + 10 * scale, rect.center_y
        self.text.font_size = 17 * scale
        self.size = 17 * scale

    def shown(self, focused: bool) -> str:
        return ("•" * len(self.value) if self.secret else self.value) + ("|" if focused else "")

    def type(self, text: str) -> bool:
        """Add printable ``text`` (up to the field's length); whether anything changed."""
        printable = "".join(ch for ch in text if ch.isprintable() and ch not in "\r\n\t")
        if not printable:
            return False
        self.value = (self.value + printable)[:self.longest]
        return True

    def draw(self, focused: bool) -> None:
        r = self.rect
        arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top,
                                          theme.PANEL_HOVER if focused else theme.PANEL)
        if focused:
            arcade.draw_lrbt_rectangle_outline(r.left, r.right, r.bottom, r.top, theme.ACCENT, 2)
        self.label.draw()
        shown = self.shown(focused)
        if self.text.text != shown:
            self.text.text = shown
            fit_text(self.text, r.width - 20, r.height, self.size, smallest=8.0)
        self.text.draw()


class BackgroundScreen(arcade.View):
    """A screen that runs one online call at a time in the background."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: Pending[Any] | None = None
        self.pending_done: Callable[[Any], None] = lambda _result: None
        self.pending_failed: Callable[[OnlineError], bool] | None = None
        self.message = ""
        self.message_bad = False
        self.pending_quiet = False

    message_box: tuple[float, float, float] = (0.0, 0.0, 14.0)
    """The room of the screen's message line: width, height and font size (set by
    its layout), so that every sentence fits it, in every language."""

    def fit_message(self, text: Text) -> None:
        """Make ``text`` (the message line) fit :attr:`message_box`."""
        wide, high, size = self.message_box
        if wide > 0 and high > 0:
            fit_text(text, wide, high, size, smallest=7.0)

    def start(self, call: Callable[[], Any], done: Callable[[Any], None],
              failed: Callable[[OnlineError], bool] | None = None, *,
              quiet: bool = False) -> None:
        """Run ``call`` in the background; ``done(result)`` when it succeeded.
        A failure is said in the message line, unless ``failed(error)`` (when
        given) returns True: it took care of it. ``quiet``: the message line is
        left as it is (a refresh the player did not ask for)."""
        self.pending = run_in_background(call)
        self.pending_done = done
        self.pending_failed = failed
        self.pending_quiet = quiet
        if not quiet:
            self.say(_("Connecting…"))

    message_text: Text
    """The message line (each screen makes it; its layout places it)."""

    def say(self, message: str, bad: bool = False) -> None:
        """Show ``message`` in the message line (``bad``: as a failure)."""
        self.message, self.message_bad = message, bad
        if hasattr(self, "message_text"):
            self.show_message()
        self.refresh()

    def show_message(self) -> None:
        """Put :attr:`message` in :attr:`message_text`, fitted to the line and
        coloured as good or bad news."""
        text = self.message_text
        if text.text != self.message:
            text.text = self.message
        self.fit_message(text)
        text.color = theme.BAD if self.message_bad else theme.MUTED

    def refresh(self) -> None:
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def on_update(self, delta_time: float) -> None:
        pending = self.pending
        if pending is None or not pending.done:
            return
        self.pending = None
        if pending.failure is not None:
            failed = self.pending_failed
            if failed is None or not failed(pending.failure):
                self.say(online_error_text(pending.failure), bad=True)
        else:
            if not self.pending_quiet:
                self.say("")
            self.pending_done(pending.result)

    def animating(self) -> bool:
        """Draw every frame while a call is under way."""
        return self.pending is not None


class OnlineSettingsView(BackgroundScreen):
    """Settings → Online. ``account`` is the app's (saved here on every change);
    ``changed()`` is called after it changed (the launcher's entries follow it)."""

    def __init__(self, account: OnlineAccount, back: Callable[[], None],
                 changed: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.account = account
        self.back = back
        self.changed = changed or (lambda: None)
        self.server = TextField(_("Server address (empty: play offline)"), account.server)
        # the rules are said before the player types (the server stays the judge)
        self.name = TextField(_("Account name: {least}–{most} letters, digits, _ or -").format(
            least=format_number(accountrules.NAME_MIN),
            most=format_number(accountrules.NAME_MAX)), account.name,
            longest=accountrules.NAME_MAX)
        self.password = TextField(_("Password: {least} characters or more").format(
            least=format_number(accountrules.PASSWORD_MIN)), secret=True,
            longest=accountrules.PASSWORD_MAX)
        self.fields = [self.server, self.name, self.password]
        self.save_button = Button(_("Save address"), self.save_address, font_size=16)
        self.create_button = Button(_("Create account"), self.create_account, font_size=16)
        self.sign_in_button = Button(_("Sign in"), self.sign_in, font_size=16, color="GO")
        self.sign_out_button = Button(_("Sign out"), self.sign_out, font_size=16)
        self.back_button = Button(_("Back"), back, font_size=16)
        self.buttons = [self.save_button, self.create_button, self.sign_in_button,
                        self.sign_out_button, self.back_button]
        self.focus = 0  # fields first, then the buttons
        self.ready = False  # text typed with the key that opened the screen is not input
        self.title = Text(_("Online play"), 0, 0, theme.TEXT, 28, font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
        self.status = Text("", 0, 0, theme.TEXT, 15, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="top", multiline=True, width=400,
                                 align="center")
        self.hint = Text(_("Tab next  Enter choose  Ctrl+V paste  Esc back"), 0, 0, theme.MUTED,
                         12, font_name=theme.FONT, anchor_x="center", anchor_y="bottom",
                         multiline=True, width=400, align="center")
        self._layout()

    # -- what it shows -----------------------------------------------------------------

    def status_line(self) -> str:
        """Where the player stands: offline, a server without an account, or signed in."""
        if not self.account.online:
            return _("Offline: no server is set.")
        if self.account.signed_in:
            return _("Signed in as {name} on {server}.").format(name=self.account.name,
                                                                server=self.account.server)
        return _("Server {server}: not signed in.").format(server=self.account.server)

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.9, 560 * scale)
        left = width / 2 - wide / 2
        self.title.x, self.title.y = width / 2, height - 44 * scale
        fit_text(self.title, wide, 44 * scale, 28 * scale)
        self.status.width = int(wide)
        self.status.x, self.status.y = width / 2, height - 92 * scale
        self.status.font_size = 15 * scale
        self.hint.width = int(width - 16)
        self.hint.x, self.hint.y = width / 2, 4 * scale
        self.hint.font_size = max(9.0, 12 * scale)
        # the fields and the buttons share the height between the status and the hint
        top = height - 120 * scale
        bottom = 4 * scale + self.hint.content_height + 8 * scale
        message_room = 60 * scale
        rows = 3 + 3  # three fields; buttons in three rows (two, two, one)
        step = max(34 * scale, min(78 * scale, (top - bottom - message_room) / rows))
        field_h = min(46 * scale, step * 0.58)
        y = top
        for field in self.fields:
            field.place(Rect(left, y - step + 4 * scale, wide, field_h), scale)
            y -= step
        self.message_text.width = int(wide)
        self.message_text.x, self.message_text.y = width / 2, y + 4 * scale
        self.message_text.font_size = 14 * scale
        self.message_box = (wide, message_room, 14 * scale)
        y -= message_room
        half = (wide - 10 * scale) / 2
        button_h = min(48 * scale, step * 0.8)
        places = [(left, y), (left + half + 10 * scale, y),
                  (left, y - step), (left + half + 10 * scale, y - step)]
        for button, (bx, by) in zip(self.buttons[:4], places, strict=True):
            button.place(Rect(bx, by - button_h, half, button_h), 16 * scale)
        self.back_button.place(Rect(width / 2 - half / 2, y - 2 * step - button_h, half,
                                    button_h), 16 * scale)
        self.refresh()

    def refresh(self) -> None:
        self.status.text = self.status_line()
        self.show_message()
        busy = self.pending is not None
        self.save_button.enabled = not busy
        # signed in: the account is there (Sign out first to use another)
        self.create_button.enabled = not busy and not self.account.signed_in and (
            self.account.online or bool(self.server.value.strip()))
        self.sign_in_button.enabled = self.create_button.enabled
        self.sign_out_button.enabled = not busy and self.account.signed_in
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    # -- the actions -------------------------------------------------------------------

    def _apply_address(self) -> bool:
        """Take the typed address (saved when it changed); False (and a message)
        when it is not an address."""
        try:
            before = self.account.server
            self.account.set_server(self.server.value)
        except ValueError as exc:
            LOG.warning("online: %s", exc)
            self.say(kind_text(BAD_ADDRESS), bad=True)
            return False
        if self.account.server != before:
            if not self._save():
                return False
            self.changed()
        return True

    def _save(self) -> bool:
        try:
            self.account.save()
        except OSError as exc:
            self.say(_("The online account could not be saved ({reason}).").format(
                reason=exc.strerror or exc), bad=True)
            return False
        return True

    def save_address(self) -> None:
        """Save the typed address; a set server is asked whether it answers."""
        if self.pending is not None or not self._apply_address():
            return
        if not self.account.online:
            self.say(_("Offline: nothing is sent anywhere."))
            return
        client = Client(self.account.server, timeout=10)
        self.start(client.health,
                    lambda version: self.say(_("The server answers (Blockyard {version}).")
                                             .format(version=version)))

    def _account_call(self, create: bool) -> None:
        if self.pending is not None or not self._apply_address():
            return
        if self.account.signed_in:  # (Enter on the password: the buttons are off)
            self.say(_("You are signed in. Sign out first to use another account."))
            self.focus = len(self.fields) + self.buttons.index(self.sign_out_button)
            return
        if not self.account.online:
            self.say(_("Type the server's address first."), bad=True)
            self.focus = 0
            return
        name, password = self.name.value.strip(), self.password.value
        if not name or not password:
            self.say(_("Type the account name and the password."), bad=True)
            self.focus = 1 if not name else 2
            return
        if create and accountrules.name_problem(name) is not None:
            self.say(kind_text(BAD_NAME), bad=True)  # checked here, before sending
            self.focus = 1
            return
        if create and accountrules.password_problem(password) is not None:
            self.say(kind_text(BAD_PASSWORD), bad=True)
            self.focus = 2
            return
        client = Client(self.account.server, timeout=10)
        server = self.account.server

        def call() -> str:
            if create:
                client.create_account(name, password)
            return client.sign_in(name, password)

        def done(token: str) -> None:
            if self.account.server != server:  # the address changed meanwhile
                return
            self.account.name, self.account.token = name, token
            self.password.value = ""
            if self._save():
                self.changed()
                # done here: Back is next, and the button pressed no longer looks chosen
                self.focus = len(self.fields) + self.buttons.index(self.back_button)
                hover_buttons(self.buttons, -1, -1)
                self.say(_("Account created and signed in.") if create
                         else _("Signed in."))

        self.start(call, done)

    def create_account(self) -> None:
        """Create the typed account on the server and sign in with it."""
        self._account_call(create=True)

    def sign_in(self) -> None:
        """Sign in with the typed name and password."""
        self._account_call(create=False)

    def sign_out(self) -> None:
        """Forget the token here and revoke it on the server (when it answers)."""
        if self.pending is not None or not self.account.signed_in:
            return
        client = Client(self.account.server, self.account.token, timeout=10)
        self.account.sign_out()
        if not self._save():
            return
        self.changed()
        self.name.value = ""
        self.start(client.sign_out, lambda _none: self.say(_("Signed out.")))

    def on_update(self, delta_time: float) -> None:
        self.ready = True
        super().on_update(delta_time)

    # -- drawing and input -------------------------------------------------------------

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.status.draw()
        for i, field in enumerate(self.fields):
            field.draw(i == self.focus)
        self.message_text.draw()
        focus_buttons(self.buttons, self.focused_button)
        for button in self.buttons:
            button.draw()
        self.hint.draw()

    @property
    def focused_field(self) -> TextField | None:
        """The text field with the keyboard's focus (``None``: a button has it)."""
        return self.fields[self.focus] if self.focus < len(self.fields) else None

    @property
    def focused_button(self) -> Button | None:
        """The button with the keyboard's focus (``None``: a text field has it)."""
        index = self.focus - len(self.fields)
        return self.buttons[index] if 0 <= index < len(self.buttons) else None

    def move_focus(self, step: int) -> None:
        hover_buttons(self.buttons, -1, -1)  # the focus alone shows what is chosen
        count = len(self.fields) + len(self.buttons)
        for _i in range(count):  # skip the buttons that cannot be pressed now
            self.focus = (self.focus + step) % count
            index = self.focus - len(self.fields)
            if index < 0 or self.buttons[index].enabled:
                return

    def on_text(self, text: str) -> None:
        field = self.focused_field
        if self.ready and field is not None and field.type(text):
            self.say("")

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        field = self.focused_field
        ctrl = bool(modifiers & (key.MOD_CTRL | key.MOD_COMMAND))
        if symbol == key.ESCAPE:
            self.back()
            return
        if ctrl and symbol == key.V and field is not None:
            field.type(self.window.get_clipboard_text())
        elif ctrl and symbol == key.C and field is not None and not field.secret:
            self.window.set_clipboard_text(field.value)
        elif symbol == key.BACKSPACE and field is not None:
            field.value = field.value[:-1]
        elif symbol == key.TAB or is_back_tab(symbol, modifiers):
            self.move_focus(-1 if is_back_tab(symbol, modifiers) else 1)
        elif symbol == key.DOWN:
            self.move_focus(1)
        elif symbol == key.UP:
            self.move_focus(-1)
        elif symbol in (key.ENTER, key.RETURN, key.NUM_ENTER):
            if field is self.server:  # saved; the account name is typed next
                self.save_address()
                if self.account.online and not self.message_bad:
                    self.focus = self.fields.index(self.name)
            elif field is self.name:
                self.move_focus(1)
            elif field is self.password:
                self.sign_in()
            else:
                button = self.buttons[self.focus - len(self.fields)]
                if button.enabled:
                    button.action()
                    return
        elif symbol == key.SPACE and field is None:
            button = self.buttons[self.focus - len(self.fields)]
            if button.enabled:
                button.action()
                return
        self.refresh()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if self.focused_field is not None:  # typing: the pointer does not take the focus
            hover_buttons(self.buttons, x, y)
            return
        found = pointer_focus(self.buttons, x, y)
        if found is not None and len(self.fields) + found != self.focus:
            self.focus = len(self.fields) + found
            self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        for i, field in enumerate(self.fields):
            if field.rect.contains(x, y):
                self.focus = i
                hover_buttons(self.buttons, -1, -1)
                self.refresh()
                return
        for i, item in enumerate(self.buttons):
            if item.hit(x, y):
                self.focus = len(self.fields) + i
                item.action()
                return


def open_online_settings(host: Host, back: Callable[[], None] | None = None
                         ) -> OnlineSettingsView:
    """Settings → Online of the app's account; ``back`` (the launcher by default)
    leaves it."""
    return OnlineSettingsView(host.online, back or host.show_launcher)


__all__ = ["BackgroundScreen", "OnlineSettingsView", "TextField", "open_online_settings"]
