"""``tractor-table records``: the hands the host recorded from the tables it followed.

``records list`` (every hand: date, table, result, disagreements),
``records show HAND`` (every event in words, with the verifier's verdicts and
both views of a disagreement), ``records export HAND --out FILE`` (the hand
as an engine hand record of docs/records.md, replayable with
``shengji.record.replay``; ``--format events`` writes the table's own events
as JSON lines, which always works) and ``records check`` (SQLite's checks,
the state hash chain of every table re-verified, the hands against their
events). The records are those ``tractor-table link`` and ``tractor-table
virtual`` write: by default in the user's data directory, else ``--db FILE``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import CommandError

ACTIONS = ("list", "show", "export", "check", "replay", "sheet")
FORMATS = ("engine", "events", "html", "text", "csv")


def _trumps() -> tuple[str, ...]:
    """The trump field in letters (the firmware's, through tractor_table.vocab)."""
    from ..vocab.enums import TRUMP_NAMES

    return TRUMP_NAMES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action", choices=ACTIONS,
        help="list the hands, show one (a report), export one, check the records' integrity, "
        "replay one event by event, or print the match score sheet",
    )
    parser.add_argument(
        "hand", nargs="?", metavar="HAND",
        help="a hand's number in 'records list' (replay: or a 'simulate --records' file)",
    )
    parser.add_argument("--db", type=Path, metavar="FILE", help="the records file (default: records.sqlite in the user's data directory)")
    parser.add_argument(
        "--out", metavar="FILE",
        help="show/export/sheet: the file to write ('-' or left out: standard output)",
    )
    parser.add_argument(
        "--format", choices=FORMATS,
        help="show: 'text' (default) or 'html', one printable page; export: 'engine', a hand "
        "record the full engine replays (docs/records.md; default), 'events', the table's events "
        "as JSON lines, 'html' or 'text', the hand's report; sheet: 'text' (default), 'html', one "
        "printable page, or 'csv', one row per hand",
    )
    parser.add_argument("--table", type=int, metavar="N", help="list, sheet: only this table's hands")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="list, show, sheet, replay: English, or Chinese (card names 黑桃A, the events, the columns)")
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="text report: red and black suits (auto: when the output is a terminal)",
    )


def run(args: argparse.Namespace) -> int:
    from ..records.common import default_path
    from ..records.store import Store

    hand_arg = args.hand
    if args.action in ("show", "export", "replay") and hand_arg is None:
        raise CommandError(f"records {args.action}: give the hand's number (see 'tractor-table records list')")
    if args.action in ("list", "check", "sheet") and hand_arg is not None:
        raise CommandError(f"records {args.action} takes no hand number ('records show {hand_arg}' shows one)")
    if args.action not in ("list", "sheet") and args.table is not None:
        raise CommandError("--table goes with 'records list' and 'records sheet'")
    if args.action not in ("export", "show", "sheet") and args.out is not None:
        raise CommandError("--out goes with 'records show', 'records export' and 'records sheet'")
    if args.action not in ("export", "show", "sheet") and args.format is not None:
        raise CommandError("--format goes with 'records show', 'records export' and 'records sheet'")
    if args.action == "show" and args.format not in (None, "text", "html"):
        raise CommandError(f"records show --format {args.format}: show writes 'text' or 'html' ('records export' writes the others)")
    if args.action == "export" and args.format == "csv":
        raise CommandError("records export --format csv: export writes 'engine', 'events', 'html' or 'text' "
                           "('records sheet --format csv' writes the score sheet as CSV)")
    if args.action == "sheet" and args.format not in (None, "text", "html", "csv"):
        raise CommandError(f"records sheet --format {args.format}: the sheet is written as 'text', 'html' or 'csv'")
    out: Path | None = None
    if args.out is not None and args.out != "-":
        from ._files import check_writable

        out = Path(args.out)
        check_writable(out, "--out")
    if args.action == "replay" and not hand_arg.isdigit():
        return _replay_file(Path(hand_arg), args.lang)
    hand: int | None = None
    if hand_arg is not None:
        if not hand_arg.isdigit():
            raise CommandError(f"records {args.action} {hand_arg}: give a hand's number (see 'tractor-table records list')")
        hand = int(hand_arg)
    path = args.db if args.db is not None else default_path()
    with Store.open(path, create=False) as store:
        if args.action == "list":
            return _list(store, args.table, args.lang)
        if args.action == "sheet":
            return _sheet(store, args.table, args.lang, args.format or "text", out)
        if args.action == "check":
            return _check(store)
        assert hand is not None
        if args.action == "show":
            return _show(store, hand, out, args.format or "text", args.lang, args.color)
        if args.action == "export":
            return _export(store, hand, out, args.format or "engine", args.lang)
        return _replay(store, hand, args.lang)


