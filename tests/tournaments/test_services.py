"""Tournament services on PostgreSQL: registration and its refusals (each answered in Italian and
in English, with nothing changed), a sit-and-go starting the moment it fills, results written in
the commit that finishes a table, the next round paired by the scheduler's pass, byes, forfeits,
pairs, scheduled starts and the final table."""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import nullcontext
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import translation

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import swiss
from games.live import clock
from games.models import Game, RatingChange, Seat, Table, Tournament, TournamentEntry, TournamentPairing
from games.selectors import tournaments as selectors
from games.services import tournaments
from games.services.errors import ServiceError
from games.services.play.play import abandon_match, submit_action
from tests.games.helpers import capture, make_user

pytestmark = pytest.mark.django_db


def people(n: int, prefix: str = "p") -> list:
    return [make_user(f"{prefix}{i}") for i in range(n)]


def sit_and_go(size: int = 4, **kw) -> Tournament:
    return tournaments.create_tournament(name="Serata", kind="sitgo", capacity=size, **kw)


def snapshot() -> tuple:
    return (list(TournamentEntry.objects.order_by("pk").values_list("pk", "user_id", "partner_id", "withdrawn_at")),
            list(Tournament.objects.order_by("pk").values_list("pk", "status", "current_round")),
            Table.objects.count(), TournamentPairing.objects.count())


def refused(code: str, call, english: str) -> None:
    before = snapshot()
    with pytest.raises(ServiceError) as it:
        call()
    assert it.value.code == code
    assert snapshot() == before, "a refusal changed something"
    with translation.override("en"):
        with pytest.raises(ServiceError) as again:
            call()
        assert english in again.value.message, again.value.message


def play_out(table: Table, rng: random.Random, players: dict[int, object], away: int | None = None,
             then: Callable[[], object] | None = None) -> Game:
    """Every seat played by its own person (a beginner's choices) until the match ends; the seat
    `away` by the server instead (logged as "timeout", as when its clock runs out). `then()`, if
    given, runs in the transaction of the action that ends the match: no other process sees the
    match over before it has run."""
    for _ in range(5000):
        game = Game.objects.get(table=table)
        if game.finished:
            return game
        engine = EngineGame.from_dict(game.state)
        seat = engine.to_move
        action = choose_action(engine.view(seat), "principiante", rng)
        gone = seat == away
        with transaction.atomic() if then is not None else nullcontext():
            submit_action(game_id=game.pk, seat=seat, action=action, actor="timeout" if gone else "person",
                          expected_version=game.version, user=None if gone else players[seat])
            if then is not None and Game.objects.get(pk=game.pk).finished:
                then()
    raise AssertionError("the match did not end")


def seated(table: Table) -> dict[int, object]:
    return {s.position: s.user for s in Seat.objects.filter(table=table).select_related("user")}


def test_registration_refusals_change_nothing(monkeypatch):
    capture(monkeypatch)
    a, b, c, d, e = people(5)
    t = sit_and_go(4)
    tournaments.register(tournament_id=t.pk, user=a)
    refused("already_registered", lambda: tournaments.register(tournament_id=t.pk, user=a), "already registered")
    refused("no_tournament", lambda: tournaments.register(tournament_id=t.pk + 99, user=b), "does not exist")
    refused("no_tournament", lambda: tournaments.register(tournament_id="1", user=b), "does not exist")
    refused("no_partner_here", lambda: tournaments.register(tournament_id=t.pk, user=b, partner="p2"),
            "no partner")
    refused("not_registered", lambda: tournaments.withdraw(tournament_id=t.pk, user=b), "not registered")
    for person in (b, c, d):
        tournaments.register(tournament_id=t.pk, user=person)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING  # full: started at once
    refused("started", lambda: tournaments.register(tournament_id=t.pk, user=e), "already started")
    refused("mid_round", lambda: tournaments.withdraw(tournament_id=t.pk, user=a), "middle of a round")


def test_a_full_event_and_withdrawal_before_the_start(monkeypatch):
    capture(monkeypatch)
    a, b, c = people(3)
    start = clock.now() + timedelta(hours=1)
    t = tournaments.create_tournament(name="Giovedì", kind="scheduled", capacity=2, starts_at=start, rounds=1)
    tournaments.register(tournament_id=t.pk, user=a)
    tournaments.register(tournament_id=t.pk, user=b)
    t.refresh_from_db()
    assert t.status == Tournament.Status.REGISTERING  # scheduled: full does not start it
    refused("full", lambda: tournaments.register(tournament_id=t.pk, user=c), "full")
    tournaments.withdraw(tournament_id=t.pk, user=b)
    assert list(t.entries.values_list("user_id", flat=True)) == [a.pk]
    tournaments.register(tournament_id=t.pk, user=c)
    # The start time has come: registration is closed even before the scheduler's pass.
    refused("started", lambda: tournaments.register(tournament_id=t.pk, user=b, now=start), "already started")
    refused("mid_round", lambda: tournaments.withdraw(tournament_id=t.pk, user=c, now=start), "middle of a round")


