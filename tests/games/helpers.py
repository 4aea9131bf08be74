"""Shared helpers of the live-play tests: people, tables, sessions, frames captured on the way out."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client

from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import transport
from games.models import Game, Table
from games.services.table import seating

ORIGIN = (b"origin", b"http://127.0.0.1")


def postgresql_without_timers(monkeypatch, why: str) -> None:
    """Skip unless the database is PostgreSQL (`why` says what needs it), and stop the timers and
    computer moves an action would schedule, so a test sees only the moves it makes itself."""
    from django.db import connection

    if connection.vendor != "postgresql":
        import pytest

        pytest.skip(why)
    without_timers(monkeypatch)


def without_timers(monkeypatch) -> None:
    """Stop the timers and computer moves an action would schedule: a test sees only its own moves."""
    from games.services.table import turns

    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)


def make_user(username: str):
    # No password: hashing one (Argon2) would cost more than the test; force_login needs none.
    return get_user_model().objects.create_user(username=username, email=f"{username}@example.it", password=None)


def logged_in(user) -> Client:
    """Django's test client signed in as `user`."""
    client = Client()
    client.force_login(user)
    return client


def session_cookie(user) -> bytes:
    """A session cookie header for `user`, as a logged-in browser would send it."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


HOST = (b"host", b"127.0.0.1")


def ws_headers(user=None, origin: tuple[bytes, bytes] = ORIGIN) -> list[tuple[bytes, bytes]]:
    """What a browser on http://127.0.0.1 sends: the Host it opened the socket on and its Origin."""
    headers = [HOST, origin]
    if user is not None:
        headers.append((b"cookie", session_cookie(user)))
    return headers


def started_table(users: list, *, preset: str = "classico", target=None, **overrides) -> Table:
    """A table with these people in seats 0..n-1, started (hand 1 dealt)."""
    players = len(users)
    ruleset = Ruleset.preset(preset, players=players, target=target, **overrides)
    table = seating.create_table(creator=users[0], ruleset=ruleset)
    for position, user in enumerate(users[1:], start=1):
        seating.sit(table_id=table.pk, user=user, position=position)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


def engine_of(game: Game) -> EngineGame:
    return EngineGame.from_dict(game.state)


def random_legal(engine_game: EngineGame, rng: random.Random) -> dict[str, Any]:
    """A random legal action for the seat to move (prefer plays now and then, like a weak bot)."""
    legal = list(engine_game.legal_actions(engine_game.to_move))
    plays = [a for a in legal if a["type"] in ("meld", "lay_off")]
    if plays and rng.random() < 0.7:
        return rng.choice(plays)
    draws = [a for a in legal if a["type"] in ("draw", "take_discards")]
    if draws:
        return draws[0] if rng.random() < 0.85 else rng.choice(draws)
    return rng.choice([a for a in legal if a["type"] == "discard"] or legal)


class Capture:
    """Records every (group, frame) the server delivers, instead of the channel layer."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, messages) -> None:
        self.sent.extend(messages)

    def by_group(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for group, frame in self.sent:
            out[group].append(frame)
        return out

    def clear(self) -> None:
        self.sent.clear()


def capture(monkeypatch) -> Capture:
    cap = Capture()
    monkeypatch.setattr(transport, "deliver", cap)
    return cap
