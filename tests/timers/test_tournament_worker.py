"""Tournaments run by real Celery workers: nobody comes to the tables, the computer covers every
absent player after the (shortened) grace, and the workers' scheduler closes registration, pairs
each round when the last table of the one before has ended, and finishes the event. Then the
stored results are checked against a tally of this test's own.

One worker is killed (SIGKILL) in the middle of a round of the Swiss event, and a new one started
as a supervisor would: the round completes (the killed worker's reserved moves are played by the
schedulers once overdue). About 11,500 computer moves in all: since medio judges the pile on a
copy (issue 31) a hand of mano_unica between computers is about 340 actions (it was about 110);
about 200 s alone on a 2-core machine, 340 s under load, hence the generous waits."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest

from games.live import clock
from games.models import Game, Move, Seat, Table, Tournament, TournamentPairing, TournamentRound
from games.selectors import tournaments as selectors
from games.services import tournaments
from tests.games.helpers import make_user
from tests.tournaments.test_swiss import my_points

from .conftest import quiet, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

FAST = {"preset": "mano_unica", "target": None, "draw_seconds": 8, "play_seconds": 8, "grace_seconds": 1}


@pytest.fixture(autouse=True)
def _quiet_after(timers, celery_worker, transactional_db):
    yield
    assert celery_worker.poll() is None, "the module's worker died"
    quiet(timers)


def independent_standings(entry_ids: list[int], ratings: dict[int, float], rows: list[TournamentPairing]):
    """Match points, Buchholz and difference tallied here from the stored scores."""
    points = dict.fromkeys(entry_ids, 0)
    diff = dict.fromkeys(entry_ids, 0)
    opponents: dict[int, list[int]] = {e: [] for e in entry_ids}
    for p in rows:
        if p.entry_b_id is None:
            points[p.entry_a_id] += 12
            continue
        if p.forfeit_id is not None:
            a, b = (0, 20) if p.forfeit_id == p.entry_a_id else (20, 0)
        else:
            a, b = my_points(p.score_a - p.score_b)
        points[p.entry_a_id] += a
        points[p.entry_b_id] += b
        diff[p.entry_a_id] += p.score_a - p.score_b
        diff[p.entry_b_id] += p.score_b - p.score_a
        opponents[p.entry_a_id].append(p.entry_b_id)
        opponents[p.entry_b_id].append(p.entry_a_id)
    buchholz = {e: sum(points[o] for o in opponents[e]) for e in entry_ids}
    order = sorted(entry_ids, key=lambda e: (-points[e], -buchholz[e], -diff[e], -ratings[e], e))
    return order, points, buchholz, diff


def check_event(t: Tournament, rounds: int, tables_per_round: int) -> None:
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and t.current_round == rounds
    rows = list(TournamentPairing.objects.filter(round__tournament=t).select_related("round", "table")
                .order_by("round__number", "pk"))
    assert len(rows) == rounds * tables_per_round
    pairs = [frozenset((p.entry_a_id, p.entry_b_id)) for p in rows if p.entry_b_id]
    assert len(pairs) == len(set(pairs)), "two entrants met twice"
    byes = [p.entry_a_id for p in rows if p.entry_b_id is None]
    assert len(byes) == len(set(byes)), "a second bye"
    for p in rows:  # every stored score is its game's result
        game = Game.objects.get(table=p.table)
        assert game.finished and (p.score_a, p.score_b) == tuple(game.result["totals"])
        assert p.table.rated and not p.table.private  # rated like any public game
    for number in range(1, rounds + 1):
        tables = [p.table for p in rows if p.round.number == number]
        starts = [x.started_at for x in tables]
        assert max(starts) == min(starts), "a round's tables did not start together"
        if number > 1:
            before = [p.table.finished_at for p in rows if p.round.number == number - 1]
            assert min(starts) >= max(before), "a round was paired before the last one ended"
    entries = list(t.entries.all())
    order, points, buchholz, diff = independent_standings([e.pk for e in entries], {e.pk: e.rating for e in entries},
                                                          rows)
    shown = selectors.standings(t)
    assert [r["entry"] for r in shown] == order
    for r in shown:
        assert (r["match_points"], r["buchholz"], r["difference"]) == (points[r["entry"]], buchholz[r["entry"]],
                                                                      diff[r["entry"]])
    assert {e.pk: e.final_rank for e in entries} == {e: i for i, e in enumerate(order, start=1)}


# 36 games played out by real workers: about four minutes on SQLite (the default mode, one writer
# at a time) beside the suite's other worker, longer than the suite's 300 s per test. Since medio
# judges the pile on a copy (issue 31) it takes far more piles, and a hand between computers runs
# longer: on SQLite beside the suite, round 1 took more than the 120 s this test used to allow.
@pytest.mark.timeout(1200)
def test_a_sixteen_player_swiss_event_and_a_sit_and_go_run_to_the_end(timers, celery_worker):
    started = time.monotonic()
    users = [make_user(f"sw{i:02d}") for i in range(16)]
    second = celery_worker  # the module's worker, and a second one to kill
    with timers.worker("killed") as first:
        # Registration closes at the start: the sixteen register first (seconds on a loaded
        # machine), then the start is brought forward to two seconds from now.
        swiss_event = tournaments.create_tournament(name="Svizzero", kind="scheduled", capacity=16, rounds=4,
                                                    starts_at=clock.now() + timedelta(minutes=10), **FAST)
        for user in users:
            tournaments.register(tournament_id=swiss_event.pk, user=user)
        Tournament.objects.filter(pk=swiss_event.pk).update(starts_at=clock.now() + timedelta(seconds=2))
        sng = tournaments.create_tournament(name="Sit and go", kind="sitgo", capacity=4, **FAST)
        for user in users[:3]:
            tournaments.register(tournament_id=sng.pk, user=make_user(f"sng{user.pk}"))
        assert Tournament.objects.get(pk=sng.pk).status == Tournament.Status.REGISTERING
        tournaments.register(tournament_id=sng.pk, user=make_user("sng-last"))
        assert Tournament.objects.get(pk=sng.pk).status == Tournament.Status.RUNNING  # full: started

        wait_for(lambda: Tournament.objects.get(pk=swiss_event.pk).status == Tournament.Status.RUNNING,
                 timeout=10, what="the scheduler to start the Swiss event")
        # Kill one worker in the middle of round 2: the other one's scheduler finishes the round.
        wait_for(lambda: Tournament.objects.get(pk=swiss_event.pk).current_round == 2, timeout=240,
                 what="round 2")
        wait_for(lambda: TournamentPairing.objects.filter(round__tournament=swiss_event, round__number=2,
                                                          finished_at__isnull=False).exists(),
                 timeout=120, what="a table of round 2 to end")
        open_tables = TournamentPairing.objects.filter(round__tournament=swiss_event, round__number=2,
                                                       finished_at__isnull=True).count()
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        killed_in_round = Tournament.objects.get(pk=swiss_event.pk).current_round
        # A supervisor starts a new worker; the killed one's reserved moves are played by the
        # schedulers once overdue, and the round ends.
        with timers.worker("replacement"):
            wait_for(lambda: Tournament.objects.get(pk=swiss_event.pk).current_round == 3, timeout=240,
                     what="round 2 to complete after the kill")
            wait_for(lambda: Tournament.objects.get(pk=swiss_event.pk).status == Tournament.Status.FINISHED,
                     timeout=360, what="the Swiss event to finish")
            wait_for(lambda: Tournament.objects.get(pk=sng.pk).status == Tournament.Status.FINISHED,
                     timeout=60, what="the sit-and-go to finish")
        assert second.poll() is None, "the surviving worker died"
    print(f"\nkilled a worker in round {killed_in_round} with {open_tables} of its 8 tables in play; "
          f"both events over in {time.monotonic() - started:.1f} s")
    assert killed_in_round == 2 and open_tables > 0
    rounds = TournamentRound.objects.filter(tournament=swiss_event).order_by("number")
    print("Swiss rounds (s):", [round((r.finished_at - r.started_at).total_seconds(), 1) for r in rounds])
    check_event(swiss_event, rounds=4, tables_per_round=8)
    check_event(sng, rounds=2, tables_per_round=2)
    assert Table.objects.filter(status=Table.Status.PLAYING).count() == 0
    # The absent players' seats were played by the computer, and the results count.
    assert Game.objects.filter(table__tournament_pairing__isnull=False, finished=True).count() == 36
    seats = Seat.objects.filter(table__tournament_pairing__isnull=False)
    assert seats.count() == 72 and not seats.filter(covered_by_computer=False).exists()
    assert not Move.objects.filter(game__table__tournament_pairing__isnull=False, actor="person").exists()
