"""The director's pages and the public ones in process (Starlette's TestClient) on a real
PostgreSQL: login with scrypt, CSRF, a spectator kept out, a round from import to publish."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from tractor_table.club import db
from tractor_table.club.app import create_app
from tractor_table.competition import web

pytestmark = pytest.mark.club

CSV = "entry,name,member_no\n" + "".join(
    f"Pair {i},Player {i}a,{i}01\nPair {i},Player {i}b,{i}02\n" for i in range(1, 9))
PASSWORD = "correct horse battery"


@pytest.fixture
def app(club_db: str) -> Iterator[tuple[TestClient, TestClient]]:
    with db.connect(club_db) as conn:
        web.add_director(conn, "td", PASSWORD)
    application = create_app(club_db, extra_routes=web.ROUTES)
    with TestClient(application) as director, TestClient(application) as spectator:
        yield director, spectator


def csrf_of(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m is not None
    return m.group(1)


def test_the_password_is_stored_with_scrypt(club_db: str) -> None:
    with db.connect(club_db) as conn:
        web.add_director(conn, "td", PASSWORD)
        (stored,) = conn.execute("SELECT kdf FROM directors").fetchone() or ("",)
    assert stored.startswith("scrypt$16384$8$1$") and PASSWORD not in stored
    assert web.check_password(stored, PASSWORD) and not web.check_password(stored, PASSWORD + "x")
    with db.connect(club_db) as conn, pytest.raises(ValueError, match="10 characters"):
        web.add_director(conn, "td2", "short")


def test_a_round_from_the_director_pages(app: tuple[TestClient, TestClient]) -> None:
    d, spectator = app
    # a spectator cannot reach a director page or form
    r = spectator.get("/director", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/director/login")
    assert spectator.post("/director/action", data={"action": "draw"}).status_code == 403
    assert d.post("/director/login", data={"name": "td", "password": "wrong password"}).status_code == 401
    r = d.post("/director/login", data={"name": "td", "password": PASSWORD}, follow_redirects=False)
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=28800" in cookie
    page = d.get("/director").text
    token = csrf_of(page)

    def act(**form: str) -> str:
        r = d.post("/director/action", data={"csrf": token, **form}, follow_redirects=True)
        assert r.status_code == 200
        return r.text

    assert "created" in act(action="create", name="Club night", preset="guangxi")
    # a forged form without the CSRF token is refused and changes nothing
    forged = d.post("/director/action", data={"action": "draw"})
    assert forged.status_code == 403 and "CSRF" in forged.text
    bad = d.post("/director/action", data={"csrf": token, "action": "import"},
                 files={"file": ("p.csv", b"entry,name\nA,x\nA,\n", "text/csv")})
    assert "line 3, name: is empty" in bad.text and "nothing changed" in bad.text
    ok = d.post("/director/action", data={"csrf": token, "action": "import"},
                files={"file": ("p.csv", CSV.encode(), "text/csv")})
    assert "16 players in 8 entries imported" in ok.text
    assert "round 1 drawn" in act(action="draw", time_limit="50", deal_limit="9")
    assert "listed twice" in act(action="seat", round="1", tables="T1 T2 T1 T3")
    assert "16 seats at 4 tables" in act(action="seat", round="1", tables="T1 T2 T3 T4")
    assert "is playing" in act(action="start", round="1")
    assert "is time called" in act(action="call_time", round="1")
    for t, (a, b) in zip(("T1", "T2", "T3", "T4"), [("A", "2"), ("K", "K"), ("5", "J"), ("Q", "T")],
                         strict=True):
        assert "result entered" in act(action="result", round="1", table=t, level0=a, level1=b)
    assert "is closed" in act(action="close", round="1")
    page = act(action="adjust", round="1", kind="score", table="T2", entry="2", value="1",
               reason="")
    assert "give a reason" in page
    entry = re.search(r"<td>Pair \d+ \((\d+)\)</td>", d.get("/director").text)
    assert entry is not None
    page = act(action="adjust", round="1", kind="score", table="T1", entry=entry.group(1),
               value="1", reason="slow play by the other side")
    assert "adjustment" in page and "recorded" in page
    prov = spectator.get("/standings.json").json()
    assert prov["provisional"] is True
    assert "round 1 published as version 1" in act(action="publish", round="1")
    pub = spectator.get("/standings.json").json()
    assert pub["provisional"] is False and pub["rounds"] == [1]
    top = pub["standings"][0]
    assert top["match_points"] == 15 + 6 + 1
    sheet = spectator.get("/results/round/1")
    assert sheet.status_code == 200 and "@media print" in sheet.text and "Club night" in sheet.text
    txt = spectator.get("/results/round/1.txt").text
    assert txt.startswith('[Event "Club night"]') and '[Adjustment "' in txt
    csv_text = spectator.get("/standings.csv").text
    assert csv_text.splitlines()[0].startswith("rank,entry,players,match_points")
    assert len(csv_text.splitlines()) == 9
    zh = spectator.get("/standings?lang=zh").text
    assert "成绩排名" in zh and "已公布" in zh
    player = spectator.get("/players/Player 1a")
    assert player.status_code == 200 and "Pair 1" in player.text
    assert spectator.get("/players/Nobody").status_code == 404
    assert "round 2 drawn" in act(action="draw")
    # the session ends at logout: the cookie no longer opens the director's page
    d.post("/director/logout", data={"csrf": token})
    assert d.get("/director", follow_redirects=False).status_code == 303


def test_players_are_edited_on_the_director_page(app: tuple[TestClient, TestClient], club_db: str) -> None:
    d, spectator = app
    d.post("/director/login", data={"name": "td", "password": PASSWORD})
    token = csrf_of(d.get("/director").text)

    def act(**form: str) -> str:
        r = d.post("/director/action", data={"csrf": token, **form}, follow_redirects=True)
        assert r.status_code == 200
        return r.text

    act(action="create", name="Club night", preset="club")
    d.post("/director/action", data={"csrf": token, "action": "import"},
           files={"file": ("p.csv", CSV.encode(), "text/csv")})
    page = d.get("/director").text
    ids = re.findall(r'id="player-name-(\d+)" ?value="|name="player" value="(\d+)"', page)
    pids = sorted({int(b) for _a, b in ids if b})
    assert len(pids) == 16
    with db.connect(club_db) as conn:
        before = conn.execute("SELECT player_id, name, member_no, club, key FROM players ORDER BY 1").fetchall()
    # refused, nothing changed: an empty name; a member number another player has
    assert "the name is empty" in act(action="player", player=str(pids[0]), name=" ", member_no="101")
    assert "already Player 1b" in act(action="player", player=str(pids[0]), name="Li Wei", member_no="102")
    # a spectator's post, and one without the token, are refused too
    assert spectator.post("/director/action", data={"action": "player", "player": str(pids[0]),
                                                    "name": "X"}).status_code == 403
    assert d.post("/director/action", data={"action": "player", "player": str(pids[0]),
                                            "name": "X"}).status_code == 403
    with db.connect(club_db) as conn:
        assert conn.execute("SELECT player_id, name, member_no, club, key FROM players ORDER BY 1"
                            ).fetchall() == before
    assert "Player 1a is now Li Wei" in act(action="player", player=str(pids[0]), name="Li Wei",
                                            member_no="101", club="Riverside")
    with db.connect(club_db) as conn:
        row = conn.execute("SELECT name, member_no, club, key FROM players WHERE player_id = %s",
                           (pids[0],)).fetchone()
    assert row == ("Li Wei", "101", "Riverside", "#101")
    assert "Li Wei" in spectator.get("/standings").text
