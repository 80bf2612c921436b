"""The hosts' upload tokens.

A token is 32 random bytes (``secrets.token_urlsafe``) shown once, when it is
made; the database keeps only its SHA-256 (a token is not a password a person
picks: it has 256 bits of entropy, so a plain hash is as strong as a KDF and
costs a request nothing). A request's token is looked up by its hash.
"""

from __future__ import annotations

import hashlib
import secrets

import psycopg

PREFIX = "tt_"


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def add(conn: psycopg.Connection, name: str) -> str:
    """Make a token called ``name`` (a host's or a person's name); the token."""
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise ValueError("a token's name is 1 to 100 characters")
    token = PREFIX + secrets.token_urlsafe(32)
    try:
        conn.execute("INSERT INTO tokens (name, token_sha256) VALUES (%s, %s)", (name, digest(token)))
    except psycopg.errors.UniqueViolation:
        raise ValueError(f"a token called {name!r} exists (names stay taken after a revoke): "
                         "give another name") from None
    return token


def revoke(conn: psycopg.Connection, name: str) -> bool:
    cur = conn.execute(
        "UPDATE tokens SET revoked_at = now() WHERE name = %s AND revoked_at IS NULL", (name,))
    return cur.rowcount > 0


def listing(conn: psycopg.Connection) -> list[tuple[str, str, str]]:
    return [(r[0], str(r[1]), "revoked " + str(r[2]) if r[2] else "valid") for r in conn.execute(
        "SELECT name, created_at, revoked_at FROM tokens ORDER BY token_id")]
