"""Reliability: the share of a player's matches they finished (games/selectors/reliability.py),
on the profile next to the ratings, and the matcher's preference for reliable players. Matches
end through the real services: "Abbandona", and turns that run out of time (the timer's own
`complete_turn`, which covers the seat after two in a row)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.engine import Ruleset
from games.live import clock
from games.models import BotLevel, Game, PlayerRating, QueueEntry, Seat, Table
from games.selectors.reliability import Reliability, reliability, reliability_of_users
from games.services.lobby import matchmaking
from games.services.lobby.matchmaking import RELIABILITY_MIX_SECONDS, Waiting, make_groups
from games.services.table import autoplay, turns
from games.services.table.play import abandon_match, submit_action
from games.services.table.seating import create_table, fill_with_computer, sit
from tests.games.helpers import engine_of, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_timers(monkeypatch):
    """No computer-move tasks for these tables: the tests play every turn themselves."""
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)


def table_of(users, *, computers: int = 0) -> Table:
    players = len(users) + computers
    table = create_table(creator=users[0], ruleset=Ruleset.preset("classico", players=players))
    for position, user in enumerate(users[1:], start=1):
        sit(table_id=table.pk, user=user, position=position)
    for position in range(len(users), players):
        fill_with_computer(table_id=table.pk, user=users[0], position=position, level=BotLevel.MEDIO)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


def time_out(table: Table) -> None:
    """The turn of the seat to move runs out of time: the timer completes it (actor "timeout")."""
    game = Game.objects.get(table=table)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert autoplay.complete_turn(game.pk, game.version) == "timeout"


def play_turn(table: Table, user) -> None:
    """The seat to move plays its own turn: draws, discards the card the timer would."""
    game = Game.objects.get(table=table)
    seat = game.to_move
    for action in autoplay.timeout_actions(engine_of(game), seat):
        game.refresh_from_db()
        submit_action(game_id=game.pk, seat=seat, action=action, user=user, expected_version=game.version)


def quit_matches(user, against, n: int) -> None:
    """`n` matches `user` abandoned."""
    for _ in range(n):
        table = table_of([user, against])
        abandon_match(table_id=table.pk, user=user)


def test_reliability_counts_finished_matches_with_people_and_what_the_player_left():
    anna, bruno, carla, dario = (make_user(n) for n in ("anna", "bruno", "carla", "dario"))
    # 1. Anna abandons: against her, not against Bruno.
    abandon_match(table_id=table_of([anna, bruno]).pk, user=anna)
    # 2. Anna lets two turns in a row run out (the computer covers her seat), Bruno plays his,
    #    then Bruno abandons: against both (Anna was being played by the computer at the end).
    second = table_of([anna, bruno])
    first_to_move = Game.objects.get(table=second).to_move
    order = [anna, bruno] if first_to_move == 0 else [bruno, anna]
    for player in order * 2:
        if player == anna:
            time_out(second)
        else:
            play_turn(second, bruno)
    anna_seat = Seat.objects.get(table=second, user=anna)
    assert anna_seat.covered_by_computer and anna_seat.consecutive_timeouts == 2
    abandon_match(table_id=second.pk, user=bruno)
    anna_seat.refresh_from_db()
    assert anna_seat.covered_moves > anna_seat.own_moves == 0  # counted from the move log at the end
    # 3. Carla abandons against Anna: Anna finished it.
    abandon_match(table_id=table_of([anna, carla]).pk, user=carla)
    # Not counted: a table of computers (nobody let down), a match still in play.
    abandon_match(table_id=table_of([anna], computers=1).pk, user=anna)
    table_of([anna, dario])

    assert reliability(anna) == Reliability(matches=3, completed=1)
    assert reliability_of_users([bruno.pk, carla.pk, dario.pk]) == {
        bruno.pk: Reliability(2, 1), carla.pk: Reliability(1, 0), dario.pk: Reliability(0, 0)}
    assert reliability(anna).percent == 33 and reliability(dario).percent is None
    assert reliability(anna).reliable  # three matches are too few to judge anyone by


def test_the_profile_shows_reliability_with_its_count_next_to_the_ratings():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    quit_matches(bruno, anna, 1)
    for _ in range(3):
        abandon_match(table_id=table_of([anna, carla]).pk, user=carla)

    page = Client().get("/giocatori/anna/").content.decode()
    ratings_at = page.index('id="profile-ratings"')
    shown = page.index('id="reliability"')
    assert ratings_at < shown < page.index('id="profile-games"')  # in the ratings' section
    assert "Affidabilità 100 % (4 partite)" in page
    assert "Affidabilità 0 % (3 partite)" in Client().get("/giocatori/carla/").content.decode()
    assert "Affidabilità 0 % (1 partita)" in Client().get("/giocatori/bruno/").content.decode()
    fresh = make_user("elena")
    assert "nessuna partita con altre persone" in Client().get(f"/giocatori/{fresh.username}/").content.decode()

    english = Client()
    english.cookies["django_language"] = "en"
    page = english.get("/giocatori/anna/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Reliability 100 % (4 matches)" in page


def test_only_the_last_hundred_counted_matches_count():
    """A bad spell fades: 20 matches Anna abandoned, then 100 she played to the end, read 100 %
    (the 20 are older than her last 100); one more abandoned match takes one good one's place."""
    anna, bruno = make_user("anna"), make_user("bruno")
    quit_matches(anna, bruno, 20)
    assert reliability(anna) == Reliability(matches=20, completed=0)
    for done in range(1, 101):
        abandon_match(table_id=table_of([anna, bruno]).pk, user=bruno)  # Bruno quits: Anna finished it
        if done == 50:
            assert reliability(anna) == Reliability(matches=70, completed=50)  # all 70 still count
    assert reliability(anna) == Reliability(matches=100, completed=100)
    assert reliability(anna).percent == 100
    # Bruno's own last 100 are the 100 he abandoned; the 20 Anna left are older.
    assert reliability_of_users([bruno.pk]) == {bruno.pk: Reliability(100, 0)}
    page = Client().get("/giocatori/anna/").content.decode()
    assert "Affidabilità 100 % (100 partite)" in page and "Si contano le ultime 100 partite." in page
    assert "Conta solo le ultime 100 partite di questo tipo" in Client().get("/regole/").content.decode()

    quit_matches(anna, bruno, 1)
    assert reliability(anna) == Reliability(matches=100, completed=99)