def test_bad_creation_is_refused():
    with pytest.raises(ServiceError) as it:
        sit_and_go(6)
    assert it.value.code == "bad_size"
    for kwargs, code in [({"rounds": 4}, "bad_rounds"),
                         ({"target": 2005}, "bad_target"), ({"preset": "nessuno"}, "bad_preset"),
                         ({"players": 4}, "two_players_only")]:
        with pytest.raises(ServiceError) as it:
            sit_and_go(4, **kwargs)
        assert it.value.code == code
    with pytest.raises(ServiceError) as it:
        tournaments.create_tournament(name="X", kind="scheduled", capacity=8, starts_at=clock.now())
    assert it.value.code == "bad_start"
    assert Tournament.objects.count() == 0


def test_a_sit_and_go_runs_to_the_final_table(monkeypatch, django_capture_on_commit_callbacks):
    cap = capture(monkeypatch)
    players = people(4)
    t = sit_and_go(4)  # 2 rounds by default
    assert t.rounds == 2
    with django_capture_on_commit_callbacks(execute=True):
        for person in players:
            tournaments.register(tournament_id=t.pk, user=person)
    t.refresh_from_db()
    assert (t.status, t.current_round) == (Tournament.Status.RUNNING, 1)
    first = list(TournamentPairing.objects.filter(round__number=1).select_related("table"))
    assert len(first) == 2 and all(p.table.status == Table.Status.PLAYING and p.table.rated for p in first)
    assert len({p.table.started_at for p in first}) == 1  # the round's tables start at one instant
    assert len({Game.objects.get(table=p.table).turn_deadline for p in first}) == 1
    # Each player was called to their table on their lobby sockets.
    called = {group for group, frame in cap.sent if frame.get("type") == "matched" and frame.get("tournament")}
    assert called == {f"lobby.user.{u.pk}" for u in players}
    # Round 1 by rating (all 1500: registration order): entry 1 v 2, 3 v 4.
    entries = list(t.entries.order_by("pk"))
    assert [(p.entry_a_id, p.entry_b_id) for p in first] == [(entries[0].pk, entries[1].pk),
                                                             (entries[2].pk, entries[3].pk)]
    rng = random.Random(15)
    for pairing in first:
        game = play_out(pairing.table, rng, seated(pairing.table))
        pairing.refresh_from_db()
        totals = game.result["totals"]
        assert (pairing.score_a, pairing.score_b) == (totals[0], totals[1])
        assert (pairing.points_a, pairing.points_b) == swiss.match_points(totals[0] - totals[1])
    # Rated like any public game: both players of each table moved by their ratings.
    assert RatingChange.objects.filter(game__table__in=[p.table for p in first]).count() == 4
    assert tournaments.advance() == {"started": 0, "rounds": 1, "finished": 0}
    assert tournaments.advance() == {"started": 0, "rounds": 0, "finished": 0}  # round 2 is in play
    second = list(TournamentPairing.objects.filter(round__number=2).select_related("table"))
    met_first = {frozenset((p.entry_a_id, p.entry_b_id)) for p in first}
    assert all(frozenset((p.entry_a_id, p.entry_b_id)) not in met_first for p in second)
    # One table abandoned: a forfeit, and the quitter is withdrawn.
    quitter_table = second[0].table
    quitter = Seat.objects.get(table=quitter_table, position=1).user
    abandon_match(table_id=quitter_table.pk, user=quitter)
    second[0].refresh_from_db()
    assert (second[0].points_a, second[0].points_b, second[0].forfeit_id) == (20, 0, second[0].entry_b_id)
    assert TournamentEntry.objects.get(pk=second[0].entry_b_id).withdrawn_round == 2
    play_out(second[1].table, rng, seated(second[1].table))
    assert tournaments.advance()["finished"] == 1
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    table = selectors.standings(t)
    results = tournaments.results_of(t)
    want = swiss.standings(tournaments.entrants_of(t.entries.all()), results)
    assert [row["entry"] for row in table] == [s.entrant for s in want]
    assert dict(t.entries.values_list("pk", "final_rank")) == {s.entrant: s.rank for s in want}
    # Each of its games in the history names its tournament and round.
    from django.test import Client

    page = Client().get(f"/storico/partita/{Game.objects.get(table=second[1].table).pk}/").content.decode()
    assert 'id="game-tournament"' in page and "Turno 2 del torneo" in page and "Serata" in page
    assert selectors.past_tournaments(players[0])[0]["rank"] == dict(
        t.entries.values_list("user_id", "final_rank"))[players[0].pk]


