"""The director's form posts as the competition tests make them over HTTP
(the browser tests post through chromium): the page's CSRF token read first,
a player CSV attached for an import."""

from __future__ import annotations

import re

import httpx


def act(d: httpx.Client, **form: str) -> str:
    """Post one ``/director/action`` form (``_file``: a players CSV's text to
    attach); assert no error on the page; the page's message (or "")."""
    csrf = re.search(r'name="csrf" value="([^"]+)"', d.get("/director").text)
    assert csrf is not None
    files = {"file": ("players.csv", form.pop("_file").encode(), "text/csv")} if "_file" in form else None
    r = d.post("/director/action", data={"csrf": csrf.group(1), **form}, files=files,
               follow_redirects=True)
    assert r.status_code == 200
    err = re.search(r'id="err">([^<]*)<', r.text)
    assert err is None, err.group(1)
    m = re.search(r'id="msg">([^<]*)<', r.text)
    return m.group(1) if m else ""
