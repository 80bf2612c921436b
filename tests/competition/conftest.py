"""The club's real-PostgreSQL fixtures (tests/club/conftest.py), shared with these tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_club_fixtures", Path(__file__).parents[1] / "club" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_club = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_club)

pg_cluster = _club.pg_cluster
club_db = _club.club_db
club_token = _club.club_token
club_server = _club.club_server
