"""Analisi della partita waits on queues of its own: a review takes tens of seconds of a worker
slot, and a computer's move queued behind it would leave its table standing still. A person's
request from the replay has a queue of its own too, which the analysis worker reads before the
automatic one (Procfile), and an automatic review carries an expiry. Read on the real Redis
broker with no worker running, so the messages stay where they were put."""

from __future__ import annotations

import json

import pytest

from games.services.history import analysis
from games.services.table import turns
from tests.factories import finished_match
from tests.games.helpers import make_user, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def _messages(client, queue: str) -> list[dict]:
    return [json.loads(raw)["headers"] for raw in client.lrange(queue, 0, -1)]


def _tasks(client, queue: str) -> list[str]:
    return [headers["task"] for headers in _messages(client, queue)]


def test_an_analysis_is_queued_apart_from_the_computers_moves(timers):
    client = timers.redis()
    person = make_user("coda_an")
    asked = finished_match([person, None], seed=23)
    analysis.request_analysis(asked)  # from the replay
    ended = finished_match([person, None], seed=24)
    analysis.queue_after_game(ended.pk)  # a match with a person just ended
    table = started_table([make_user("coda_cm"), make_user("coda_cm2")], preset="mano_unica")
    turns.after_change(table.game.pk, table.game.version, computer_next=True)
    try:
        assert _tasks(client, f"{timers.queue}.analysis.asked") == ["games.analyse_game"]
        automatic = _messages(client, f"{timers.queue}.analysis")
        assert [m["task"] for m in automatic] == ["games.analyse_game"]
        assert automatic[0]["expires"]  # the broker drops it if nobody took it in time
        assert _messages(client, f"{timers.queue}.analysis.asked")[0]["expires"] is None
        assert _tasks(client, timers.queue) == ["games.computer_move"]
    finally:
        timers.forget_queue()
