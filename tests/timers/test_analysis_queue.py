"""Analisi della partita waits on a queue of its own: a review takes tens of seconds of a worker
slot, and a computer's move queued behind it would leave its table standing still. Read on the
real Redis broker with no worker running, so the messages stay where they were put."""

from __future__ import annotations

import json

import pytest

from games.services.history import analysis
from games.services.table import turns
from tests.factories import finished_match
from tests.games.helpers import make_user, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def _tasks(client, queue: str) -> list[str]:
    return [json.loads(raw)["headers"]["task"] for raw in client.lrange(queue, 0, -1)]


def test_an_analysis_is_queued_apart_from_the_computers_moves(timers):
    client = timers.redis()
    person = make_user("coda_an")
    game = finished_match([person, None], seed=23)
    analysis.request_analysis(game)
    table = started_table([make_user("coda_cm"), make_user("coda_cm2")], preset="mano_unica")
    turns.after_change(table.game.pk, table.game.version, computer_next=True)
    try:
        assert _tasks(client, f"{timers.queue}.analysis") == ["games.analyse_game"]
        assert _tasks(client, timers.queue) == ["games.computer_move"]
    finally:
        timers.forget_queue()
