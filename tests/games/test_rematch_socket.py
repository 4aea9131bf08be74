"""The rematch over real WebSockets against a Daphne process (PostgreSQL and Redis): an offer,
a "no" heard at once by everybody at the finished table, an offer that ends when a person leaves
the table (and does not when their page only reloads), and the refusals, in Italian and English,
that change nothing."""

from __future__ import annotations

import json
import time

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Rematch, Table
from games.services.lobby.rematch import LEAVE_GRACE_SECONDS
from games.services.table import turns
from games.services.table.play import abandon_match
from tests.games.helpers import make_user, session_cookie, started_table

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture(autouse=True)
def quiet_turns(monkeypatch):
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)


@pytest.fixture
def ws_base(live_site) -> str:
    return live_site.replace("http://", "ws://")


def open_socket(base: str, table_id: int, user):
    from websockets.sync.client import ClientConnection, connect

    sock: ClientConnection = connect(
        f"{base}/ws/table/{table_id}/",
        additional_headers={"Origin": base.replace("ws://", "http://"), "Cookie": session_cookie(user).decode()},
        open_timeout=TIMEOUT,
    )
    sock.send(json.dumps({"type": "hello", "last_version": None}))
    next_frame(sock, "snapshot")
    return sock


def next_frame(sock, *types: str, timeout: float = TIMEOUT) -> dict:
    end = time.monotonic() + timeout
    while True:
        frame = json.loads(sock.recv(timeout=max(0.01, end - time.monotonic())))
        if frame["type"] in types:
            return frame


