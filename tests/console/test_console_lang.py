"""console --lang zh: the event log and the game pane name the cards in Chinese."""

from __future__ import annotations

import pytest
from tractor_table import cli
from tractor_table.console import model
from tractor_table.console.model import GameView, describe_event


def test_chinese_card_names_in_the_event_log_and_the_game_pane() -> None:
    try:
        model.LANG["cards"] = "zh"
        assert describe_event([6, 0, 1, 12, 66]) == "trick 1: S1 plays 黑桃A 黑桃A.1"
        assert describe_event([2, 1, 1, 0, 53]) == "S1 bids 大王: accepted"
        g = GameView()
        for ev in ([1, 1, 0, 2, 0, 0, 1], [3, 1, 1, 0], [6, 0, 0, 25], [6, 0, 1, 54 + 24]):
            g.add(ev)
        assert "红桃A" in g.text() and "红桃K.1" in g.text()
        model.LANG["cards"] = "en"
        assert describe_event([6, 0, 1, 12, 66]) == "trick 1: S1 plays AS AS.1"
    finally:
        model.LANG["cards"] = "en"


def test_console_refuses_another_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["console", "--virtual", "--lang", "fr"])
    assert "invalid choice: 'fr'" in capsys.readouterr().err
