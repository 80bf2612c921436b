"""The console application (Textual).

The link's notes come through the source's inbox (a queue filled on the
link's thread) and are drained here, on the UI thread, every ``poll``
seconds: the verifier judges each event first, then the link and game views
follow it, and the panes are redrawn from those views.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Footer, Input, Static

from ..errors import CommandError
from ..events import Bid, Challenge, Event, Reject
from ..link.notes import App as AppNote
from ..link.notes import (
    Conflict,
    DeviceLine,
    Down,
    Incompatible,
    Note,
    Reboot,
    Rollback,
    SnapshotDone,
    SnapshotIn,
    Synced,
    Up,
    detail_of,
    kind_of,
    note_words,
    typed,
)
from ..link.verifier import Verifier
from ..vocab.enums import AppCode, readers_status
from .colour import coloured
from .model import GameView, LinkView, describe_event
from .source import APP_LINES, APP_REPLY, APP_STATE, TableSource
from .textlog import TextLog as Log
from .widgets import Confirm, Pane

if TYPE_CHECKING:
    from ..records.recorder import Recorder

#: at most this many inbox items per drain, so that a burst never freezes the screen
DRAIN_MAX = 2000
#: and at most this long (seconds): keys wait for the drain, never the other way
DRAIN_BUDGET = 0.03
#: below this width the link pane becomes two lines above the others (80x24 fits)
WIDE = 120
#: how often a real table is asked for its display lines (seconds)
DISPLAY_POLL = 1.0
#: the tap input while the bots play
TAPS_OFF = "taps are off while the bots play"
#: from this many rows the top panes are higher (console.tcss: Screen.-tall)
TALL = 40
#: the top panes' rows, short and tall (console.tcss's #top)
TOP_ROWS = {False: 10, True: 14}
#: the pixel view's scales, tried in order: pixels per half block, 1 the whole
#: frame 1:1 (128x32 characters) to 4 (32x8)
PIXEL_SCALES = (1, 2, 3, 4)
#: what the pixel view leaves the others: the columns beside it (the game; the
#: link pane too when wide) and the event log's rows
PIXEL_ROOM_NARROW, PIXEL_ROOM_WIDE, EVENTS_MIN_ROWS = 30, 50, 5


def _fit(lines: list[str], width: int) -> str:
    """The first of these (longest first) that fits, or the last cut to fit."""
    for line in lines:
        if len(line) <= width:
            return line
    return lines[-1][: width - 1] + "…"


class TapInput(Input):
    """The tap input: empties itself at the enter, as the key comes, not when
    the app gets to the line (keys typed meanwhile are kept)."""

    async def action_submit(self) -> None:
        value = self.value
        self.value = ""
        self.post_message(self.Submitted(self, value, None))

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            # here, in the order of the keys, not as a binding: a binding is
            # looked up where the focus is when the key reaches the app, and an
            # escape typed right after the enter may have moved it already
            event.stop()
            event.prevent_default()
            await self.action_submit()
            return
        await super()._on_key(event)


class ConsoleApp(App[int]):
    """The operator's console for one table."""

    CSS_PATH = Path(__file__).with_name("console.tcss")
    TITLE = "tractor-table console"
    #: the screen's classes by size (console.tcss): -narrow below WIDE columns, -tall from 40 rows
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "push", "push"),
        Binding("s", "status", "status"),
        # t and escape move the focus: priority bindings, run as the key comes in,
        # so that the keys typed after them (already on their way) go where the
        # focus is then, even on a slow machine (check_action lets t be typed
        # in the input, and escape close a question)
        Binding("t", "tap", "tap", priority=True),
        Binding("d", "pixels", "pixels"),
        Binding("space", "pause", "pause/go"),
        Binding("n", "step", "step"),
        Binding("plus,equals_sign", "faster", "faster", key_display="+"),
        Binding("minus", "slower", "slower", key_display="-"),
        Binding("escape", "leave_input", "leave input", show=False, priority=True),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self,
        source: TableSource,
        verifier: Verifier,
        *,
        recorder: Recorder | None = None,
        poll: float = 0.05,
        lang: str = "en",
    ) -> None:
        super().__init__()
        from . import model

        model.LANG["cards"] = lang  # the card names of the event log and the game pane
        self.source = source
        self.verifier = verifier
        #: tractor_table.records: every note kept in SQLite with the verifier's verdict
        self.recorder = recorder
        self._feed = recorder.follow(verifier) if recorder is not None else verifier.on_note
        self._records_told = False
        self.poll = poll
        self.link_view = LinkView(port=source.port)
        self.game = GameView()
        self.remote_lines: list[str] | None = None  # the display, as a real table sent it
        self._asked_display = -1.0
        self.messages: list[str] = []  # everything said on the message line, in order
        self.sent = 0  # taps and presses sent to the table from the tap input
        self.bot_lines: list[str] = []
        self.bots_state = "the bots are playing" if source.bots else ""
        self.closing = False
        self.disagreement_count = 0
        self.verifier_lost = ""  # why the verifier stopped (an exception in it), if it did
        self._display_due = 0.0
        #: the display pane shows the pixels too (Unicode half blocks), key d
        self.show_pixels = False
        self._pixels_cache: tuple[tuple[tuple[str, ...], int] | None, str] = (None, "")
        self._pixel_layout: tuple[int, int] | None = None  # the display pane's (width, top's height)
        self._tap_placeholder = ""  # the tap input's own (compose)
        from shengji import Rules

        from ..tablewatch import TableWatch

        #: the table's phase from its events, to label a refusal with it (the
        #: table's trick number means nothing during the draw or the burial)
        self.table_watch = TableWatch(getattr(source, "rules", None) or Rules(decks=source.decks))

    # --- layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="linkbar", markup=False)
        with Horizontal(id="top"):
            yield Pane("link", id="link")
            yield Pane("table display", id="display")
            yield Pane("game", id="game")
        with Horizontal(id="bottom"):
            events = Log(id="events", max_lines=5000)
            events.border_title = "events"
            yield events
            dis = Log(id="disagreements", max_lines=2000)
            dis.border_title = "disagreements: 0"
            yield dis
        yield Static("", id="message", markup=False)
        from ..tapgrammar import CONSOLE_HELP

        tap = TapInput(placeholder=CONSOLE_HELP.replace("commands: ", ""), id="tap")
        tap.display = self.source.can_tap
        self._tap_placeholder = tap.placeholder
        yield tap
        yield Footer(compact=True, show_command_palette=False)  # every key on 80 columns

    def on_mount(self) -> None:
        self.query_one("#events", Log).focus()
        self._drain_timer = self.set_interval(self.poll, self.drain)
        self.source.start_bots()
        self.refresh_panes()

    # --- the link's notes ----------------------------------------------------------

    def torn_down(self) -> bool:
        """True once the app is being shut down (its screens going away): a
        timer's late tick then shows nothing."""
        return not self.is_running or not self.screen_stack

    def drain(self) -> None:
        """Take what the link (and the bots) sent since the last call."""
        if self.torn_down():
            return
        try:
            self._drain()
        except (NoMatches, ScreenStackError):
            if not (self.closing or self.torn_down()):
                raise
            # the screen is being taken down: what is left is not shown

    def _drain(self) -> None:
        budget = time.monotonic() + DRAIN_BUDGET
        for _ in range(DRAIN_MAX):
            if time.monotonic() > budget:
                break  # the rest at the next tick: keys and the screen go first
            try:
                kind, value = self.source.inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "note":
                self._note(value)
            elif kind == "bots":
                self._bots(str(value))
            elif kind in ("bots_seed", "club"):
                self.say(str(value))
            elif kind in ("bots_done", "bots_error"):
                self.bots_state = str(value)
                self.say(str(value))
        self._poll_display()
        # always: the display changes without events (messages time out), and a
        # port that does not open says so only in the link's last error
        self.refresh_panes()

    def _note(self, raw: Note | list[Any]) -> None:
        note = typed(raw)
        v = self.verifier
        before = (v.checked, v.agreed, v.unchecked, len(v.disagreements))
        if not self.verifier_lost:
            try:
                self._feed(note)  # the verifier judges, the recorder keeps both
            except Exception as exc:  # noqa: BLE001 - the console must outlive a replayer's bug
                self.verifier_lost = f"{type(exc).__name__}: {exc}"
                self.say(f"the verifier stopped at {kind_of(note)} {detail_of(note)[:1]}: {self.verifier_lost}")
        elif self.recorder is not None:
            self.recorder.on_note(note)
        rec = self.recorder
        if rec is not None and rec.failed and not self._records_told:
            self._records_told = True
            self.say(f"records {rec.store.path}: {rec.failed}")
        self.link_view.on_note(note)
        self.game.on_note(note)
        log = self.query_one("#events", Log)
        match note:
            case Event() as ev:
                verdict = self._verdict(before)
                text = self._describe(ev)
                if isinstance(ev, Reject):
                    self.game.last_refusal = text  # with the phase, as in the log
                log.write_line(f"{ev.index:5d}  {text}  [{verdict}]")
                if self._refused(ev):
                    self.say(f"the table refused: {text}")
            case Up() as up:
                log.write_line(
                    f"----- link up: firmware {up.fw_version}, rules {up.rules_id}, boot {up.boot_id:08x}, "
                    f"{up.count} events on the table"
                )
                if v.refused:
                    self.say(v.refused)
            case SnapshotDone() as done:
                verdict = "taken by the table" if done.ok else f"refused by the table: {done.reason}"
                self.say(f"push: snapshot {done.id} {verdict}")
                log.write_line(f"----- push: snapshot {done.id} {verdict}")
            case AppNote(payload=payload):
                self._app_message(payload)
            case DeviceLine(text=text):
                log.write_line(f"----- table says: {text}")
            case Rollback() | SnapshotIn():
                self.table_watch.phase = ""  # not known again until the next hand starts
                log.write_line(f"----- link {note_words(note)}")
            case Down() | Reboot() | Conflict() | Incompatible() | Synced():
                log.write_line(f"----- link {note_words(note)}")
            case _:
                pass
        for d in v.disagreements[before[3] :]:
            self._disagreement(d.show())

    def _describe(self, ev: Event) -> str:
        from ..tablewatch import describe_in

        try:
            text = describe_in(ev, self.table_watch)
            self.table_watch.on_event(ev)
            return text
        except (IndexError, KeyError, TypeError, ValueError):
            return describe_event(ev)

    def _verdict(self, before: tuple[int, int, int, int]) -> str:
        v = self.verifier
        if self.verifier_lost:
            return "not verified: the verifier stopped"
        if len(v.disagreements) > before[3]:
            return "DISAGREES"
        if v.refused:
            return "not verified"
        if v.agreed > before[1]:
            return "agreed"
        return "not judged"

    @staticmethod
    def _refused(ev: Event) -> bool:
        return isinstance(ev, Reject) or (isinstance(ev, (Bid, Challenge)) and not ev.accepted)

    def _app_message(self, msg: Sequence[Any]) -> None:
        if not msg:
            return
        if msg[0] == APP_LINES:
            self.remote_lines = [str(x) for x in msg[1:]]
            self._asked_display = -1.0
        elif msg[0] == AppCode.READERS and len(msg) >= 2:
            text = readers_status(msg[1])
            self.query_one("#events", Log).write_line(f"----- {text}")
            if msg[1]:
                self.say(text)
        elif msg[0] == APP_REPLY and len(msg) >= 4 and msg[1] != APP_STATE:
            answer = "done" if msg[2] == 0 else f"refused: {msg[3]}"
            self.query_one("#events", Log).write_line(f"----- table command {msg[1]}: {answer}")

    def _bots(self, text: str) -> None:
        self.bot_lines.append(text)
        del self.bot_lines[:-200]
        if "DISAGREEMENT" in text:
            self._disagreement("bots (the deal known): " + text.strip())

    def _disagreement(self, text: str) -> None:
        dis = self.query_one("#disagreements", Log)
        dis.write_lines(text.splitlines())
        self.disagreement_count += 1
        dis.border_title = f"disagreements: {self.disagreement_count}"

    def _poll_display(self) -> None:
        """A real table: ask for its display lines now and then (APP 101)."""
        link = self.source.link
        if self.source.display() is not None or link is None or not link.synced():
            return
        now = time.monotonic()
        if self._asked_display < 0 or now - self._asked_display > 3 * DISPLAY_POLL:
            if self._display_due <= now:
                link.send_app([APP_STATE])
                self._asked_display = now
                self._display_due = now + DISPLAY_POLL

    # --- the panes ----------------------------------------------------------------

    def link_text(self, compact: bool = False, width: int = 78) -> str:
        """The link pane's text; ``compact``: the two lines of the link bar,
        each made to fit ``width`` (shorter words first, the bots' state and
        pace before the records' file, then the end cut)."""
        lv = self.link_view
        link = self.source.link
        if link is not None and lv.state in ("connecting", "down") and link.last_error:
            lv.last_error = link.last_error
        v = self.verifier
        if self.verifier_lost:
            judged = "stopped (see the message line)"
        elif v.refused:
            judged = "not verifying (rules differ)"
        else:
            judged = f"{v.checked} judged, {v.agreed} agreed, {len(v.disagreements)} disagree"
        rec = self.recorder
        if rec is None:
            records = short_records = "off"
        elif rec.failed:
            records = short_records = "stopped (see the message line)"
        else:
            records = f"{rec.store.path.name}: {rec.new_events} new event(s)"
            short_records = f"{rec.store.path.name} +{rec.new_events}"
        bots = ""
        playing = self.source.bots_playing or self.bots_state == "the bots are playing"
        if self.bots_state:
            # "done" once the bots' last word is drained: every event before it is shown
            if playing:
                bots = "playing" + self._pace_text()
            elif self.bots_state.startswith("the bots stopped"):
                bots = "stopped (see the message line)"
            else:
                bots = "done"
        if not compact:
            text = lv.text() + f"\nverifier  {judged}\nrecords   {records}"
            if bots:
                text += f"\nbots      {bots}"
            return text
        # two lines above the other panes (80 columns)
        if not (self.verifier_lost or v.refused):
            judged = f"{v.agreed}/{v.checked} agreed, {len(v.disagreements)} disagree"
        if playing:
            bots = "playing" + self._pace_text(compact=True)
        first = lv.text(compact=True)
        firsts = [first]
        if not lv.last_error:  # the boot id goes first (the wide pane and the status have it)
            firsts.append(first.rsplit(" · boot ", 1)[0])
        seconds = [f"verifier {judged} · records {records}" + (f" · bots {bots}" if bots else "")]
        if bots:
            seconds += [f"bots {bots} · verifier {judged} · records {short_records}",
                        f"bots {bots} · {judged} · records {short_records}",
                        f"bots {bots} · {judged} · {short_records}"]
        else:
            seconds += [f"verifier {judged} · records {short_records}"]
        return "\n".join(_fit(lines, width) for lines in (firsts, seconds))

    def _pace_text(self, compact: bool = False) -> str:
        pacer = getattr(self.source, "pacer", None)
        if pacer is None:
            return ""
        if pacer.paused:
            return " (paused)" if compact else " (paused: space goes on, n steps)"
        if compact:
            return f", pace {pacer.pace:g} s" if pacer.pace else ", full speed"
        return f" (pace {pacer.pace:g} s, + faster, - slower)" if pacer.pace else " (full speed; - slower)"

    def display_lines(self) -> list[str] | None:
        """The table's eight display lines, if known."""
        lines = self.source.display()
        return list(lines) if lines is not None else self.remote_lines

    def display_text(self) -> str:
        lines = self.display_lines()
        if self.show_pixels:
            return self.pixels_text(lines)
        if lines is None:
            return "(not known yet)"
        return "\n".join("|" + line.ljust(16) + "|" for line in lines)

    # --- the pixel view (key d) -------------------------------------------------------

    def pixel_room(self, width: int, height: int) -> tuple[int, int]:
        """The characters (columns, lines) the display pane can give the pixels
        in a terminal of this size, leaving the game pane (and the link pane when
        wide) its columns and the event log its rows."""
        narrow = width < WIDE
        cols = width - (PIXEL_ROOM_NARROW if narrow else PIXEL_ROOM_WIDE) - 2
        rows = height - self._rows_taken(narrow) - 2
        return cols, rows

    def _rows_taken(self, narrow: bool) -> int:
        """Rows that are not the top panes': the link bar (narrow), the message
        line (two at most), the tap input, the keys, the event log's least."""
        return (2 if narrow else 0) + 2 + (1 if self.source.can_tap else 0) + 1 + EVENTS_MIN_ROWS

    def pixel_scale(self, size: tuple[int, int] | None = None) -> int | None:
        """Pixels per half block for a terminal of this size (the app's own by
        default): 1 draws the whole frame 1:1 (128x32 characters), more draws it
        smaller; None: even the smallest does not fit."""
        from ..monoframe import block_size

        width, height = size if size is not None else self.size
        cols, rows = self.pixel_room(width, height)
        for scale in PIXEL_SCALES:
            need_cols, need_rows = block_size(scale)
            if need_cols <= cols and need_rows <= rows:
                return scale
        return None

    def pixels_need(self, scale: int) -> tuple[int, int]:
        """The smallest terminal (columns, rows) that shows the pixels at this scale."""
        from ..monoframe import block_size

        cols, rows = block_size(scale)
        width = cols + 2 + PIXEL_ROOM_NARROW
        narrow = width < WIDE
        if not narrow:
            width = max(WIDE, cols + 2 + PIXEL_ROOM_WIDE)
        return width, rows + 2 + self._rows_taken(narrow)

    def pixels_text(self, lines: list[str] | None) -> str:
        """The pixel view: the frame firmware/display.py draws for these lines
        (in framebuf's own font), whole, as half blocks, scaled down to fit; or
        why it does not fit and what size would."""
        scale = self.pixel_scale()
        if scale is None:
            w, h = self.size
            nw, nh = self.pixels_need(PIXEL_SCALES[-1])
            return f"the pixels need a terminal of {nw}x{nh} or more (this one is {w}x{h}); d: the text"
        if lines is None:
            return "(not known yet)"
        key = (tuple(lines), scale)
        if self._pixels_cache[0] != key:
            from ..monoframe import Frame
            from ..screens import frame_of_lines

            self._pixels_cache = (key, "\n".join(Frame(frame_of_lines(lines)).half_blocks(scale)))
        return self._pixels_cache[1]

    def _place_pixels(self) -> None:
        """The display pane's size: 20 columns for the text; with the pixels, as
        wide and high as the frame at its scale (console.tcss's otherwise)."""
        from ..monoframe import block_size

        scale = self.pixel_scale() if self.show_pixels else None
        pane = self.query_one("#display", Pane)
        top = self.query_one("#top")
        if scale is None:
            layout: tuple[int, int] | None = None
            title = "no room: pixels" if self.show_pixels else "table display"
        else:
            cols, rows = block_size(scale)
            layout = (cols + 2, max(TOP_ROWS[self.size.height >= TALL], rows + 2))
            title = "pixels 1:1" if scale == 1 else f"pixels 1/{scale}"
        if layout != self._pixel_layout:
            self._pixel_layout = layout
            pane.styles.width = layout[0] if layout else None
            top.styles.height = layout[1] if layout else None
        pane.border_title = title

    def action_pixels(self) -> None:
        """Key d: the display pane shows the panel's pixels, or its eight lines."""
        self.show_pixels = not self.show_pixels
        if not self.show_pixels:
            self.say("display: the eight lines (d: the pixels)")
        else:
            scale = self.pixel_scale()
            w, h = self.size
            full = "x".join(map(str, self.pixels_need(1)))
            if scale == 1:
                self.say("pixels: the whole frame 1:1, 128x64 in 128x32 half blocks (d: the text)")
            elif scale is None:
                need = "x".join(map(str, self.pixels_need(PIXEL_SCALES[-1])))
                self.say(f"pixels: no room in {w}x{h}; the frame needs a terminal of {need} or more "
                         f"({full} for 1:1)")
            else:
                self.say(f"pixels: the whole frame at 1/{scale} (a block lit if any of its pixels is); "
                         f"1:1 needs {full}")
        self.refresh_panes()

    @property
    def compact(self) -> bool:
        """Below WIDE columns: the link in two lines on top, shorter game lines."""
        return self.size.width < WIDE

    def refresh_panes(self) -> None:
        """Every pane from the current state; nothing once the app is torn down
        (a refresh that comes after the screen went away must not crash the quit)."""
        if self.torn_down():
            return
        try:
            self._refresh_panes()
        except (NoMatches, ScreenStackError):
            if not self.torn_down():
                raise

    def _refresh_panes(self) -> None:
        compact = self.compact
        if compact:
            bar = self.query_one("#linkbar", Static)
            text = self.link_text(compact=True, width=max(self.size.width - 2, 10))
            if getattr(bar, "text", None) != text:
                bar.text = text  # type: ignore[attr-defined]
                bar.update(coloured(text))
        self.query_one("#link", Pane).set_text(self.link_text())  # hidden when compact
        self._place_pixels()
        self._tap_state()
        self.query_one("#display", Pane).set_text(self.display_text())
        self.query_one("#game", Pane).set_text(self.game.text(compact=compact))
        self.screen.set_class(self.disagreement_count > 0, "-disagreeing")
        self.query_one("#events", Log).border_title = f"events: {self.link_view.events}"
        self.query_one("#disagreements", Log).border_subtitle = self.verifier.summary()

    def _tap_state(self) -> None:
        """The tap input is off while the bots play (the table is theirs): it
        says so, and takes no keys; it is back when they are done."""
        if not self.source.can_tap:
            return
        tap = self.query_one("#tap", Input)
        off = self.source.bots_playing
        if tap.disabled != off:
            if off and self.focused is tap:
                self.set_focus(self.query_one("#events", Log))
            tap.disabled = off
            tap.placeholder = f"{TAPS_OFF} (space pauses, n steps, + faster, - slower)" if off else self._tap_placeholder

    def say(self, text: str) -> None:
        """A line on the message line (and kept in :attr:`messages`)."""
        self.messages.append(text)
        if self.torn_down():
            return  # kept in messages; no screen to show it on
        try:
            self.query_one("#message", Static).update(coloured(text))
        except (NoMatches, ScreenStackError):
            if not self.torn_down():
                raise

    # --- keys -----------------------------------------------------------------------

    def action_status(self) -> None:
        link = self.source.link
        parts = [self.verifier.summary()]
        lv = self.link_view
        parts.append(f"link {lv.state}, {lv.events} events")
        if link is not None:
            parts.append(f"port opened {link.opened} time(s), {link.port_errors} port error(s)")
        if self.bots_state:
            parts.append(self.bots_state)
        self.say("status: " + "; ".join(parts))

    def action_push(self) -> None:
        if self.closing or isinstance(self.screen, Confirm):
            return
        link = self.source.link
        if link is None or not link.synced():
            self.say("push: the link is not synced; wait until the link pane says 'synced'")
            return
        if self.verifier_lost or self.verifier.replayer.name == "trusting":
            why = "it stopped" if self.verifier_lost else "it judges nothing (--no-verify)"
            self.say(f"push: the host has no state of its own to push ({why}); nothing was sent")
            return
        self.drain()
        question = (
            "Push the host's state to the table?\n\n"
            f"The full engine's view after event {self.verifier.next_index - 1} replaces the "
            "table's game state. The table checks the whole snapshot and swaps it in, or "
            "keeps its own state and refuses. Do this after a disagreement, when the host is "
            "right and the players agree."
        )
        self.push_screen(Confirm(question, yes="push"), self._push_answer)

    def _push_answer(self, yes: bool | None) -> None:
        if not yes:
            self.say("push cancelled: nothing was sent")
            return
        link = self.source.link
        if link is None:
            self.say("push: the link is closed; nothing was sent")
            return
        self.drain()
        if self.verifier.replayer.host_state() is None:
            self.say(
                "push: the host has no state to push now (only at a trick boundary of the "
                "play phase, while its engine follows the hand); nothing was sent"
            )
            return
        push: Callable[[bytes, int, int], int] = link.push_snapshot
        if self.recorder is not None:
            push = self.recorder.pushing(push)  # a snapshot the table takes is kept
        try:
            sid = self.verifier.push_host_state(push)
        except CommandError as exc:
            self.say(f"push: {exc}")
            return
        self.say(f"push: snapshot {sid} sent; waiting for the table's answer")

    def action_tap(self) -> None:
        if not self.source.can_tap:
            self.say(
                "taps need the virtual table: on a real table, tap the card at the seat's reader"
            )
            return
        if self.source.bots_playing:
            self.say(f"{TAPS_OFF}: nothing to type until they are done")
            return
        # at once, not later (Widget.focus waits its turn behind the keys already
        # typed): the keys after t go to the input even when the machine is slow
        self.set_focus(self.query_one("#tap", Input))

    def action_pause(self) -> None:
        pacer = getattr(self.source, "pacer", None)
        if pacer is None or not self.source.bots:
            self.say("pause: only the bots can be paused (--virtual --bots)")
            return
        paused = pacer.toggle()
        self.say("paused: space goes on, n plays one step" if paused else f"the bots play on{self._pace_text()}")
        self.refresh_panes()

    def action_step(self) -> None:
        pacer = getattr(self.source, "pacer", None)
        if pacer is None or not self.source.bots:
            self.say("step: only the bots play in steps (--virtual --bots)")
            return
        pacer.step()
        self.say("step: the bots play until the table's next event (space goes on)")
        self.refresh_panes()

    def action_faster(self) -> None:
        self._pace_key(faster=True)

    def action_slower(self) -> None:
        self._pace_key(faster=False)

    def _pace_key(self, *, faster: bool) -> None:
        """Keys + and -: the bots' pace one step faster or slower (console/pace.py's PACES)."""
        from . import pace as pacing

        pacer = getattr(self.source, "pacer", None)
        if pacer is None or not self.source.bots:
            self.say("pace: only the bots have a pace (--virtual --bots)")
            return
        was = pacer.pace
        pacer.set_pace(pacing.faster(was) if faster else pacing.slower(was))
        now = pacer.pace
        if now == was:
            self.say(f"pace: already the {'fastest (full speed)' if faster else 'slowest'}"
                     f"{'' if faster else f', {now:g} s between events'}")
        elif now:
            self.say(f"pace: {now:g} s between the table's events (was {was:g} s); + faster, - slower")
        else:
            self.say(f"pace: full speed, the bots play as fast as they can (was {was:g} s); - slower")
        self.refresh_panes()

    def action_leave_input(self) -> None:
        self.set_focus(self.query_one("#events", Log))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        in_input = isinstance(self.focused, Input)
        if action == "tap":
            return not in_input and not isinstance(self.screen, Confirm)
        if action == "leave_input":
            return in_input
        return True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # the input emptied itself at the enter (TapInput): what was typed after
        # the enter, before this message came, stays in it
        self.command(event.value)

    def command(self, line: str) -> bool:
        """One line of the tap input (the virtual console's commands); True if
        something was sent to the table."""
        from shengji.cards import card_id_name

        from ..events import EV
        from ..tapgrammar import parse_console

        try:
            parsed = parse_console(line, self.source.decks)
        except ValueError as exc:
            self.say(f"bad input: {exc}; nothing was sent")
            return False
        if parsed is None:
            return False
        verb, seat, card = parsed
        if verb == "quit":
            self.run_worker(self.action_quit())
            return False
        if verb == "show":
            shown = self.display_lines()
            self.say("display: " + (" / ".join(x.strip() for x in shown) if shown is not None else "(not known yet)"))
            return False
        if self.source.bots_playing:
            self.say("the bots are playing: wait until they are done; nothing was sent")
            return False
        try:
            if verb == "tap":
                self.source.tap(seat, card)
                what = f"tap {card_id_name(card)} at S{seat}"
            else:
                kinds = {"ok": EV.BTN_OK, "undo": EV.BTN_UNDO, "challenge": EV.BTN_CHALLENGE}
                self.source.press(seat, kinds[verb])
                what = f"{verb} at S{seat}"
        except CommandError as exc:
            self.say(f"{verb}: {exc}")
            return False
        self.sent += 1
        self.say(f"sent: {what}")
        return True

    async def action_quit(self) -> None:
        if self.closing:
            return
        self.closing = True
        self.say("closing the link and the table...")
        self.run_worker(self._close, thread=True, exit_on_error=False)

    def _close(self) -> None:
        try:
            self.source.close()
        finally:
            self.call_from_thread(self._after_close)

    def _after_close(self) -> None:
        self._drain_timer.stop()
        self.exit(0)