def no_frame(sock, kind: str, seconds: float) -> None:
    """Nothing of `kind` arrives within `seconds`."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            frame = json.loads(sock.recv(timeout=left))
        except TimeoutError:
            return
        assert frame["type"] != kind, frame


def finished_table(users) -> Table:
    table = started_table(users)
    abandon_match(table_id=table.pk, user=users[1])
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def say(sock, answer: str, ref: str | None = None) -> None:
    sock.send(json.dumps({"type": "rematch", "answer": answer, **({"ref": ref} if ref else {})}))


def test_a_no_is_heard_at_once_by_the_offerer_and_ends_the_offer(ws_base):
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    table = finished_table([anna, bruno])
    a, b, c = (open_socket(ws_base, table.pk, u) for u in (anna, bruno, carla))  # carla watches
    try:
        say(b, "yes")
        for sock in (a, b, c):
            frame = next_frame(sock, "rematch")
            assert (frame["accepted"], frame["needed"], frame["ended"], frame["table_url"]) == ([1], [0, 1], None, None)

        started = time.monotonic()
        say(a, "no")
        for sock in (a, b, c):
            frame = next_frame(sock, "rematch")
            assert frame == {"type": "rematch", "table": table.pk, "accepted": [1], "needed": [0, 1],
                             "table_url": None, "ended": "declined", "ended_by": 0}
        heard = time.monotonic() - started
        assert heard < 2.0, heard
        offer = Rematch.objects.get(table=table)
        assert (offer.ended, offer.ended_by, offer.new_table_id) == ("declined", 0, None)

        # Saying yes to the declined offer: refused in Italian, nothing changes.
        say(b, "yes", ref="r1")
        error = next_frame(b, "error")
        assert (error["code"], error["message"], error["ref"]) == (
            "rematch_declined", "La rivincita è stata rifiutata: a questo tavolo non se ne gioca un'altra.", "r1")
        offer.refresh_from_db()
        assert (offer.accepted, offer.ended, offer.new_table_id) == ([1], "declined", None)
        assert Table.objects.count() == 1
        # A spectator has no say; a "no" again is no news (no frame to anybody).
        say(c, "no", ref="r2")
        error = next_frame(c, "error")
        assert (error["code"], error["ref"]) == ("not_seated", "r2")
        say(a, "no")
        no_frame(b, "rematch", 1.0)
        # A socket that was away when it happened hears it on its hello (frames are sent once).
        late = open_socket(ws_base, table.pk, bruno)
        frame = next_frame(late, "rematch")
        assert (frame["ended"], frame["ended_by"], frame["accepted"]) == ("declined", 0, [1])
        late.close()
        # The finished table's page, loaded afresh, draws the ended offer.
        page = Client()
        page.force_login(bruno)
        html = page.get(reverse("table", args=[table.pk])).content.decode()
        assert '"ended": "declined"' in html and '"ended_by": 0' in html
    finally:
        for sock in (a, b, c):
            sock.close()


def test_declining_with_no_offer_or_a_bad_answer_is_refused_and_changes_nothing(ws_base):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno])
    a = open_socket(ws_base, table.pk, anna)
    try:
        say(a, "no", ref="n1")
        error = next_frame(a, "error")
        assert (error["code"], error["message"], error["ref"]) == (
            "no_offer", "Non c'è nessuna rivincita da rifiutare: nessuno l'ha chiesta.", "n1")
        a.send(json.dumps({"type": "rematch", "answer": "forse", "ref": "n2"}))
        error = next_frame(a, "error")
        assert (error["code"], error["ref"]) == ("bad_frame", "n2")
        assert not Rematch.objects.exists()
    finally:
        a.close()

    # The page's "No, grazie" form with no offer, in English: the same refusal, translated.
    bruno.language = "en"  # the page follows the player's own setting
    bruno.save(update_fields=["language"])
    english = Client()
    english.force_login(bruno)
    response = english.post(reverse("table_rematch_decline", args=[table.pk]), follow=True)
    assert "There is no rematch to decline: nobody asked for one." in response.content.decode()
    assert not Rematch.objects.exists()


def test_the_offer_ends_when_the_other_player_leaves_the_table_but_not_on_a_reload(ws_base):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno])
    a, b = open_socket(ws_base, table.pk, anna), open_socket(ws_base, table.pk, bruno)
    try:
        say(b, "yes")
        next_frame(b, "rematch")
        # Anna's page reloads: her socket closes and another opens within the grace.
        a.close()
        a = open_socket(ws_base, table.pk, anna)
        no_frame(b, "rematch", LEAVE_GRACE_SECONDS + 1.5)
        assert Rematch.objects.get(table=table).ended == ""

        # Anna closes the page for good: Bruno hears that the offer is over.
        a.close()
        closed = time.monotonic()
        frame = next_frame(b, "rematch")
        waited = time.monotonic() - closed
        assert (frame["ended"], frame["ended_by"], frame["table_url"]) == ("left", 0, None)
        assert LEAVE_GRACE_SECONDS - 0.5 < waited < LEAVE_GRACE_SECONDS + 2.0, waited
        offer = Rematch.objects.get(table=table)
        assert (offer.ended, offer.ended_by, offer.new_table_id) == ("left", 0, None)

        # Coming back later and saying yes: refused, nothing changes.
        a = open_socket(ws_base, table.pk, anna)
        say(a, "yes", ref="y1")
        error = next_frame(a, "error")
        assert (error["code"], error["message"]) == (
            "rematch_left", "La rivincita è finita perché qualcuno ha lasciato il tavolo.")
        offer.refresh_from_db()
        assert (offer.accepted, offer.new_table_id) == ([1], None) and Table.objects.count() == 1
    finally:
        a.close()
        b.close()


def test_an_offer_to_somebody_who_already_left_ends_at_once(ws_base):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno])
    a, b = open_socket(ws_base, table.pk, anna), open_socket(ws_base, table.pk, bruno)
    try:
        a.close()  # Anna leaves before anybody asked
        time.sleep(LEAVE_GRACE_SECONDS + 0.5)
        no_frame(b, "rematch", 0.1)  # no offer, so nothing ended
        assert not Rematch.objects.exists()
        say(b, "yes")
        frame = next_frame(b, "rematch")
        assert (frame["accepted"], frame["ended"], frame["ended_by"]) == ([1], "left", 0)
        assert Table.objects.count() == 1
    finally:
        b.close()