def test_an_odd_field_gets_a_bye_and_scheduled_start(monkeypatch):
    capture(monkeypatch)
    start = clock.now() + timedelta(minutes=5)
    t = tournaments.create_tournament(name="Domenica", kind="scheduled", capacity=8, starts_at=start, rounds=2)
    for person in people(3):
        tournaments.register(tournament_id=t.pk, user=person)
    assert tournaments.advance(start - timedelta(seconds=1))["started"] == 0
    assert tournaments.advance(start)["started"] == 1
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    round_one = list(TournamentPairing.objects.filter(round__tournament=t))
    byes = [p for p in round_one if p.entry_b_id is None]
    assert len(byes) == 1 and byes[0].points_a == swiss.BYE_POINTS and byes[0].finished_at is not None
    assert byes[0].entry_a_id == max(t.entries.values_list("pk", flat=True))  # the last one down the list


def test_a_scheduled_event_with_one_entrant_is_cancelled(monkeypatch):
    capture(monkeypatch)
    start = clock.now() + timedelta(minutes=5)
    t = tournaments.create_tournament(name="Vuoto", kind="scheduled", capacity=8, starts_at=start)
    tournaments.register(tournament_id=t.pk, user=make_user("solo"))
    tournaments.advance(start)
    t.refresh_from_db()
    assert (t.status, t.note) == (Tournament.Status.CANCELLED, "too_few")
    assert Table.objects.count() == 0


def test_pairs_sit_as_partners(monkeypatch):
    capture(monkeypatch)
    a, b, c, d, e = people(5)
    t = tournaments.create_tournament(name="Coppie", kind="sitgo", capacity=4, players=4, preset="classico")
    refused("partner_needed", lambda: tournaments.register(tournament_id=t.pk, user=a), "partner")
    refused("no_partner", lambda: tournaments.register(tournament_id=t.pk, user=a, partner="nessuno"), "partner")
    refused("self_partner", lambda: tournaments.register(tournament_id=t.pk, user=a, partner="p0"), "another")
    tournaments.register(tournament_id=t.pk, user=a, partner="p1")
    refused("partner_registered", lambda: tournaments.register(tournament_id=t.pk, user=c, partner="p1"), "p1")
    refused("already_registered", lambda: tournaments.register(tournament_id=t.pk, user=b, partner="p2"),
            "already registered")
    refused("partner_withdraw", lambda: tournaments.withdraw(tournament_id=t.pk, user=b), "registered the pair")
    more = people(6, "q")
    tournaments.register(tournament_id=t.pk, user=c, partner="p3")
    tournaments.register(tournament_id=t.pk, user=more[0], partner="q1")
    tournaments.register(tournament_id=t.pk, user=more[2], partner="q3")
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    pairing = TournamentPairing.objects.filter(round__tournament=t).select_related("entry_a", "entry_b").first()
    seats = {s.position: s.user_id for s in Seat.objects.filter(table=pairing.table)}
    assert seats == {0: pairing.entry_a.user_id, 2: pairing.entry_a.partner_id,
                     1: pairing.entry_b.user_id, 3: pairing.entry_b.partner_id}
    assert e.tournament_entries.count() == 0


def test_a_pairs_event_with_an_abandon_plays_on_with_a_bye(monkeypatch):
    """Four pairs, two rounds of a single classico hand with four at each table. A player who
    abandons in round 1 withdraws the pair: round 2 has three pairs, so one sits out."""
    capture(monkeypatch)
    t = tournaments.create_tournament(name="Coppie del venerdì", kind="sitgo", capacity=4, players=4,
                                      preset="classico")
    folk = people(8, "c")
    for i in range(0, 8, 2):
        tournaments.register(tournament_id=t.pk, user=folk[i], partner=folk[i + 1].username)
    first = list(TournamentPairing.objects.filter(round__tournament=t).select_related("table", "entry_b"))
    quitter = first[0].entry_b.partner  # seat 3 of the first table
    abandon_match(table_id=first[0].table_id, user=quitter)
    rng = random.Random(4)
    game = play_out(first[1].table, rng, seated(first[1].table))
    first[1].refresh_from_db()
    assert (first[1].score_a, first[1].score_b) == tuple(game.result["totals"])
    assert tournaments.advance()["rounds"] == 1
    second = list(TournamentPairing.objects.filter(round__tournament=t, round__number=2))
    withdrawn = first[0].entry_b_id
    assert withdrawn not in {p.entry_a_id for p in second} | {p.entry_b_id for p in second}
    byes = [p for p in second if p.entry_b_id is None]
    assert len(byes) == 1 and len(second) == 2
    table = next(p for p in second if p.entry_b_id is not None)
    play_out(table.table, rng, seated(table.table))
    assert tournaments.advance()["finished"] == 1
    standings = selectors.standings(t)
    assert [r["entry"] for r in standings] == [s.entrant for s in swiss.standings(
        tournaments.entrants_of(t.entries.all()), tournaments.results_of(t))]
    assert next(r for r in standings if r["entry"] == withdrawn)["withdrawn"] is True
    assert " – " in standings[0]["name"]  # a pair is shown by both names