def test_the_matcher_prefers_reliable_players_and_mixes_only_after_a_wait():
    # The grouping alone: Bruno is nearest in rating, but he left most of his matches.
    anna, bruno, carla = Waiting(1, 1500, 0), Waiting(2, 1510, 0), Waiting(3, 1560, 0)
    assert [[w.id for w in g] for g in make_groups([anna, bruno, carla], 2)] == [[1, 2]]
    quitter = Waiting(2, 1510, 0, reliable=False)
    assert [[w.id for w in g] for g in make_groups([anna, quitter, carla], 2)] == [[1, 3]]

    # The same through the queue: reliability read from the matches each person played.
    anna, bruno, carla, other = (make_user(n) for n in ("anna", "bruno", "carla", "other"))
    quit_matches(bruno, other, 4)
    abandon_match(table_id=table_of([bruno, other]).pk, user=other)  # 1 of 5 finished: 20 %
    assert not reliability(bruno).reliable and reliability(anna).reliable
    PlayerRating.objects.create(user=bruno, mode="2p", rating=1510)
    PlayerRating.objects.create(user=carla, mode="2p", rating=1560)
    t0 = clock.now()
    for user in (anna, bruno, carla):
        matchmaking.join_queue(user=user, mode="2p", preset="classico", now=t0, match_now=False)
    assert QueueEntry.objects.get(user=bruno).reliability == pytest.approx(0.2)
    assert QueueEntry.objects.get(user=anna).reliability is None  # not judged: no match yet
    assert matchmaking.run_matcher(t0)["tables"] == 1
    matched = QueueEntry.objects.get(user=anna).table
    assert matched is not None and QueueEntry.objects.get(user=carla).table == matched
    assert QueueEntry.objects.get(user=bruno).status == QueueEntry.Status.WAITING

    # Alone with a reliable newcomer, Bruno waits RELIABILITY_MIX_SECONDS before they meet.
    dario = make_user("dario")
    matchmaking.join_queue(user=dario, mode="2p", preset="classico", now=t0, match_now=False)
    matchmaking.heartbeat([bruno.pk, dario.pk], t0 + timedelta(seconds=RELIABILITY_MIX_SECONDS))
    assert matchmaking.run_matcher(t0 + timedelta(seconds=RELIABILITY_MIX_SECONDS - 1))["tables"] == 0
    assert matchmaking.run_matcher(t0 + timedelta(seconds=RELIABILITY_MIX_SECONDS))["tables"] == 1
    assert QueueEntry.objects.get(user=bruno).table == QueueEntry.objects.get(user=dario).table
