"""The console's widgets: text panes and the confirmation before a push."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class Pane(Static):
    """A bordered block of plain text (no markup: events hold brackets).

    :attr:`text` is what the pane shows, as plain text."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.border_title = title
        self.text = ""

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            from .colour import coloured

            self.update(coloured(text))


class Confirm(ModalScreen[bool]):
    """A yes/no question; dismissed with True only on an explicit yes."""

    BINDINGS = [
        Binding("y", "answer(True)", "yes"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, yes: str = "yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question), id="question")
            with Horizontal(id="answers"):
                yield Button(f"{self.yes} (y)", id="yes", variant="warning")
                yield Button("cancel (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
