"""Nothing authoritative in process memory: whole hands played over real WebSockets against two
Daphne processes sharing PostgreSQL and Redis, the players split between the two servers.

Every action is sent by the socket of the seat to move (a random legal action, chosen from the
database's position); every player, whichever server it is connected to, must receive every
event in version order with its own hand, then the scoring. Skipped without PostgreSQL and Redis
(a SQLite file and the in-memory channel layer cannot be shared by two processes); CI has both.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from contextlib import ExitStack

import pytest
from django.db import connection

from games.live import presence
from games.models import Game
from tests.conftest import free_port, server_env, start_daphne
from tests.games.helpers import engine_of, make_user, random_legal, session_cookie, started_table

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture(scope="module")
def two_servers(django_db_setup, django_db_blocker):
    if connection.vendor != "postgresql" or not os.environ.get("REDIS_URL"):
        pytest.skip("two server processes need PostgreSQL and Redis (set DATABASE_URL and REDIS_URL)")
    with django_db_blocker.unblock():
        env = server_env()
    processes, urls = [], []
    try:
        for _ in range(2):
            port = free_port()
            processes.append(start_daphne(port, env))
            urls.append(f"ws://127.0.0.1:{port}")
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)


def open_socket(base: str, table_id: int, user):
    from websockets.sync.client import connect

    return connect(
        f"{base}/ws/table/{table_id}/",
        additional_headers={"Origin": base.replace("ws://", "http://"), "Cookie": session_cookie(user).decode()},
        open_timeout=TIMEOUT,
    )


def next_frame(sock, *types: str) -> dict:
    while True:
        frame = json.loads(sock.recv(timeout=TIMEOUT))
        if frame["type"] in types:
            return frame


class Pace:
    """The client's side of the server's token bucket (5 at once, 5 a second), a bit slower."""

    def __init__(self, capacity: float = 4, rate: float = 4.5) -> None:
        self.capacity, self.rate, self.tokens, self.stamp = capacity, rate, capacity, time.monotonic()

    def wait(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            time.sleep((1 - self.tokens) / self.rate)


def play_a_hand_across_servers(urls: list[str], players: int, seed: int) -> None:
    users = [make_user(f"x{seed}u{i}") for i in range(players)]
    table = started_table(users, target=None)
    game = Game.objects.get(table=table)
    # Alternate servers around the table, so every turn passes from one process to the other.
    with ExitStack() as stack:
        sockets = {seat: stack.enter_context(open_socket(urls[seat % 2], table.pk, users[seat]))
                   for seat in range(players)}
        for seat, sock in sockets.items():
            sock.send(json.dumps({"type": "hello", "last_version": None}))
            snapshot = next_frame(sock, "snapshot")
            assert snapshot["seat"] == seat and snapshot["version"] == 0
            assert Counter(snapshot["view"]["hand"]) == Counter(c.text for c in engine_of(game).hand(seat))
        assert presence.seats_online(table.pk, range(players)) == dict.fromkeys(range(players), True)

        rng = random.Random(seed)
        buckets = {seat: Pace() for seat in sockets}
        version = 0
        while True:
            game.refresh_from_db()
            if game.finished:
                break
            position = engine_of(game)
            seat = position.to_move
            action = random_legal(position, rng)
            buckets[seat].wait()  # a person never plays 5 actions a second; the server enforces it
            sockets[seat].send(json.dumps({"type": "action", "version": version, "action": action}))
            version += 1
            events = {p: next_frame(sock, "event", "error") for p, sock in sockets.items()}
            game.refresh_from_db()  # the action is committed: every socket has its event
            after = engine_of(game)  # a single-hand match keeps its last hand's position
            for p, event in events.items():
                assert event["type"] == "event", event
                assert event["version"] == version and event["seat"] == seat  # no gap, no reordering
                assert Counter(event["view"]["hand"]) == Counter(c.text for c in after.hand(p))
                if game.finished:
                    scoring = next_frame(sockets[p], "hand_over")
                    assert scoring["match_over"] and scoring["totals"] == game.totals
        assert game.version == version and version > 50


def test_a_two_player_hand_across_two_servers(two_servers):
    play_a_hand_across_servers(two_servers, 2, seed=11)


def test_a_four_player_hand_across_two_servers(two_servers):
    play_a_hand_across_servers(two_servers, 4, seed=12)
