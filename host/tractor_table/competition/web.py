"""The competition's pages on the club server: ``/director`` (login, the grid, the actions),
``/standings`` (live, provisional until published; also ``.json`` and ``.csv``),
``/players/NAME``, and the published rounds (``/results/round/N`` and its strict ``.txt``).

Mounted with ``create_app(url, extra_routes=web.ROUTES)``. The director logs in with a
password stored with scrypt (:func:`add_director`); the session cookie is random, kept only
as its SHA-256, and expires (:data:`SESSION_HOURS`); every form carries the session's CSRF
token and a POST without it is refused before anything is read. ``?lang=zh`` on every page.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import hashlib
import hmac
import io
import json
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import psycopg
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Route

from ..club import db
from ..report.cards import level_name
from . import store
from .entries_csv import CsvError
from .model import ADJUSTMENT_NAMES, CompetitionError
from .scoring import TIE_BREAK_NAMES

HERE = Path(__file__).parent
ENV = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(),
                  trim_blocks=True, lstrip_blocks=True)
ENV.filters["level"] = level_name
COOKIE: Final = "tt_director"
SESSION_HOURS: Final = 8
MAX_FORM: Final = 1 << 20
SCRYPT: Final = {"n": 1 << 14, "r": 8, "p": 1}

TEXT: Final = {
    "en": {
        "standings": "Standings", "provisional": "provisional", "published": "published",
        "rank": "#", "entry": "entry", "players": "players", "played": "played",
        "director": "Director", "login": "Log in", "logout": "Log out", "name": "name",
        "password": "password", "round": "round", "table": "table", "state": "state",
        "import": "Import players (CSV)", "draw": "Draw the next round", "seat": "Seat tables",
        "start": "Start", "call_time": "Call time", "close": "Close round", "publish": "Publish",
        "adjust": "Adjustment", "reason": "reason", "value": "value", "kind": "kind",
        "result": "Result", "alerts": "Alerts", "none": "none", "version": "version",
        "grid": "Tables × rounds", "score_sheet": "Score sheet", "opponent": "opponent",
        "points": "points", "levels": "levels", "print": "Print", "lang": "中文",
        "beyond": "beyond the correction period (Law 79C2: TD and organiser satisfied)",
        "not_heard": "not heard", "playing": "playing", "finished": "finished",
        "lagging": "lagging", "disagreement": "disagreement",
        "time_limit": "minutes", "deal_limit": "deals", "tables": "tables (labels)",
        "matches": "Matches", "no_comp": "No competition yet.", "create": "Create a competition",
        "preset": "scoring", "movement": "movement",
        "hand": "hand", "dealer": "dealer", "level": "level", "trump": "trump",
        "players_edit": "Players", "member_no": "member no.", "club": "club", "save": "Save",
    },
    "zh": {
        "standings": "成绩排名", "provisional": "临时成绩", "published": "已公布",
        "rank": "名次", "entry": "参赛组合", "players": "选手", "played": "场次",
        "director": "裁判长", "login": "登录", "logout": "退出", "name": "姓名",
        "password": "密码", "round": "轮次", "table": "桌号", "state": "状态",
        "import": "导入选手 (CSV)", "draw": "编排下一轮", "seat": "安排座位",
        "start": "开始", "call_time": "宣布时间到", "close": "结束本轮", "publish": "公布",
        "adjust": "裁判调整", "reason": "原因", "value": "数值", "kind": "类型",
        "result": "结果", "alerts": "警报", "none": "无", "version": "版本",
        "grid": "桌 × 轮", "score_sheet": "记分表", "opponent": "对手",
        "points": "积分", "levels": "级数", "print": "打印", "lang": "English",
        "beyond": "超过更正期限（裁判长与主办方确认记录有误）",
        "not_heard": "未连接", "playing": "进行中", "finished": "已结束",
        "lagging": "落后", "disagreement": "判定不一致",
        "time_limit": "分钟", "deal_limit": "副", "tables": "桌号",
        "matches": "比赛", "no_comp": "尚无比赛。", "create": "新建比赛",
        "preset": "计分", "movement": "编排方式",
        "hand": "副", "dealer": "庄家", "level": "级", "trump": "主",
        "players_edit": "选手", "member_no": "会员号", "club": "俱乐部", "save": "保存",
    },
}
STATE_NAMES: Final = {
    "en": {s: s.replace("_", " ") for s in store.STATES},
    "zh": {"draft": "草案", "seated": "已入座", "playing": "进行中", "time_called": "时间到",
           "closed": "已结束", "published": "已公布"},
}
RESULT_NAMES: Final = {"en": {"W": "won", "D": "drawn", "L": "lost", "B": "bye",
                              "WO": "walkover", "FF": "forfeit"},
                       "zh": {"W": "胜", "D": "平", "L": "负", "B": "轮空", "WO": "不战而胜",
                              "FF": "弃权"}}


# -- directors and their sessions -------------------------------------------------------


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${key.hex()}"


def check_password(stored: str, password: str) -> bool:
    try:
        kind, n, r, p, salt, key = stored.split("$")
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                         p=int(p), dklen=len(key) // 2)
    return hmac.compare_digest(got.hex(), key)


def add_director(conn: psycopg.Connection, name: str, password: str) -> None:
    if len(password) < 10:
        raise ValueError("a director's password has at least 10 characters")
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise ValueError("a director's name is 1 to 100 characters")
    conn.execute("INSERT INTO directors (name, kdf) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE"
                 " SET kdf = excluded.kdf", (name, hash_password(password)))


def _sid_digest(sid: str) -> bytes:
    return hashlib.sha256(sid.encode()).digest()


def _session(url: str, sid: str | None) -> tuple[str, str] | None:
    """(director name, CSRF token) of a live session, or None."""
    if not sid or len(sid) > 100:
        return None
    with db.connect(url) as conn:
        row = conn.execute(
            "SELECT d.name, s.csrf FROM director_sessions s JOIN directors d USING (director_id)"
            " WHERE s.sid_sha256 = %s AND s.expires_at > now()", (_sid_digest(sid),)).fetchone()
    return (row[0], row[1]) if row else None


def _login(url: str, name: str, password: str) -> str | None:
    with db.connect(url) as conn:
        row = conn.execute("SELECT director_id, kdf FROM directors WHERE name = %s",
                           (name,)).fetchone()
        # the KDF runs even for an unknown name, so timing does not tell names apart
        ok = check_password(row[1] if row else hash_password("x" * 10), password) and row is not None
        if not ok or row is None:
            return None
        sid = secrets.token_urlsafe(32)
        conn.execute("DELETE FROM director_sessions WHERE expires_at < now()")
        conn.execute(
            "INSERT INTO director_sessions (sid_sha256, director_id, csrf, expires_at) VALUES"
            " (%s, %s, %s, now() + make_interval(hours => %s))",
            (_sid_digest(sid), row[0], secrets.token_urlsafe(24), SESSION_HOURS))
    return sid


# -- live standings ---------------------------------------------------------------------


class Changes:
    """A counter the director's actions bump, and the tables' uploads (a hand's end changes
    a result read from the events): each /live/standings stream waits on it. One LISTEN
    connection per server process follows the uploads (``tt_table``) and the directors'
    actions in every process (``tt_comp``), started with the first stream."""

    def __init__(self) -> None:
        self.version = 0
        self._cond: asyncio.Condition | None = None
        self._listener: asyncio.Task[None] | None = None

    def listen(self, url: str) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._listen(url))

    async def _listen(self, url: str) -> None:
        delay = 0.2
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    await conn.execute("LISTEN tt_table")
                    await conn.execute("LISTEN tt_comp")  # a director's action, in any server process
                    delay = 0.2
                    await self.bump()  # anything that happened while not listening
                    # closed on the way out (a cancel while the generator waits at
                    # its yield holding the connection's lock), before the connection
                    async with contextlib.aclosing(conn.notifies()) as gen:
                        async for _n in gen:
                            # a burst of events (a batch) is one change: gather it for 0.3 s
                            await asyncio.sleep(0.3)
                            await self.bump()
            except asyncio.CancelledError:
                raise
            except Exception:  # PostgreSQL went away: again, with a growing pause
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    def cond(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def bump(self) -> None:
        async with self.cond():
            self.version += 1
            self.cond().notify_all()

    async def wait(self, seen: int, timeout: float) -> int:
        async with self.cond():
            if self.version == seen:
                try:
                    await asyncio.wait_for(self.cond().wait(), timeout)
                except TimeoutError:
                    pass
            return self.version


def _changes(request: Request) -> Changes:
    st = request.app.state
    if not hasattr(st, "competition_changes"):
        st.competition_changes = Changes()
    ch: Changes = st.competition_changes
    return ch


# -- helpers ----------------------------------------------------------------------------


def _url(request: Request) -> str:
    u: str = request.app.state.club.url
    return u


def _lang(request: Request) -> str:
    return "zh" if request.query_params.get("lang") == "zh" else "en"


def _render(request: Request, template: str, status: int = 200, **kw: Any) -> HTMLResponse:
    lang = _lang(request)
    html = ENV.get_template(template).render(
        t=TEXT[lang], lang=lang, states=STATE_NAMES[lang], results=RESULT_NAMES[lang],
        adj_names=ADJUSTMENT_NAMES[lang], tb_names=TIE_BREAK_NAMES[lang],
        q="?lang=zh" if lang == "zh" else "", other="?lang=en" if lang == "zh" else "?lang=zh",
        path=request.url.path, **kw)
    return HTMLResponse(html, status_code=status)


def _current_comp(url: str) -> int | None:
    with db.connect(url) as conn:
        row = conn.execute("SELECT max(comp_id) FROM competitions").fetchone()
    return int(row[0]) if row and row[0] is not None else None


def _view(url: str, comp: int) -> dict[str, Any]:
    with db.connect(url) as conn:
        ev = store.load(conn, comp)
        pubs = conn.execute(
            "SELECT r.no, p.version, p.published_at, p.correction_until, p.diff_from_prev"
            " FROM publications p JOIN rounds r USING (round_id) WHERE p.comp_id = %s"
            " ORDER BY r.no, p.version", (comp,)).fetchall()
        heard = {r[0]: r[1] for r in conn.execute(
            "SELECT t.label, (SELECT count(*) FROM alerts a WHERE a.table_id = t.table_id"
            " AND a.cleared_at IS NULL) FROM tables t")}
        alerts = conn.execute(
            "SELECT a.at, coalesce(t.label, '-'), a.kind, a.detail FROM alerts a LEFT JOIN tables t"
            " USING (table_id) WHERE a.cleared_at IS NULL ORDER BY a.alert_id DESC LIMIT 20").fetchall()
    std = store.standings(ev)
    published = {no for no, *_ in pubs}
    provisional = any(r.state != "published" for r in ev.rounds) or not ev.rounds
    labels = sorted({s.table for ss in ev.seats.values() for s in ss})
    grid: list[dict[str, Any]] = []
    by_mid = {m.match_id: m for m in ev.matches}
    for label in labels:
        cells = []
        for r in ev.rounds:
            m = by_mid.get(store.match_id(r.no, label))
            if m is None:
                cells.append({"cls": "empty", "text": ""})
                continue
            if heard.get(label):
                cls = "disagreement"
            elif m.status == "finished":
                cls = "finished"
            elif r.state in ("time_called", "closed") :
                cls = "lagging"
            elif label not in heard and r.state in ("playing",):
                cls = "not_heard"
            else:
                cls = "playing"
            text = ""
            if m.levels is not None:
                text = f"{level_name(m.levels[0])}/{level_name(m.levels[1])}"
                if m.deals:
                    text += f" ·{m.deals}"
            cmds = ev.commands.get((r.no, label), {})
            if cmds.get("call_time") not in (None, "done"):
                text += " ⏱"  # time called, the table not yet told
            title = " · ".join(x for x in (
                ev.notes.get(m.match_id, ""),
                f"source: {ev.sources[m.match_id]}" if m.match_id in ev.sources else "",
                *(f"{k.replace('_', ' ')}: {w}" for k, w in cmds.items())) if x)
            cells.append({"cls": cls, "text": text, "mid": m.match_id, "note": title})
        grid.append({"label": label, "cells": cells})
    return {"ev": ev, "std": std, "pubs": pubs, "published": published,
            "provisional": provisional, "grid": grid, "alerts": alerts}


# -- public pages -----------------------------------------------------------------------


async def standings_page(request: Request) -> Response:
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)
    if comp is None:
        return _render(request, "standings.html", v=None)
    v = await run_in_threadpool(_view, url, comp)
    big = request.query_params.get("view") == "projector"
    return _render(request, "standings.html", v=v, projector=big)


async def standings_json(request: Request) -> Response:
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)
    if comp is None:
        return JSONResponse({"error": "no competition yet"}, status_code=404)
    v = await run_in_threadpool(_view, url, comp)
    return JSONResponse({"competition": v["ev"].name, "provisional": v["provisional"],
                         "rounds": list(v["std"].rounds),
                         "standings": store.standings_json(v["ev"], v["std"])})


async def standings_csv(request: Request) -> Response:
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)
    if comp is None:
        return PlainTextResponse("no competition yet\n", status_code=404)
    v = await run_in_threadpool(_view, url, comp)
    rows = store.standings_json(v["ev"], v["std"])
    return Response(_standings_csv(rows), media_type="text/csv; charset=utf-8")


def _standings_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    cols = ["rank", "entry", "players", "match_points", "net_levels", "total_levels",
            "rounds_won", "progressive_cut1", "played"]
    w.writerow(cols)
    for r in rows:
        w.writerow([r.get(c, "") for c in cols])
    return out.getvalue()


async def standings_stream(request: Request) -> Response:
    changes = _changes(request)
    url = _url(request)
    changes.listen(url)

    async def gen() -> AsyncIterator[bytes]:
        seen = -1
        while True:
            if await request.is_disconnected():
                return
            now = await changes.wait(seen, 15.0)
            if now == seen:
                yield b": ping\n\n"
                continue
            seen = now
            comp = await run_in_threadpool(_current_comp, url)
            if comp is None:
                continue
            v = await run_in_threadpool(_view, url, comp)
            lang = _lang(request)
            html = ENV.get_template("standings_body.html").render(
                v=v, t=TEXT[lang], lang=lang, tb_names=TIE_BREAK_NAMES[lang])
            data = "".join(f"data: {line}\n" for line in html.splitlines())
            yield f"id: {seen}\nevent: standings\n{data}\n".encode()

    return StreamingResponse(gen(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def player_page(request: Request) -> Response:
    name = request.path_params["name"][:100]
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)
    if comp is None:
        return _render(request, "player.html", status=404, v=None, name=name, entry=None)
    v = await run_in_threadpool(_view, url, comp)
    ev = v["ev"]
    pid = next((p.player_id for p in ev.players.values() if p.name == name), None)
    entry = next((e for e in ev.entries.values() if pid in e.members), None)
    if entry is None:
        return _render(request, "player.html", status=404, v=v, name=name, entry=None)
    return _render(request, "player.html", v=v, name=name, entry=entry,
                   row=v["std"].row(entry.entry_id))


async def round_sheet(request: Request) -> Response:
    no = int(request.path_params["no"])
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)

    def fetch() -> tuple[Any, ...] | None:
        with db.connect(url) as conn:
            return conn.execute(
                "SELECT p.version, p.published_at, p.results_export, p.standings, p.hands_export"
                " FROM publications p JOIN rounds r USING (round_id)"
                " WHERE p.comp_id = %s AND r.no = %s ORDER BY p.version DESC LIMIT 1",
                (comp, no)).fetchone()

    pub = await run_in_threadpool(fetch) if comp is not None else None
    if pub is None:
        return PlainTextResponse(f"round {no} is not published\n", status_code=404)
    fmt = request.path_params.get("fmt")
    standings = pub[3] if isinstance(pub[3], list) else json.loads(pub[3])
    if fmt == "txt":  # the strict export: each match, then each hand, as published
        return PlainTextResponse(pub[2] + ("\n" + pub[4] if pub[4] else ""))
    if fmt == "pdf":
        return await _pdf(request, no)
    if fmt == "json":  # the standings as frozen into this version
        return JSONResponse({"round": no, "version": pub[0], "published_at": pub[1].isoformat(),
                             "standings": standings})
    if fmt == "csv":
        return Response(_standings_csv(standings), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'inline; filename="round-{no}-v{pub[0]}.csv"'})
    if fmt is not None:
        return PlainTextResponse(f"no .{fmt[:10]} form: use .txt, .json, .csv or .pdf\n",
                                 status_code=404)
    hands: dict[str, list[dict[str, str]]] = {}
    for block in pub[4].split("\n\n"):
        if block.strip():
            tags = dict(line.removeprefix("[").removesuffix('"]').split(' "', 1)
                        for line in block.splitlines())
            hands.setdefault(tags["Table"], []).append(tags)
    matches = [dict(line.removeprefix("[").removesuffix('"]').split(' "', 1)
                    for line in block.splitlines())
               for block in pub[2].split("\n\n") if block.strip()]
    return _render(request, "sheet.html", no=no, version=pub[0], published_at=pub[1],
                   standings=standings, matches=matches, hands=hands)


async def _pdf(request: Request, no: int) -> Response:
    """The score sheet printed by headless chromium (its print style), from this server."""
    import shutil
    import tempfile

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        return PlainTextResponse("the PDF needs chromium on the server (apt-get install chromium);"
                                 f" print /results/round/{no} from a browser instead\n",
                                 status_code=503)
    page = f"{request.url.scheme}://{request.url.netloc}/results/round/{no}"
    with tempfile.TemporaryDirectory(prefix="tt-pdf-") as tmp:
        out = Path(tmp) / "sheet.pdf"
        proc = await asyncio.create_subprocess_exec(
            exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
            f"--user-data-dir={tmp}/profile", f"--print-to-pdf={out}", page,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        try:
            await asyncio.wait_for(proc.wait(), 90)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return PlainTextResponse("chromium did not print the sheet in 90 s\n", status_code=504)
        if not out.exists():
            return PlainTextResponse("chromium printed nothing\n", status_code=500)
        data = out.read_bytes()
    return Response(data, media_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="round-{no}.pdf"'})


# -- the director -----------------------------------------------------------------------


async def login_page(request: Request) -> Response:
    return _render(request, "login.html", error=None)


async def _form(request: Request) -> dict[str, Any]:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_FORM):
        raise CompetitionError(f"the form is over {MAX_FORM} bytes")
    form = await request.form(max_files=1, max_fields=50)
    out: dict[str, Any] = {}
    for k, v in form.items():
        if isinstance(v, str):
            out[k] = v
        else:
            out[k] = await v.read(MAX_FORM + 1)
    return out


async def login_post(request: Request) -> Response:
    form = await _form(request)
    sid = await run_in_threadpool(_login, _url(request), str(form.get("name", ""))[:100],
                                  str(form.get("password", ""))[:200])
    if sid is None:
        return _render(request, "login.html", status=401, error=True)
    resp = RedirectResponse("/director" + ("?lang=zh" if _lang(request) == "zh" else ""), 303)
    resp.set_cookie(COOKIE, sid, max_age=SESSION_HOURS * 3600, httponly=True, samesite="strict",
                    path="/")
    return resp


def director_only(fn: Callable[[Request, str, str], Any]) -> Callable[[Request], Any]:
    async def handler(request: Request) -> Response:
        who = await run_in_threadpool(_session, _url(request), request.cookies.get(COOKIE))
        if who is None:
            if request.method == "GET":
                return RedirectResponse("/director/login" + ("?lang=zh" if _lang(request) == "zh" else ""), 303)
            return PlainTextResponse("refused: log in as a director first\n", status_code=403)
        out: Response = await fn(request, who[0], who[1])
        return out

    return handler


@director_only
async def director_page(request: Request, name: str, csrf: str) -> Response:
    url = _url(request)
    comp = await run_in_threadpool(_current_comp, url)
    v = await run_in_threadpool(_view, url, comp) if comp is not None else None
    msg = request.query_params.get("msg", "")[:500]
    err = request.query_params.get("err", "")[:1000]
    return _render(request, "director.html", v=v, csrf=csrf, who=name, msg=msg, err=err)


@director_only
async def logout(request: Request, name: str, csrf: str) -> Response:
    sid = request.cookies.get(COOKIE, "")

    def drop() -> None:
        with db.connect(_url(request)) as conn:
            conn.execute("DELETE FROM director_sessions WHERE sid_sha256 = %s", (_sid_digest(sid),))

    await run_in_threadpool(drop)
    resp = RedirectResponse("/director/login", 303)
    resp.delete_cookie(COOKIE, path="/")
    return resp


def _int(form: dict[str, Any], key: str, default: int | None = None) -> int | None:
    v = str(form.get(key, "")).strip()
    if not v:
        return default
    try:
        return int(v)
    except ValueError:
        raise CompetitionError(f"{key}: {v!r} is not a whole number") from None


def _act(url: str, who: str, form: dict[str, Any]) -> str:
    from .scoring import PRESETS

    action = str(form.get("action", ""))
    with db.connect(url) as conn:
        if action == "create":
            preset = str(form.get("preset", "club"))
            if preset not in PRESETS:
                raise CompetitionError(f"scoring {preset!r}: use one of {', '.join(PRESETS)}")
            scoring = PRESETS[preset]
            ladder = str(form.get("ladder", "tournament"))
            if ladder not in ("tournament", "full"):
                raise CompetitionError(f"ladder {ladder!r}: use tournament (2 5 T J Q K A) or full")
            if ladder == "full":  # the tables' rules climb every level (level_ladder = full)
                from dataclasses import replace

                from .scoring import FULL_LADDER

                scoring = replace(scoring, ladder=FULL_LADDER)
            comp = store.create(conn, str(form.get("name", "")).strip() or "Club night",
                                scoring=scoring, site=str(form.get("site", "")),
                                movement=str(form.get("movement", "swiss")),
                                lots_seed=secrets.randbelow(1 << 30))
            return f"competition {comp} created"
        comp_id = _current_comp(url)
        if comp_id is None:
            raise CompetitionError("create a competition first")
        no = _int(form, "round")
        if action == "import":
            data = form.get("file") or form.get("csv", "")
            p, e = store.import_players(conn, comp_id, data if data else "")
            return f"{p} players in {e} entries imported"
        if action == "player":
            pid = _int(form, "player")
            if pid is None:
                raise CompetitionError("say which player")
            return store.edit_player(conn, comp_id, pid, name=str(form.get("name", "")),
                                     member_no=str(form.get("member_no", "")),
                                     club=str(form.get("club", "")))
        if action == "draw":
            n = store.draw_round(conn, comp_id, time_limit_min=_int(form, "time_limit"),
                                 deal_limit=_int(form, "deal_limit"))
            return f"round {n} drawn"
        if no is None:
            raise CompetitionError("say which round")
        if action == "seat":
            tables = [t for t in str(form.get("tables", "")).replace(",", " ").split()]
            seats = store.seat(conn, comp_id, no, tables, who)
            return f"round {no}: {len(seats)} seats at {len({s.table for s in seats})} tables"
        if action in store.MOVES:
            return f"round {no} is {store.move(conn, comp_id, no, action).replace('_', ' ')}"
        if action == "result":
            label = str(form.get("table", "")).strip()
            from shengji.cards import Rank

            try:
                levels = (int(Rank.parse(str(form.get("level0", "")))),
                          int(Rank.parse(str(form.get("level1", "")))))
            except ValueError as e:
                raise CompetitionError(f"levels: {e}") from None
            passed = _int(form, "passed")
            store.record_result(conn, comp_id, no, label, status="finished", levels=levels,
                                passed=passed, deals=_int(form, "deals", 0) or 0, source="director")
            return f"round {no} table {label}: result entered"
        if action == "adjust":
            kind = str(form.get("kind", ""))
            adj_label = str(form.get("table", "")).strip() or None
            entry = str(form.get("entry", "")).strip() or None
            adj = store.adjust(conn, comp_id, no, kind=kind, reason=str(form.get("reason", "")),
                               director=who, label=adj_label, entry=entry,
                               value=_int(form, "value", 0) or 0, revokes=_int(form, "revokes"),
                               beyond_correction=form.get("beyond") == "1")
            return f"adjustment {adj} recorded"
        if action == "publish":
            return f"round {no} published as version {store.publish(conn, comp_id, no, who)}"
    raise CompetitionError(f"{action!r} is not an action")


@director_only
async def action(request: Request, who: str, csrf: str) -> Response:
    try:
        form = await _form(request)
    except CompetitionError as e:
        return PlainTextResponse(f"refused: {e}\n", status_code=413)
    if not hmac.compare_digest(str(form.get("csrf", "")), csrf):
        return PlainTextResponse(
            "refused: the form's CSRF token is missing or wrong (a form from another site, or "
            "an old page): reload the director's page and submit again; nothing changed\n",
            status_code=403)
    q = "&lang=zh" if _lang(request) == "zh" else ""
    from urllib.parse import quote

    try:
        msg = await run_in_threadpool(_act, _url(request), who, form)
    except (CompetitionError, CsvError, ValueError) as e:
        return RedirectResponse(f"/director?err={quote(str(e)[:900])}{q}", 303)
    await _changes(request).bump()
    async with request.app.state.club.pool.connection() as conn:  # the other server processes'
        await conn.execute("NOTIFY tt_comp")
    return RedirectResponse(f"/director?msg={quote(msg)}{q}", 303)


ROUTES: list[BaseRoute] = [
    Route("/standings", standings_page, methods=["GET"]),
    Route("/standings.json", standings_json, methods=["GET"]),
    Route("/standings.csv", standings_csv, methods=["GET"]),
    Route("/live/standings", standings_stream, methods=["GET"]),
    Route("/players/{name}", player_page, methods=["GET"]),
    Route("/results/round/{no:int}", round_sheet, methods=["GET"]),
    Route("/results/round/{no:int}.{fmt:str}", round_sheet, methods=["GET"]),
    Route("/director/login", login_page, methods=["GET"]),
    Route("/director/login", login_post, methods=["POST"]),
    Route("/director/logout", logout, methods=["POST"]),
    Route("/director", director_page, methods=["GET"]),
    Route("/director/action", action, methods=["POST"]),
]
