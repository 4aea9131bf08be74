"""Abandoning a match: play.abandon_match, its refusals, the result, the ratings, the frames, the
POST view and the pages that show it afterwards."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from games import tasks
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import clock, transport
from games.models import Game, Hand, Move, PlayerRating, RatingChange, Table
from games.selectors.replays import build_hand_replay, verify_game
from games.services import scheduler
from games.services.errors import ServiceError
from games.services.history import ratings
from games.services.play import autoplay
from games.services.play.play import abandon_match, submit_action
from games.services.table import turns
from games.services.table.seating import create_table, sit
from tests.games.helpers import capture, engine_of, make_user

pytestmark = pytest.mark.django_db(transaction=True)

real_after_change = turns.after_change


@pytest.fixture
def after_change(monkeypatch):
    """Record the calls of the scheduling hook instead of scheduling timers."""
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: calls.append((game_id, version)))
    return calls


def seated_table(users, *, rated: bool = False, preset: str = "classico", **overrides) -> Table:
    """A started table seating `users` in order (seat i -> users[i])."""
    ruleset = Ruleset.preset(preset, players=len(users), draw_seconds=300, play_seconds=300, **overrides)
    table = create_table(creator=users[0], ruleset=ruleset, rated=rated)
    for position, user in enumerate(users[1:], start=1):
        sit(table_id=table.pk, user=user, position=position)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


def play_a_turn(game: Game, users) -> int:
    """The seat to move draws and discards its first card (some moves in the log)."""
    seat = game.to_move
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat])
    game.refresh_from_db()
    card = engine_of(game).view(seat)["hand"][0]
    return submit_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": card}, user=users[seat])


def refusal(**kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        abandon_match(**kwargs)
    return info.value


# ----------------------------------------------------------------------------- refusals


def test_refusals_have_italian_messages_and_change_nothing(after_change):
    anna, bruno, carlo = make_user("anna"), make_user("bruno"), make_user("carlo")
    waiting = create_table(creator=anna, ruleset=Ruleset.preset("classico", players=2))
    exc = refusal(table_id=waiting.pk, user=anna)
    assert (exc.code, exc.message) == (
        "not_started", "La partita non è ancora iniziata: per lasciare il tavolo usa «Alzati».")

    table = seated_table([anna, bruno])
    game = Game.objects.get(table=table)
    exc = refusal(table_id=table.pk, user=carlo)  # a spectator
    assert (exc.code, exc.message) == ("not_seated", "Non sei seduto a questo tavolo.")
    assert refusal(table_id=999999, user=anna).code == "no_table"
    assert refusal(table_id=table.pk, user=AnonymousUser()).code == "not_seated"
    fresh = Game.objects.get(pk=game.pk)
    assert (fresh.finished, fresh.version, fresh.abandoned_by_id) == (False, 0, None)
    assert after_change == [(game.pk, 0)]  # the deal's only

    abandon_match(table_id=table.pk, user=anna)
    for user in (anna, bruno):  # whoever tries again
        exc = refusal(table_id=table.pk, user=user)
        assert (exc.code, exc.message) == ("already_finished", "La partita è già finita.")
    assert Game.objects.get(pk=game.pk).version == 1


# ----------------------------------------------------------------------------- the result


def test_abandoning_finishes_the_match_for_the_other_side_with_the_hand_unscored(after_change, monkeypatch):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = seated_table([anna, bruno])
    game = Game.objects.get(table=table)
    version = play_a_turn(game, [anna, bruno])
    moves = Move.objects.filter(game=game).count()
    cap = capture(monkeypatch)

    assert abandon_match(table_id=table.pk, user=bruno) == version + 1
    game.refresh_from_db()
    table.refresh_from_db()
    assert game.finished and game.finished_at is not None
    assert game.abandoned_by_id == bruno.pk
    assert game.winner_side == 0
    assert (game.to_move, game.turn_deadline, game.version) == (None, None, version + 1)
    assert game.result == {
        "totals": [0, 0], "winner_side": 0, "hands": 1, "target": 2005, "end_reason": "abandoned",
        "abandoned_by": "bruno", "abandoned_seat": 1,
    }
    assert table.status == Table.Status.FINISHED and table.finished_at is not None
    hand = Hand.objects.get(game=game, number=1)
    assert hand.score is None and hand.finished_at is not None  # the interrupted hand is not scored
    assert Move.objects.filter(game=game).count() == moves  # abandoning is not an engine action
    assert not RatingChange.objects.exists()  # an unrated table
    assert after_change[-1] == (game.pk, version + 1)
    # The hook itself schedules nothing for a finished game: no timer, no computer move.
    scheduled: list[tuple] = []
    monkeypatch.setattr(tasks.computer_move, "apply_async", lambda *args, **kw: scheduled.append(args))
    real_after_change(game.pk, version + 1)
    real_after_change(game.pk, version)
    assert scheduled == []

    # The frames: every seat and the spectators get match_over, then their own final snapshot;
    # the table's status goes to everyone.
    groups = cap.by_group()
    for position in (0, 1, None):
        group = transport.seat_group(table.pk, position) if position is not None else transport.public_group(table.pk)
        over, snap = groups[group]
        assert over == {"type": "match_over", "version": version + 1, "hand_number": 1, "reason": "abandoned",
                        "abandoned_by": "bruno", "abandoned_seat": 1, "totals": [0, 0], "winner_side": 0,
                        "computer_for": []}
        assert snap["type"] == "snapshot" and snap["finished"] is True
        assert snap["result"]["end_reason"] == "abandoned" and snap["version"] == version + 1
        assert snap["seat"] == position
        assert ("hand" in snap["view"]) is (position is not None)
        if position is not None:
            assert snap["view"]["seat"] == position
    table_frames = [f for f in groups[transport.all_group(table.pk)] if f["type"] == "table"]
    assert table_frames and table_frames[-1]["table"]["status"] == "finished"

    # Nothing more happens to a finished game: old timers and computer tasks are stale, actions refused.
    assert autoplay.handle_due(game.pk, version) == "stale"
    assert autoplay.play_computer_move(game.pk, version + 1) == "stale"
    with pytest.raises(ServiceError) as info:
        submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=anna)
    assert info.value.code == "not_playing"
    scheduler.run_due(clock.now() + timedelta(hours=1))  # nothing of a finished game is ever due
    assert Game.objects.get(pk=game.pk).version == version + 1


def test_an_abandon_in_a_later_hand_keeps_the_played_hands_and_replays_cleanly(after_change):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = seated_table([anna, bruno], target=2005)
    game = Game.objects.get(table=table)
    ruleset = Ruleset.from_dict(table.options)
    # Hand 1 is forced to a position where seat 0 closes at once.
    engine = EngineGame.setup(
        ruleset, hands=["KS", "5C 6C 9D"], stock="TH 4D 8S QC", discard="3S",
        melds=[["3H 4H 5H 6H 7H 8H 9H"], []], to_move=0,
    )
    game.state, game.to_move = engine.to_dict(), engine.to_move
    game.save()
    Hand.objects.filter(game=game, number=1).update(deal=engine.deal)
    users = [anna, bruno]
    submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=anna)
    submit_action(game_id=game.pk, seat=0, action={"type": "lay_off", "meld": 1, "cards": ["TH"]}, user=anna)
    submit_action(game_id=game.pk, seat=0, action={"type": "discard", "card": "KS"}, user=anna)
    game.refresh_from_db()
    assert game.hand_number == 2 and not game.finished
    totals = list(game.totals)
    assert totals[0] > totals[1]  # anna's side leads on points
    play_a_turn(game, users)

    abandon_match(table_id=table.pk, user=anna)  # ...and gives up all the same
    game.refresh_from_db()
    assert game.winner_side == 1
    assert game.result["totals"] == totals and game.result["hands"] == 2
    assert Hand.objects.get(game=game, number=1).score is not None
    assert Hand.objects.get(game=game, number=2).score is None
    # The record still replays through the engine, and the result is no disagreement.
    assert verify_game(game) == []
    for number in (1, 2):
        replayed = build_hand_replay(game, number)
        assert replayed.error is None
    assert len(build_hand_replay(game, 2).frames) == 3  # the deal and the two moves before the abandon


# ----------------------------------------------------------------------------- ratings


def test_on_a_rated_one_to_one_table_the_abandoning_player_loses_exactly_once(after_change):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = seated_table([anna, bruno], rated=True)
    game = Game.objects.get(table=table)
    play_a_turn(game, [anna, bruno])

    abandon_match(table_id=table.pk, user=anna)
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {anna.pk, bruno.pk}
    assert (changes[anna.pk].score, changes[bruno.pk].score) == (0.0, 1.0)
    assert changes[anna.pk].after == pytest.approx(1480.0)  # K 40 × (0 − 0.5)
    assert changes[bruno.pk].after == pytest.approx(1520.0)
    a = PlayerRating.objects.get(user=anna, mode="2p")
    b = PlayerRating.objects.get(user=bruno, mode="2p")
    assert (a.rating, a.games, a.losses, a.wins) == (pytest.approx(1480.0), 1, 1, 0)
    assert (b.rating, b.games, b.wins) == (pytest.approx(1520.0), 1, 1)

    # A second abandon, a retried finish: nothing moves again.
    with pytest.raises(ServiceError):
        abandon_match(table_id=table.pk, user=bruno)
    ratings.record_match_result(Game.objects.get(pk=game.pk))
    assert RatingChange.objects.count() == 2
    assert PlayerRating.objects.get(user=anna, mode="2p").games == 1


def test_on_a_rated_pairs_table_both_partners_of_the_abandoning_side_lose(after_change):
    users = [make_user(n) for n in ("anna", "bruno", "carla", "dario")]
    table = seated_table(users, rated=True)
    game = Game.objects.get(table=table)

    abandon_match(table_id=table.pk, user=users[3])  # dario, seat 3, side 1 with bruno
    game.refresh_from_db()
    assert game.winner_side == 0
    scores = {c.user_id: c.score for c in RatingChange.objects.filter(game=game, mode="4p")}
    assert scores == {users[0].pk: 1.0, users[2].pk: 1.0, users[1].pk: 0.0, users[3].pk: 0.0}
    for user in (users[1], users[3]):
        rating = PlayerRating.objects.get(user=user, mode="4p")
        assert rating.rating < 1500 and rating.losses == 1
    assert not PlayerRating.objects.filter(mode="2p").exists()


def test_on_an_unrated_table_no_rating_changes(after_change):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = seated_table([anna, bruno], rated=False)
    abandon_match(table_id=table.pk, user=anna)
    assert Game.objects.get(table=table).finished
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


# ----------------------------------------------------------------------------- view and pages


def test_the_post_view_abandons_and_the_pages_say_so(after_change):
    anna, bruno, carlo = make_user("anna"), make_user("bruno"), make_user("carlo")
    table = seated_table([anna, bruno])
    url = reverse("table_abandon", args=[table.pk])
    assert url == f"/tavolo/{table.pk}/abbandona/"

    page = Client()
    page.force_login(anna)
    body = page.get(reverse("table", args=[table.pk])).content.decode()
    assert 'id="btn-abandon"' in body and 'id="abandon-dialog"' in body and url in body
    watcher = Client()
    watcher.force_login(carlo)
    assert 'id="btn-abandon"' not in watcher.get(reverse("table", args=[table.pk])).content.decode()

    assert Client().post(url).status_code == 302  # to the sign-in page
    assert page.get(url).status_code == 405
    response = watcher.post(url, follow=True)
    assert "Non sei seduto a questo tavolo." in response.content.decode()
    assert not Game.objects.get(table=table).finished

    response = page.post(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse("table", args=[table.pk])
    text = response.content.decode()
    assert "Hai abbandonato la partita." in text
    assert 'id="btn-abandon"' not in text  # the match is over
    game = Game.objects.get(table=table)
    assert game.finished and game.abandoned_by_id == anna.pk
    assert "La partita è già finita." in page.post(url, follow=True).content.decode()

    detail = watcher.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert "anna ha abbandonato la partita" in detail
    assert "Interrotta dall'abbandono" in detail and 'id="replay-link"' in detail
    assert "Nessuna mano è ancora finita." not in detail
    history = watcher.get(reverse("history")).content.decode()
    assert "abbandonata da anna" in history
    assert watcher.get(reverse("game_moves_json", args=[game.pk])).json()["abandoned_by"] == "anna"
    replay = watcher.get(reverse("game_replay", args=[game.pk]) + "?mano=1")
    assert replay.status_code == 200
    assert 'id="replay-error"' not in replay.content.decode()


def test_the_refusals_and_the_page_have_english_translations(after_change):
    from django.utils import translation

    anna, bruno, carlo = make_user("anna"), make_user("bruno"), make_user("carlo")
    table = seated_table([anna, bruno])
    with translation.override("en"):
        assert refusal(table_id=table.pk, user=carlo).message == "You are not seated at this table."
    anna.language = "en"  # the page follows the player's own setting
    anna.save(update_fields=["language"])
    page = Client()
    page.force_login(anna)
    body = page.get(reverse("table", args=[table.pk])).content.decode()
    assert "Abandon the match" in body and "Keep playing" in body
    assert "{name} abandoned the match." in body  # the script's label
