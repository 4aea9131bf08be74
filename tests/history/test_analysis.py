"""Analisi della partita: esperto's review of a finished game, judged from the seat's view only.

The Celery path (a real worker running the task, and the queueing when a match ends) is in
tests/timers/test_analysis_worker.py; here the service and the pages."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from django.utils import translation

from games.bots.knowledge import determinize
from games.engine import replay
from games.models import Analysis, Move
from games.selectors.replays import build_hand_replay
from games.services.history import analysis
from tests.factories import finished_match, make_user, make_users, match_in_progress

pytestmark = pytest.mark.django_db

WORLDS = 6


def _decisions(game, seat):
    """(view, action) at each draw and discard of `seat` in hand 1, and the engine at that point."""
    hand = game.hands.get(number=1)
    engine = replay(hand.deal, [])
    out = []
    for move in Move.objects.filter(game=game, hand_number=1).order_by("seq"):
        if move.seat == seat and move.action["type"] in ("draw", "take_discards", "discard"):
            out.append((engine.copy(), move.action))
        engine.apply(move.seat, move.action)
    return out


def test_a_decision_is_judged_from_the_seat_view_alone():
    """Two positions that look the same to the seat (same view) but hide different cards give the
    same review: the hidden cards never reach it."""
    person = make_user()
    game = finished_match([person, None], seed=11)
    compared = 0
    for engine, action in _decisions(game, 0)[:12]:
        view = engine.view(0)
        other = determinize(view, random.Random(99))  # the same view, other hidden cards
        same = lambda v: {k: x for k, x in v.items() if k != "version"}  # noqa: E731 (the count of actions)
        assert same(other.view(0)) == same(view)
        hidden = lambda g: (g.hands[1], g.stock)  # noqa: E731
        if hidden(other) == hidden(engine):
            continue
        one = analysis.review_decision(view, action, random.Random(5), worlds=WORLDS)
        two = analysis.review_decision(other.view(0), action, random.Random(5), worlds=WORLDS)
        assert one == two
        compared += one is not None
    assert compared >= 6


def test_each_review_gets_the_public_record_of_the_hand_up_to_that_decision(monkeypatch):
    person = make_user()
    game = finished_match([person, None], seed=11)
    seen = []
    real = analysis.candidate_values

    def spy(view, candidates, rng, **kwargs):
        seen.append((view["version"], kwargs.get("record")))
        return real(view, candidates, rng, **kwargs)

    monkeypatch.setattr(analysis, "candidate_values", spy)
    analysis.analyse_game(game, worlds=1)
    assert len(seen) > 5
    moves = list(Move.objects.filter(game=game, hand_number=1).order_by("seq"))
    deal = game.hands.get(number=1).deal
    for version, record in seen[:10]:
        assert record == replay(deal, [m.action for m in moves[:version]]).public_record()
    assert any(any(e["type"] == "take_discards" or e["type"] == "discard" for e in r) for _, r in seen)


def test_the_review_marks_costly_draws_and_discards_at_their_move():
    person = make_user()
    game = finished_match([person, None], seed=12)  # random legal play: plenty to mark
    notes, reviewed = analysis.analyse_game(game, worlds=WORLDS)
    frames = build_hand_replay(game, 1).frames
    moves = list(Move.objects.filter(game=game, hand_number=1).order_by("seq"))
    assert reviewed > 20
    assert notes, "random play should leave costly decisions"
    assert {n["kind"] for n in notes} <= {"draw", "discard"}
    for note in notes:
        assert note["seat"] == 0  # only the person's decisions; the computer seat is not reviewed
        assert note["gain"] >= analysis.MARK_MIN_GAIN
        assert note["best"] != note["chosen"]
        move = moves[note["step"] - 1]  # frame k is the position after move k
        assert frames[note["step"]]["seat"] == 0
        if note["kind"] == "draw":
            assert move.action["type"] in ("draw", "take_discards") and move.action == note["chosen"]
        else:
            assert move.action == note["chosen"]
    per_kind = {}
    for note in notes:
        per_kind[note["kind"]] = per_kind.get(note["kind"], 0) + 1
    assert max(per_kind.values()) <= analysis.NOTES_PER_KIND
    # Repeatable: the same game reviewed again marks the same moves.
    assert analysis.analyse_game(game, worlds=WORLDS) == (notes, reviewed)


def test_note_texts_in_italian_and_english():
    take = {"kind": "draw", "chosen": {"type": "draw"}, "best": {"type": "take_discards"}, "gain": 120.4}
    discard = {"kind": "discard", "chosen": {"type": "discard", "card": "TH"},
               "best": {"type": "discard", "card": "KS"}, "gain": 61}
    assert analysis.note_text(take) == "Qui prendere gli scarti valeva in media +120 punti rispetto al tallone."
    assert analysis.note_text(discard) == "Qui scartare K♠ invece di 10♥ valeva in media +61 punti."
    with translation.override("en"):
        assert analysis.note_text(take) == ("Taking the discard pile here was worth +120 points on average "
                                            "over the stock.")
        assert analysis.note_text(discard) == "Discarding K♠ instead of 10♥ here was worth +61 points on average."


def test_requesting_from_the_replay_page(client, settings):
    settings.ANALYSIS_WORLDS = WORLDS  # the page's steps hold for any number; the site's 24 cost minutes
    people = make_users(2, prefix="an")
    game = finished_match([people[0], None], seed=13)
    url = f"/storico/partita/{game.pk}/replay/"
    body = client.get(url).content.decode()
    assert "Accedi per chiedere l'analisi" in body and 'id="r-analysis-form"' not in body
    # Not signed in: sent to log in, nothing queued.
    response = client.post(f"/storico/partita/{game.pk}/analisi/")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))
    assert not Analysis.objects.exists()
    client.force_login(people[1])
    assert 'id="r-analysis-form"' in client.get(url).content.decode()
    response = client.post(f"/storico/partita/{game.pk}/analisi/", {"mano": "1"}, follow=True)
    assert response.redirect_chain[-1][0] == url + "?mano=1"
    page = response.content.decode()
    assert "Analisi chiesta" in page and "Analisi in corso" in page and 'id="r-analysis-form"' not in page
    first = Analysis.objects.get(game=game)
    assert first.status == Analysis.Status.QUEUED
    # Asked again: still the one analysis.
    client.post(f"/storico/partita/{game.pk}/analisi/")
    assert Analysis.objects.filter(game=game).count() == 1
    # Computed (by the task's own function; the worker runs it in the timers tests): the marks
    # reach the page's data at their move.
    assert analysis.run_analysis(game.pk).endswith("decisions")
    done = Analysis.objects.get(game=game)
    assert done.status == Analysis.Status.DONE and done.reviewed > 0
    response = client.get(url)
    data = response.context["replay_data"]
    assert [n["step"] for n in data["notes"]] == [n["step"] for n in done.notes if n["hand"] == 1]
    assert all(n["text"].startswith("Qui ") for n in data["notes"])
    assert "Analisi pronta" in response.content.decode()
    # A task delivered twice does nothing the second time.
    assert analysis.run_analysis(game.pk) == "nothing to do"


def test_a_game_in_play_cannot_be_analysed(client):
    person = make_user()
    game = match_in_progress([person, None], stop_after=12)
    client.force_login(person)
    response = client.post(f"/storico/partita/{game.pk}/analisi/", follow=True)
    assert not Analysis.objects.exists()
    assert response.status_code == 409  # the replay page of a game in play
    assert "l&#x27;analisi si chiede a partita finita" in response.content.decode()
    with pytest.raises(Exception) as exc:
        analysis.request_analysis(game)
    assert "ancora in corso" in exc.value.message
