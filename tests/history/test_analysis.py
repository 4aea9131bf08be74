"""Analisi della partita: esperto's review of a finished game, judged from the seat's view only.

The Celery path (a real worker running the task, and the queueing when a match ends) is in
tests/timers/test_analysis_worker.py; here the service and the pages."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games.bots.knowledge import determinize
from games.engine import Game, Ruleset, replay
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


# ----------------------------------------------------------------------------- within its means


@pytest.fixture
def sent(monkeypatch):
    """The analysis tasks sent to the broker: (game id, queue, expires), in order."""
    from games import tasks

    out = []
    monkeypatch.setattr(tasks.analyse_game, "apply_async",
                        lambda args, **kw: out.append((args[0], kw["queue"], kw.get("expires"))))
    return out


def test_past_the_cap_an_automatic_review_is_skipped_and_a_requested_one_still_queued(
        settings, sent, django_capture_on_commit_callbacks):
    settings.ANALYSIS_QUEUE_MAX = 2
    settings.ANALYSIS_QUEUE_EXPIRE_SECONDS = 600
    person = make_user()
    games = [finished_match([person, None], seed=40 + i, max_hands=1) for i in range(4)]
    with django_capture_on_commit_callbacks(execute=True):
        for game in games[:3]:
            analysis.queue_after_game(game.pk)
    statuses = [Analysis.objects.get(game=g).status for g in games[:3]]
    assert statuses == [Analysis.Status.QUEUED, Analysis.Status.QUEUED, Analysis.Status.SKIPPED]
    # Automatic: on the automatic queue, with an expiry; the skipped one never reached the broker.
    assert sent == [(g.pk, settings.CELERY_ANALYSIS_QUEUE, 1200) for g in games[:2]]
    # A person's request is not capped: queued on the queue read first, and a skipped one can be asked.
    with django_capture_on_commit_callbacks(execute=True):
        analysis.request_analysis(games[3])
        analysis.request_analysis(games[2])
    assert sent[2:] == [(g.pk, settings.CELERY_ANALYSIS_ASKED_QUEUE, None) for g in (games[3], games[2])]
    assert {a.status for a in Analysis.objects.filter(game__in=games[2:])} == {Analysis.Status.QUEUED}
    assert Analysis.objects.filter(asked=True).count() == 2
    # Once a review was taken, the next match finds room again.
    Analysis.objects.filter(game=games[0]).update(status=Analysis.Status.DONE)
    fifth = finished_match([person, None], seed=45, max_hands=1)
    with django_capture_on_commit_callbacks(execute=True):
        analysis.queue_after_game(fifth.pk)
    assert Analysis.objects.get(game=fifth).status == Analysis.Status.QUEUED


def test_an_automatic_review_taken_late_is_skipped_and_does_nothing(settings, sent, monkeypatch):
    settings.ANALYSIS_QUEUE_EXPIRE_SECONDS = 600
    person = make_user()
    late, asked = (finished_match([person, None], seed=s, max_hands=1) for s in (50, 51))
    analysis.queue_after_game(late.pk)
    analysis.request_analysis(asked)
    Analysis.objects.update(requested_at=timezone.now() - timedelta(seconds=601))
    monkeypatch.setattr(analysis, "analyse_game", lambda *a, **k: pytest.fail("a late review was run"))
    assert analysis.run_analysis(late.pk) == "skipped: waited too long"
    row = Analysis.objects.get(game=late)
    assert row.status == Analysis.Status.SKIPPED and row.reviewed == 0 and row.finished_at is None
    assert analysis.run_analysis(late.pk) == "nothing to do"  # delivered twice
    # A person's request waits as long as it must.
    monkeypatch.setattr(analysis, "analyse_game", lambda *a, **k: ([], 7))
    assert analysis.run_analysis(asked.pk) == "0 marks of 7 decisions"


def test_a_skipped_review_says_so_on_the_replay_and_can_be_asked_for(client, settings, sent,
                                                                       django_capture_on_commit_callbacks):
    settings.ANALYSIS_QUEUE_MAX = 1
    person = make_user()
    first, game = (finished_match([person, None], seed=s, max_hands=1) for s in (60, 61))
    analysis.queue_after_game(first.pk)
    analysis.queue_after_game(game.pk)
    assert Analysis.objects.get(game=game).status == Analysis.Status.SKIPPED
    client.force_login(person)
    url = f"/storico/partita/{game.pk}/replay/"
    page = client.get(url).content.decode()
    assert "Analisi saltata" in page and 'id="r-analysis-form"' in page
    with translation.override("en"):
        assert analysis.status_text(Analysis.objects.get(game=game)).startswith("Review skipped")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/storico/partita/{game.pk}/analisi/", {"mano": "1"}, follow=True)
    page = response.content.decode()
    assert "Analisi chiesta" in page and "Analisi in corso" in page and 'id="r-analysis-form"' not in page
    assert sent == [(game.pk, settings.CELERY_ANALYSIS_ASKED_QUEUE, None)]
    # An automatic review left waiting past its expiry reads as skipped too (the task will skip it).
    Analysis.objects.filter(game=first).update(requested_at=timezone.now() - timedelta(days=1))
    assert "Analisi saltata" in client.get(f"/storico/partita/{first.pk}/replay/").content.decode()


def test_a_discard_that_feeds_the_pile_is_now_marked():
    """Issue 31: a pile left to the opponent is a cost. Throwing the king of hearts onto a pile
    holding the kings of clubs and diamonds hands whoever takes it a set of kings. The review
    before (esperto's look-ahead alone) found it as good as the best of the others; with medio's
    judgement of what the pile becomes (`strategy.pile_feed_cost`) it is marked, the four of clubs
    the better card."""
    game = Game.setup(Ruleset.preset("classico"), hands=["KH 4C 9S 9D 6H 7H", "3S 5C 8D TC JD QC AS 4D 6S 2C JC"],
                      stock="5S 7S 8S 3H 4H 5D 6D 7D 8C 9C TD QH QD AH AC 3C 6C TS",
                      discard="KC KD 5H 3D 7C JH 4S 8H 2D TH", to_move=0)
    game.apply(0, {"type": "draw"})
    view = game.view(0)
    feeding = {"type": "discard", "card": "KH"}
    before = analysis.review_decision(view, feeding, random.Random(5), worlds=WORLDS, feed=False)
    now = analysis.review_decision(view, feeding, random.Random(5), worlds=WORLDS)
    assert before["gain"] < analysis.MARK_MIN_GAIN  # approved then
    assert now["gain"] >= analysis.MARK_MIN_GAIN and now["best"] == {"type": "discard", "card": "4C"}
    # The pile's worth to the other side changed the verdict: the king lost 40 points, the four
    # of clubs (a pair with the pile's four of spades, little to them) 2.
    king = [max(r["values"]) - r["gain"] for r in (before, now)]
    at_four = now["values"].index(max(now["values"]))  # the four is the best now (asserted above)
    four = [r["values"][at_four] for r in (before, now)]
    assert king[0] - king[1] >= 2 * analysis.MARK_MIN_GAIN and four[0] - four[1] < analysis.MARK_MIN_GAIN / 4