def _emit(text: str, out: Path | None, what: str) -> None:
    """Write a command's output: to ``out``, whole or not at all, or to standard output."""
    import sys

    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ._files import write_atomic

    write_atomic(out, text.encode("utf-8"), "--out")
    print(f"{what} written to {out}", file=sys.stderr)


def _when(at: str | None) -> str:
    return (at or "")[:19].replace("T", " ")


def _lost_by(h: dict[str, Any], lang: str = "en") -> str:
    """A hand a revoke lost (revoke = "forfeit", the FORFEIT event): who lost it."""
    from ..report.words import lost_by

    return lost_by(h.get("forfeit_seat"), lang)


LIST_LEAD = {
    "en": ("hand", "date (UTC)", "table", "#", "events", "disagree"),
    "zh": ("牌局", "日期 (UTC)", "牌桌", "局", "事件", "分歧"),
}


def _list(store: Any, table: int | None, lang: str = "en") -> int:
    from ..report.sheet import ALIGN, HEADINGS, RESULT, cells
    from ..report.words import columns_text, result_of, status

    zh = lang == "zh"
    lg = "zh" if zh else "en"
    hands = store.hands(table)
    print(f"records {store.path}：{len(hands)} 局" if zh else f"records {store.path}: {len(hands)} hand(s)")
    if not hands:
        return 0
    rows: list[list[str]] = []
    for h in hands:
        if h["status"] == "done":
            result = (result_of(h, lang) or status("done", lang)) + _lost_by(h, lang)
        elif h["status"] == "redeal":
            result = result_of(h, lang) if zh else "redeal: nobody bid"
        else:
            started = "(记录始于本局中途)" if zh else "(the records start inside it)"
            result = status(h["status"], lang) + (f" {started}" if h["partial"] else "")
            if h["trump"] is not None:
                from ..report.cards import trump_name

                trump = trump_name(h["trump"], lang) if 0 <= h["trump"] < 5 else str(h["trump"])
                result += f"；主牌 {trump}" if zh else f"; trump {trump}"
            if h["attackers_score"] is not None:
                score = h["attackers_score"]
                result += f"；闲家目前 {score} 分" if zh else f"; attackers {score} so far"
        no = "?" if h["hand_no"] is None else str(h["hand_no"])
        rows.append([str(h["id"]), _when(h["started_at"]), str(h["table_id"]), no, str(h["events"]),
                     str(h["disagreements"]), *cells(h, lang), result])
    for line in columns_text([*LIST_LEAD[lg], *HEADINGS[lg], RESULT[lg]], rows, "><>>>>" + ALIGN + "<"):
        print(line)
    return 0


def _sheet(store: Any, table: int | None, lang: str, fmt: str = "text", out: Path | None = None) -> int:
    from ..report.sheet import render, render_csv, render_html

    hands = store.hands(table)
    if fmt == "html":
        _emit(render_html(hands, lang, source=f"records {store.path}"), out, "the score sheet (HTML)")
        return 0
    if fmt == "csv":
        _emit(render_csv(hands), out, "the score sheet (CSV)")
        return 0
    head = f"records {store.path}：{len(hands)} 局" if lang == "zh" else f"records {store.path}: {len(hands)} hand(s)"
    _emit(head + "\n" + render(hands, lang), out, "the score sheet")
    return 0


def _report(store: Any, hand_id: int, fmt: str, lang: str, color: bool) -> str:
    from ..report import html, model, text

    rep = model.build(store, store.hand(hand_id))
    if fmt == "html":
        return html.render(rep, lang=lang)
    return text.render(rep, lang=lang, color=color)


def _show(store: Any, hand_id: int, out: Path | None, fmt: str, lang: str, color: str) -> int:
    import sys

    use = color == "always" or (color == "auto" and out is None and sys.stdout.isatty())
    _emit(_report(store, hand_id, fmt, lang, use), out, f"hand {hand_id}: the {fmt} report")
    if fmt == "text" and out is None:
        _show_events(store, hand_id, lang)
    return 0


def _replay(store: Any, hand_id: int, lang: str) -> int:
    import sys

    from ..report.replay import recorded_steps, walk

    steps = recorded_steps(store, store.hand(hand_id), lang)
    walk(steps, sys.stdin, print)
    return 0


