"""The club server's API and pages in process (Starlette's TestClient) on a real PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from tractor_table.club import db
from tractor_table.club.app import create_app
from tractor_table.link import ttlink


@pytest.fixture
def client(club_token: tuple[str, str]) -> Iterator[tuple[TestClient, dict[str, str]]]:
    url, tok = club_token
    with TestClient(create_app(url)) as c:
        yield c, {"Authorization": f"Bearer {tok}"}


def chain(events: list[list[int]], start: int = 0, h: int = 0) -> list[tuple[int, int, str]]:
    out = []
    for i, ev in enumerate(events, start):
        h = ttlink.chain_hash(h, ev)
        out.append((i, h, ttlink.canonical(ev).decode()))
    return out


def items(uid: str, evs: list[tuple[int, int, str]], seq0: int = 1) -> list[dict[str, Any]]:
    return [{"seq": seq0 + n, "kind": "event", "table": uid, "idx": i, "hash": h, "event": t,
             "session": None, "at": "2026-12-01T20:00:00", "current": True}
            for n, (i, h, t) in enumerate(evs)]


def test_requests_without_a_valid_token_are_refused_and_logged(client: Any, club_token: Any) -> None:
    c, auth = client
    host = str(uuid.uuid4())
    body = {"host": host, "now_ms": 0}
    assert c.post("/api/v1/hello", json=body).status_code == 401
    r = c.post("/api/v1/hello", json=body, headers={"Authorization": "Bearer tt_nope"})
    assert r.status_code == 401 and "unknown token" in r.json()["error"]
    assert c.post("/api/v1/hello", json=body, headers=auth).status_code == 200
    with db.connect(club_token[0]) as conn:
        whys = [r[0] for r in conn.execute("SELECT why FROM refused ORDER BY at")]
    assert whys == ["no bearer token", "an unknown token"]


def test_a_batch_is_applied_once_and_a_resend_changes_nothing(client: Any, club_token: Any) -> None:
    c, auth = client
    host = str(uuid.uuid4())
    evs = chain([[1, 0, 0, 2, 0, 0, 1], [2, 0, 1, 0, 14], [3, 1, 0, 0]])
    body = {"host": host, "after": 0, "items": items("e6614c311b2d7a27", evs)}
    r = c.post("/api/v1/batch", json=body, headers=auth)
    assert r.status_code == 200, r.text
    assert r.json()["acked"] == 3 and r.json()["heads"]["e6614c311b2d7a27"] == [3, evs[-1][1]]
    again = c.post("/api/v1/batch", json=body, headers=auth)
    assert again.status_code == 200 and again.json()["applied"] == 0
    with db.connect(club_token[0]) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (3,)
    room = c.get("/.json").json()["tables"]
    assert [t["uid"] for t in room] == ["e6614c311b2d7a27"]
    assert c.get(f"/t/{room[0]['label']}").status_code == 200


def test_a_gap_in_the_journal_is_refused_and_names_the_seq(client: Any) -> None:
    c, auth = client
    host = str(uuid.uuid4())
    evs = chain([[1, 0, 0, 2, 0, 0, 1]])
    r = c.post("/api/v1/batch", json={"host": host, "after": 5, "items": items("aa", evs, 6)},
               headers=auth)
    assert r.status_code == 409 and r.json()["acked"] == 0


def test_a_broken_chain_is_refused_whole_and_raises_an_alert(client: Any, club_token: Any) -> None:
    c, auth = client
    host = str(uuid.uuid4())
    evs = chain([[1, 0, 0, 2, 0, 0, 1], [2, 0, 1, 0, 14]])
    bad = items("bb", evs)
    bad[1]["hash"] ^= 1
    r = c.post("/api/v1/batch", json={"host": host, "after": 0, "items": bad}, headers=auth)
    assert r.status_code == 422 and "chain is broken" in r.json()["error"]
    with db.connect(club_token[0]) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
        assert conn.execute("SELECT kind FROM alerts").fetchall() == [("chain",)]


@pytest.mark.parametrize("mutate, words", [
    (lambda b: b.pop("host"), "'host'"),
    (lambda b: b["items"][0].update(seq=0), "'seq' = 0"),
    (lambda b: b["items"][1].update(seq=1), "seqs must increase"),
    (lambda b: b["items"][0].update(kind="bogus"), "unknown kind"),
    (lambda b: b["items"][0].update(event="[1, 2]"), "canonical form"),
    (lambda b: b["items"][0].update(event="{}"), "list of integers"),
    (lambda b: b["items"][1].update(idx="1"), "'idx' must be an integer"),
    (lambda b: b.update(items=[{}] * 501), "at most 500"),
])
def test_a_malformed_batch_gets_400_naming_the_fault_and_nothing_applied(
        client: Any, club_token: Any, mutate: Any, words: str) -> None:
    c, auth = client
    evs = chain([[1, 0, 0, 2, 0, 0, 1], [2, 0, 1, 0, 14]])
    body = {"host": str(uuid.uuid4()), "after": 0, "items": items("cc", evs)}
    mutate(body)
    r = c.post("/api/v1/batch", json=body, headers=auth)
    assert r.status_code == 400 and words in r.json()["error"], r.text
    with db.connect(club_token[0]) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)


def test_oversized_and_non_json_bodies_are_refused(client: Any) -> None:
    c, auth = client
    r = c.post("/api/v1/batch", content=b"x" * (1 << 21), headers={**auth, "content-type": "application/json"})
    assert r.status_code == 413
    r = c.post("/api/v1/batch", content=b"{nope", headers={**auth, "content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
