"""The player CSV: a good file gives every entry; a bad one names each line and field at
fault and gives nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tractor_table.competition.entries_csv import CsvError, Roster, parse_roster, roster_csv

GOOD = """entry,kind,pair,name,member_no,club
East Wind,pair,,Li Wei,1001,Riverside
East Wind,pair,,Wang Fang,1002,Riverside
West Wind,,,Chen Jing,,Harbour
West Wind,,,Zhao Lei,,Harbour
Dragons,team,1,Zhang San,2001,Harbour
Dragons,team,1,Li Si,2002,Harbour
Dragons,team,2,Wang Wu,2003,Harbour
Dragons,team,2,"Zhao, Liu",2004,Harbour
"""


def test_a_good_file() -> None:
    r = parse_roster(GOOD.encode())
    assert [(e.name, e.kind, len(e.members)) for e in r.entries] == [
        ("East Wind", "pair", 2), ("West Wind", "pair", 2), ("Dragons", "team", 4)]
    assert r.entries[2].pairs == (("#2001", "#2002"), ("#2003", "#2004"))
    assert {p.name for p in r.players} >= {"Zhao, Liu", "Chen Jing"}
    assert parse_roster(("\ufeff" + GOOD).encode()) == r  # a spreadsheet's BOM
    assert parse_roster(roster_csv(r)) == r


def test_chinese_headers_and_names() -> None:
    text = "组合,姓名,会员号\n东风,李伟,1\n东风,王芳,2\n"
    r = parse_roster(text.encode())
    assert r.entries[0].name == "东风" and r.players[0].name == "李伟"


@pytest.mark.parametrize("text, where", [
    ("entry,name\nA,x\nA,y\nB,z\n", "line 4, entry: pair B has 1 players"),
    ("entry,nom\nA,x\n", "line 1, nom: unknown column"),
    ("name\nx\n", "line 1, entry: the column is missing"),
    ("entry,name\nA,x\nA\n", "line 3: has 1 fields"),
    ("entry,name\nA,x\n,y\n", "line 3, entry: is empty"),
    ("entry,kind,name\nA,trio,x\n", "line 2, kind: 'trio' is not pair or team"),
    ("entry,name,member_no\nA,x,1\nA,y,1\n", "line 3, member_no: member number 1 is already x on line 2"),
    ("entry,name\nA,x\nA,y\nB,x\nB,z\n", "line 4, name: x is already listed on line 2"),
    ("entry,kind,pair,name\nT,team,1,a\nT,team,1,b\nT,team,2,c\n", "team T pair 2 has 1 players"),
    ("entry,kind,pair,name\nT,team,x,a\n", "line 2, pair: 'x': a team player needs a pair number"),
    ('entry,name\nA,"x\n', "not valid CSV"),
    ("", "is empty"),
])
def test_a_bad_file_names_the_line_and_field(text: str, where: str) -> None:
    with pytest.raises(CsvError) as e:
        parse_roster(text.encode())
    assert where in str(e.value)
    assert "nothing changed" in str(e.value)


def test_every_problem_is_reported_at_once() -> None:
    text = "entry,name,member_no\nA,x,1\nA,,2\nB,y,1\nB,z,3\n"
    with pytest.raises(CsvError) as e:
        parse_roster(text.encode())
    lines = [(p.line, p.field) for p in e.value.problems]
    assert (3, "name") in lines and (4, "member_no") in lines


def test_bytes_that_are_not_text() -> None:
    with pytest.raises(CsvError, match="line 2: is not UTF-8"):
        parse_roster(b"entry,name\nA,\xff\xfe\n")
    with pytest.raises(CsvError, match="NUL"):
        parse_roster(b"entry,name\nA,x\x00\n")
    with pytest.raises(CsvError, match="larger"):
        parse_roster(b"x" * 1_000_001)


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                min_size=1, max_size=20).map(str.strip).filter(bool)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(names, names), min_size=1, max_size=8, unique_by=lambda t: t[0]))
def test_any_roster_round_trips(teams: list[tuple[str, str]]) -> None:
    lines = ["entry,name,member_no"]
    for i, (entry, name) in enumerate(teams):
        for k in (1, 2):
            lines.append(",".join('"' + x.replace('"', '""') + '"' for x in (entry, name, f"{i}-{k}")))
    r = parse_roster("\n".join(lines) + "\n")
    assert isinstance(r, Roster) and len(r.entries) == len(teams)
    assert parse_roster(roster_csv(r)) == r
