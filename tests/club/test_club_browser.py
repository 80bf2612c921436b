"""The live pages in a real browser: Debian's chromium driven by Selenium with
Debian's chromium-driver, the real table core uploading through the real
uploader to the real server process."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from faultproxy import FaultProxy
from tractor_table.events import card_name
from tractor_table.sim.virtual.clubtable import SimTable, attach

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None or shutil.which("chromedriver") is None,
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")

DOCS = Path(__file__).resolve().parents[2] / "docs" / "club"
#: TT_SCREENSHOTS=1: the tests take docs/club.md's pictures (room.png, table.png)
SHOTS = bool(os.environ.get("TT_SCREENSHOTS"))


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or ""
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1100,800"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver") or ""), options=opts)
    try:
        yield drv
    finally:
        drv.quit()


def wait(cond: Any, what: str, timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


def shown_cards(drv: Any) -> set[str]:
    return set(drv.execute_script(
        "return Array.from(document.querySelectorAll('[data-card]')).map(e => e.dataset.card)"))


def server_count(base: str, label: str) -> int:
    return int(httpx.get(f"{base}/t/{label}.json", timeout=10).json()["count"])


def shown_count(drv: Any) -> int:
    v = drv.execute_script("var t = document.getElementById('trick'); return t ? t.dataset.count : null")
    return int(v) if v is not None else -1


def test_a_card_laid_appears_the_kitty_never_and_a_cut_page_catches_up(
        club_server: Any, browser: Any, tmp_path: Path) -> None:
    server, token = club_server
    proxy = FaultProxy(server.port)  # the browser's way to the server, to be cut
    sim = SimTable(tmp_path, "e6614c311b2d7a27", seed=3, hands=1)
    up = attach(sim, server.base, token, heartbeat_s=1.0)
    try:
        kitty: set[str] = set()
        while not kitty:  # to the burial: the dealer's buried cards are hidden information
            for ev in sim.step_event():
                if ev[0] == sim.E.KITTY:
                    kitty = {card_name(c) for c in ev[3:]}
        label = wait(lambda: (httpx.get(server.base + "/.json").json()["tables"] or [{}])[0].get("label"),
                     "the table on the room page")
        browser.get(f"{proxy.base}/t/{label}")
        wait(lambda: browser.find_element("id", "conn").get_attribute("data-state") == "live",
             "the page's event stream open")
        # a card laid at the table appears on its page, pushed (no reload)
        laid = 0
        while laid < 6:
            evs = sim.step_event()
            plays = [e for e in evs if e[0] == sim.E.PLAY]
            # wait on state, not on a guess of time: first the server holds the
            # table's new state (the uploader's work), then the page shows that
            # state (the push's); then the card must be on it
            count = sim.count
            wait(lambda n=count: server_count(server.base, label) >= n,
                 f"event {count - 1} on the server", timeout=60)
            wait(lambda n=count: shown_count(browser) >= n, f"the page at event {count}", timeout=60)
            if plays and not any(e[0] == sim.E.TRICK for e in evs):  # a trick's last card ends it
                card = card_name(plays[-1][3])
                assert card in shown_cards(browser), f"{card} laid, the page at event {count} lacks it"
                laid += 1
            assert not kitty & shown_cards(browser), "a buried card reached the page"
            assert not kitty & set(browser.page_source.split('"')), "a buried card in the DOM"
            if SHOTS and len(browser.find_elements("css selector", "#trick [data-card]")) == 3:
                DOCS.mkdir(parents=True, exist_ok=True)  # the docs' picture: a trick in progress
                browser.save_screenshot(str(DOCS / "table.png"))
        # the page's connection is cut; the game goes on; it reconnects and catches up
        proxy.cut()
        wait(lambda: browser.find_element("id", "conn").get_attribute("data-state") != "live",
             "the page notices the cut")
        for _ in range(8):
            sim.step_event()
        proxy.heal()
        wait(lambda: shown_count(browser) == sim.count, f"the page at event {sim.count} again",
             timeout=60)
        assert not kitty & shown_cards(browser)
        # to the hand's end: then the kitty is public and shown
        while not sim.done:
            sim.step()
        wait(lambda: shown_count(browser) == sim.count, "the page at the hand's end", timeout=60)
        assert kitty <= shown_cards(browser), "the kitty not shown once the hand is over"
    finally:
        up.stop()
        sim.close()
        proxy.close()


def tiles(drv: Any) -> dict[str, str]:
    return dict(drv.execute_script(
        "return Array.from(document.querySelectorAll('#tiles .tile'))"
        ".map(e => [e.querySelector('.label').textContent, e.dataset.status])"))


def test_the_room_shows_tables_live_and_a_silent_one_goes_offline_by_itself(
        club_token: tuple[str, str], browser: Any, tmp_path: Path) -> None:
    from clubproc import ServerProc

    url, token = club_token
    server = ServerProc(url, offline_s=5.0).start()
    proxy = FaultProxy(server.port)  # the last table's way to the server, to be cut
    sims, ups = [], []
    try:
        for k in range(6):
            (tmp_path / f"t{k}").mkdir()
            sim = SimTable(tmp_path / f"t{k}", f"{0xA0000000 + k:016x}", seed=40 + k, hands=1)
            sims.append(sim)
            ups.append(attach(sim, proxy.base if k == 5 else server.base, token, heartbeat_s=0.5))
            for _ in range(30 + 7 * k):
                sim.step()
        def six() -> list[str] | None:
            ts = httpx.get(server.base + "/.json").json()["tables"]
            return [t["label"] for t in ts] if len(ts) == 6 else None

        labels = wait(six, "six tables on the server", 60)
        browser.get(f"{server.base}/")
        wait(lambda: browser.find_element("id", "conn").get_attribute("data-state") == "live",
             "the room's event stream open")
        wait(lambda: sorted(tiles(browser)) == sorted(labels) and set(tiles(browser).values()) == {"live"},
             "six live tiles", 60)
        # the last table's host falls silent: its tile turns offline without a reload
        proxy.cut()
        silent = [t["label"] for t in httpx.get(server.base + "/.json").json()["tables"]
                  if t["uid"] == sims[5].uid][0]
        for _ in range(5):
            sims[5].step()  # recorded on its host, not uploaded
        wait(lambda: tiles(browser).get(silent) == "offline"
             and [v for k, v in tiles(browser).items() if k != silent] == ["live"] * 5,
             f"{silent} offline on the page, the five others live", 60)
        if SHOTS:
            DOCS.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(DOCS / "room.png"))
    finally:
        for up in ups:
            up.stop(flush_s=0)
        for sim in sims:
            sim.close()
        proxy.close()
        server.stop()