def _replay_file(path: Path, lang: str) -> int:
    import sys

    from ..report.replay import file_steps, walk

    if not path.is_file():
        raise CommandError(f"records replay {path}: no such file; give a hand's number or a 'simulate --records' file")
    walk(file_steps(path, lang), sys.stdin, print)
    return 0


def _show_events(store: Any, hand_id: int, lang: str = "en") -> int:
    """Every event of the hand in words, with its index, hash and verdicts (after
    the report, which has said the dealer, the trump and the levels: per side,
    or per seat in find-a-friend)."""
    from ..report.words import VERDICTS_ZH, describe_in, result_of, status

    zh = lang == "zh"
    h = store.hand(hand_id)
    no = "?" if h["hand_no"] is None else h["hand_no"]
    until = (f" to {_when(h['ended_at'])}" if not zh else f" 至 {_when(h['ended_at'])}") if h["ended_at"] else ""
    if zh:
        print(f"牌局 {h['id']} (牌桌 {h['table_id']}，本场第 {no} 局)：{status(h['status'], lang)}，"
              f"事件 {h['start_idx']}-{h['end_idx']}，{_when(h['started_at'])} UTC{until}")
    else:
        print(f"hand {h['id']} (table {h['table_id']}, hand {no} of its match): {h['status']}, "
              f"events {h['start_idx']}-{h['end_idx']}, {_when(h['started_at'])} UTC{until}")
    if h["result"]:
        print(f"  {'结果' if zh else 'result'}: {result_of(h, lang)}{_lost_by(h, lang)}")

    def word(v: str) -> str:
        return VERDICTS_ZH.get(v, v) if zh else v

    for e in store.hand_events(h):
        marks = sorted({v["verdict"] for v in e["verdicts"]})
        mark = f"  [{', '.join(word(m) for m in marks)}]" if marks else f"  [{word('not judged')}]"
        gone = "" if e["current"] else (f"  (已取代：{e['superseded']})" if zh else f"  (superseded: {e['superseded']})")
        print(f"{e['index']:5d}  {e['hash']:08x}  {describe_in(e['event'], lang)}{mark}{gone}")
        for v in e["verdicts"]:
            if v["verdict"] != "disagreed":
                continue
            host = json.loads(v["host_event"]) if v["host_event"] else None
            table_text = v["table_text"] or e["event"]
            host_text = v["host_text"] or host
            if zh:
                table_text = describe_in(e["event"], lang)
                host_text = describe_in(host, lang) if host else "-"
                print(f"         牌桌与主机不一致 ({v['what']}，会话 {v['session']})：")
            else:
                print(f"         the table and the host disagree ({v['what']}, session {v['session']}):")
            t_label, h_label = ("牌桌: ", "主机: ") if zh else ("table: ", "host:  ")
            print(f"           {t_label}{table_text}  {json.dumps(e['event'].raw())}  hash {v['table_hash']:08x}")
            print(f"           {h_label}{host_text}  {json.dumps(host)}  hash {v['host_hash']:08x}")
            if v["fields"] and json.loads(v["fields"]):
                what = "不同的字段" if zh else "fields that differ"
                print(f"           {what}: {', '.join(map(str, json.loads(v['fields'])))}")
    return 0


def _export(store: Any, hand_id: int, out: Path | None, fmt: str, lang: str) -> int:
    from ..records.export import NotFaithful, engine_record, events_record

    h = store.hand(hand_id)
    if fmt in ("html", "text"):
        _emit(_report(store, hand_id, fmt, lang, False), out, f"hand {hand_id}: the {fmt} report")
        return 0
    if fmt == "events":
        text = events_record(store, h)
        what = "the table's events (JSON lines)"
    else:
        try:
            text = engine_record(store, h)
        except NotFaithful as exc:
            raise CommandError(
                f"hand {hand_id} cannot be written as an engine hand record faithfully: {exc}; "
                "'--format events' writes the table's own events"
            ) from None
        what = "an engine hand record (shengji.record.replay reads it)"
    _emit(text, out, f"hand {hand_id}: {len(text.splitlines()) - 1} events, {what},")
    return 0


def _check(store: Any) -> int:
    problems, remarks = store.check()
    counts = store.counts()
    print(
        f"records {store.path}: {counts['tables']} table(s), {counts['sessions']} session(s), "
        f"{counts['events']} event(s), {counts['hands']} hand(s), {counts['verdicts']} verdict(s)"
    )
    for r in remarks:
        print(f"  {r}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    print("integrity: ok" if not problems else f"integrity: {len(problems)} problem(s)")
    return 1 if problems else 0
