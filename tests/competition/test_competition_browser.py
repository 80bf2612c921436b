"""In real browsers (Debian's chromium through chromedriver, Selenium): a director logs in,
imports players, draws round 1, seats four tables, calls time, enters the results, adjusts
one, publishes; a spectator's standings page updates live without a reload and the spectator
cannot reach the director's page."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("selenium")
if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
    pytest.skip("needs Debian's chromium and chromium-driver", allow_module_level=True)

import uvicorn
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from tractor_table.club import db
from tractor_table.club.app import create_app
from tractor_table.competition import web

pytestmark = [pytest.mark.club, pytest.mark.slow]

PASSWORD = "correct horse battery"
CSV = "entry,name,member_no\n" + "".join(
    f"Pair {i},Player {i}a,{i}01\nPair {i},Player {i}b,{i}02\n" for i in range(1, 9))


@pytest.fixture
def server(club_db: str) -> Iterator[str]:
    with db.connect(club_db) as conn:
        web.add_director(conn, "td", PASSWORD)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(club_db, extra_routes=web.ROUTES), host="127.0.0.1",
                            port=port, log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert th.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        th.join(15)
        # the server stops once asked (its live standings' listener too:
        # web.Changes closes its notifies generator on the way out)
        assert not th.is_alive(), "the server did not stop within 15 s"


def browser() -> webdriver.Chrome:
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1600"):
        opts.add_argument(a)
    return webdriver.Chrome(service=webdriver.ChromeService(shutil.which("chromedriver")),
                            options=opts)



def log_in(d: webdriver.Chrome, wait: WebDriverWait[webdriver.Chrome], server: str) -> None:
    """The director logs in; back at the competitions page."""
    d.get(server + "/director/login")
    d.find_element(By.ID, "name").send_keys("td")
    d.find_element(By.ID, "password").send_keys(PASSWORD)
    d.find_element(By.ID, "login").click()
    wait.until(lambda b: b.find_elements(By.ID, "create"))


def post(d: webdriver.Chrome, wait: WebDriverWait[webdriver.Chrome], element_id: str) -> str:
    """Press a form's button and return the message of the page it posts to:
    the old page must go first (its own message would do too)."""
    wait.until(lambda b: b.find_elements(By.ID, element_id))
    button = d.find_element(By.ID, element_id)
    button.click()

    def gone(_: webdriver.Chrome) -> bool:
        # chromium says "stale" or, mid-navigation, "node does not belong
        # to the document": either way the old page is going
        try:
            button.is_enabled()
        except WebDriverException:
            return True
        return False

    def message(b: webdriver.Chrome) -> str | None:
        try:
            found = b.find_elements(By.ID, "msg") or b.find_elements(By.ID, "err")
            return str(found[0].text) if found else None
        except WebDriverException:  # the page was replaced between the two reads
            return None

    wait.until(gone)
    return str(wait.until(message))


def test_a_round_in_two_browsers(server: str, tmp_path: Path) -> None:
    csv_file = tmp_path / "players.csv"
    csv_file.write_text(CSV, encoding="utf-8")
    d, s = browser(), browser()
    try:
        wait_d = WebDriverWait(d, 90, ignored_exceptions=[StaleElementReferenceException])
        wait_s = WebDriverWait(s, 90, ignored_exceptions=[StaleElementReferenceException])
        # the spectator is sent to the login page, never shown the director's
        s.get(server + "/director")
        wait_s.until(lambda b: "/director/login" in b.current_url)
        assert not s.find_elements(By.ID, "grid")
        log_in(d, wait_d, server)
        d.find_element(By.ID, "comp-name").send_keys("Club night")
        d.find_element(By.ID, "create").click()

        def click(element_id: str) -> str:
            return post(d, wait_d, element_id)

        wait_d.until(lambda b: b.find_elements(By.ID, "csv-file"))
        d.find_element(By.ID, "csv-file").send_keys(str(csv_file))
        assert "16 players in 8 entries imported" in click("import")
        s.get(server + "/standings")
        wait_s.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#standings tr")) == 9)
        # the page is live (its parts are replaced as the standings change):
        # read it inside the wait, which retries an element replaced meanwhile
        wait_s.until(lambda b: "provisional" in b.find_element(By.ID, "status").text)
        assert "round 1 drawn" in click("draw")
        assert "16 seats at 4 tables" in click("seat-1")
        assert "playing" in click("start-1")
        assert "time called" in click("call_time-1")
        for table, (a, b) in zip(("T1", "T2", "T3", "T4"),
                                 [("A", "2"), ("K", "K"), ("5", "J"), ("Q", "T")], strict=True):
            form = d.find_element(By.ID, f"result-1-{table}").find_element(By.XPATH, "..")
            form.find_element(By.NAME, "level0").send_keys(a)
            form.find_element(By.NAME, "level1").send_keys(b)
            assert "result entered" in click(f"result-1-{table}")
        assert "closed" in click("close-1")
        # the spectator's page moved by itself (server-sent events), no reload
        s.execute_script("document.body.dataset.marker = 'same page'")
        # the first match's first entry, "Pair N (entry)" (the players' list
        # above it names the pairs without their numbers)
        first = d.find_element(By.XPATH, "//td[starts-with(text(), 'Pair ') and contains(text(), '(')]").text
        entry = first.split("(")[1].rstrip(")")
        d.find_element(By.ID, "adj-table-1").send_keys("T1")
        d.find_element(By.ID, "adj-entry-1").send_keys(entry)
        d.find_element(By.ID, "adj-value-1").send_keys("2")
        d.find_element(By.ID, "adj-reason-1").send_keys("slow play by the other side")
        assert "recorded" in click("adjust-1")
        top_name = first.split(" (")[0]
        # club scoring 3/1/0: the T1 win (3) and the adjustment (+2) put that pair first on 5
        top = "#standings tr:nth-child(2) td"
        wait_s.until(lambda b: [c.text for c in b.find_elements(By.CSS_SELECTOR, top)][1:4:2]
                     == [top_name, "5"])
        assert "published as version 1" in click("publish-1")
        wait_s.until(lambda b: "published" in b.find_element(By.ID, "status").text
                     and "provisional" not in b.find_element(By.ID, "status").text)
        assert s.execute_script("return document.body.dataset.marker") == "same page"
        docs = Path(__file__).resolve().parents[2] / "docs" / "club"
        if os.environ.get("TT_SCREENSHOTS") == "1" and docs.is_dir():  # docs/competition.md's
            d.save_screenshot(str(docs / "director.png"))
            s.save_screenshot(str(docs / "standings.png"))
        # the published score sheet, printed to PDF by chromium on the server
        with urllib.request.urlopen(server + "/results/round/1.pdf", timeout=120) as resp:
            assert resp.headers["content-type"] == "application/pdf"
            assert resp.read(5) == b"%PDF-"
        # the spectator still cannot post a director's form
        s.get(server + "/director")
        wait_s.until(lambda b: "/director/login" in b.current_url)
    finally:
        d.quit()
        s.quit()


def test_a_round_played_at_four_uploading_tables(server: str, club_db: str, tmp_path: Path) -> None:
    """The club night docs/competition.md walks through: four simulated tables upload, the
    round's results come from their records, time is called at the tables, the score sheet
    lists every hand (its screenshots, with TT_SCREENSHOTS=1)."""
    from tractor_table.club import tokens
    from tractor_table.competition import demo

    with db.connect(club_db) as conn:
        token = tokens.add(conn, "browser test hosts")
    csv_file = tmp_path / "players.csv"
    csv_file.write_text(demo.player_csv(8), encoding="utf-8")
    d, s = browser(), browser()
    try:
        with demo.Tables(tmp_path / "tables", server, token, 4, pace_s=0.0, heartbeat_s=0.3):
            wait_d = WebDriverWait(d, 120, ignored_exceptions=[StaleElementReferenceException])
            wait_s = WebDriverWait(s, 120, ignored_exceptions=[StaleElementReferenceException])
            log_in(d, wait_d, server)
            d.find_element(By.ID, "comp-name").send_keys("Riverside club night")
            d.find_element(By.CSS_SELECTOR, "#comp-ladder option[value='full']").click()

            def click(element_id: str) -> str:
                return post(d, wait_d, element_id)

            assert "created" in click("create")
            d.find_element(By.ID, "csv-file").send_keys(str(csv_file))
            assert "16 players in 8 entries imported" in click("import")
            d.find_element(By.NAME, "deal_limit").clear()
            d.find_element(By.NAME, "deal_limit").send_keys("1")
            assert "round 1 drawn" in click("draw")
            assert "16 seats at 4 tables" in click("seat-1")
            s.get(server + "/standings?view=projector")
            assert "playing" in click("start-1")
            assert "time called" in click("call_time-1")

            def grid_done(b: webdriver.Chrome) -> bool:
                b.get(server + "/director")
                cells = b.find_elements(By.CSS_SELECTOR, "#grid td.finished")
                titles = [c.get_attribute("title") or "" for c in cells]
                return len(cells) == 4 and all("call time: done" in t for t in titles)

            wait_d.until(grid_done)
            docs = Path(__file__).resolve().parents[2] / "docs" / "club"
            shots = os.environ.get("TT_SCREENSHOTS") == "1" and docs.is_dir()
            if shots:
                d.save_screenshot(str(docs / "director-tables.png"))
            assert "closed" in click("close-1")
            assert "published as version 1" in click("publish-1")
            wait_s.until(lambda b: "provisional" not in b.find_element(By.ID, "status").text)
            d.get(server + "/results/round/1")
            hands = d.find_elements(By.CSS_SELECTOR, "table.hands tr")
            assert len(hands) == 4 * 2  # a header and the round's one deal, at each table
            if shots:
                d.save_screenshot(str(docs / "sheet.png"))
                s.save_screenshot(str(docs / "projector.png"))
    finally:
        d.quit()
        s.quit()
