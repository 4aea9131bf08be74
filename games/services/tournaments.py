"""Tournaments: Swiss events, sit-and-go or scheduled, run by the scheduler.

The arithmetic (pairing, match points, standings) is the pure library `games.engine.swiss`; this
module keeps its inputs and outputs in PostgreSQL, so any scheduler in any worker can run an event
and nothing is lost with a process:

- `create_tournament` opens registration (an operator's or a test's call: the admin makes them);
- `register` / `withdraw`: a person (or a person and their partner, four at a table) joins or
  leaves until the start, under the tournament's row lock; refusals are `ServiceError`s (one
  catalogue, Italian, English through Django i18n) and change nothing. A sit-and-go starts in the
  transaction that takes its last place;
- `advance` runs from every scheduler tick (games/services/scheduler.py): it starts the scheduled
  events whose time has come (registration closes), and for each running event whose current
  round has every table finished it pairs the next round or ends the event. Tournaments are
  claimed with `FOR UPDATE SKIP LOCKED`, so two schedulers never pair one round twice;
- a round: `swiss.pair_round` over the entrants still in, then one rated public table per
  pairing, every table created and started in one transaction (entry A at seats 0 and 2, entry B
  at 1 and 3), and each player called to theirs on their lobby sockets (the queue's `matched`
  frame). A player who is not there is covered by the computer after the table's grace
  (games/services/play/autoplay.py), as at any table: the result counts;
- `record_result` is called by the play service in the transaction that finishes a match
  (`play._finish_match`): the pairing gets the sides' totals and match points in the same commit,
  so a worker killed at any point leaves either an unfinished table (the scheduler plays it on)
  or a stored result. Who abandons forfeits the table and is withdrawn from later rounds.

Duplicate events (`duplicate_deals` > 0, games/engine/duplicate.py): each round is that many
deals, single hands, played in turn at every table of the round. When the round is paired its
seeds are drawn from `secrets` (one per deal) with the seat that plays first, and stored on the
round; every table deals from them (games/services/table/fairness.py `planned`), so each table
gets the same cards at the same seats, and no client seed is mixed in. A table's points per deal
are stored with its result; the scores against the other tables, the standings and the next
round's pairing order are computed from them once the round has ended. Until then nothing of a
duplicate table's play leaves the server for anyone but its own seats (`TournamentPairing.held_tables`,
docs/fairness.md "Duplicate tournaments").

Tournament tables are `rated` and public, so their matches change ratings exactly like the
queue's and the lobby's public games (games/services/history/ratings.py decides, with its usual rules).
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.live import clock, transport
from games.selectors.matchmaking import matched_frame, rating_of, seat_names
from games.selectors.tournaments import duplicate_standings, duplicate_totals, tournament_frame
from games.services.errors import ServiceError
from games.services.table.seating import batched_announcements, check_players, create_table, sit

from ..engine import PRESETS, IllegalMove, Ruleset, duplicate, swiss
from ..engine.deal import new_seed
from ..models import (
    Game,
    Hand,
    RatingMode,
    Table,
    Tournament,
    TournamentEntry,
    TournamentPairing,
    TournamentRound,
)

log = logging.getLogger(__name__)

SIT_AND_GO_SIZES = (4, 8, 16)
MAX_ENTRANTS = 64
MAX_ROUNDS = 15
TARGETS = (None, 505)  # rounds of single hands, or matches to 505


def tournament_group(tournament_id: int) -> str:
    """The channel-layer group of the sockets watching one tournament's page."""
    return f"tournament.{tournament_id}"


# ----------------------------------------------------------------------------- setting up


def create_tournament(*, name: str, kind: str, players: int = 2, capacity: int = 8, preset: str = "mano_unica",
                      target: int | None = None, rounds: int | None = None, starts_at: datetime | None = None,
                      description: str = "", created_by=None, draw_seconds: int | None = None,
                      play_seconds: int | None = None, grace_seconds: int | None = None,
                      duplicate_deals: int = 0, duplicate_scoring: str = duplicate.MATCH_POINTS,
                      now: datetime | None = None) -> Tournament:
    """A tournament open for registration. A sit-and-go has 4, 8 or 16 places and, unless told,
    as many rounds as it takes to find a winner among that many (2, 3, 4); a scheduled one starts
    at `starts_at`. Every table plays `preset` with `players` at it (4: entrants are pairs),
    a single hand each round (`target` None) or a match to 505. `duplicate_deals` (1-4) makes it
    a duplicate event: that many single hands a round, the same at every table, scored by
    `duplicate_scoring` ("mp" match points or "vp" victory points)."""
    now = now or clock.now()
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise ServiceError("bad_name")
    if kind not in Tournament.Kind.values:
        raise ServiceError("bad_kind")
    if kind == Tournament.Kind.SIT_AND_GO and capacity not in SIT_AND_GO_SIZES:
        raise ServiceError("bad_size")
    if not isinstance(capacity, int) or not 2 <= capacity <= MAX_ENTRANTS:
        raise ServiceError("bad_capacity", n=MAX_ENTRANTS)
    if kind == Tournament.Kind.SCHEDULED and (starts_at is None or starts_at <= now):
        raise ServiceError("bad_start")
    if target not in TARGETS:
        raise ServiceError("bad_target")
    if duplicate_deals not in (0, *duplicate.DEALS) or isinstance(duplicate_deals, bool):
        raise ServiceError("bad_deals", n=max(duplicate.DEALS))
    if duplicate_deals and target is not None:
        raise ServiceError("duplicate_single_hands")
    if duplicate_deals and duplicate_scoring not in duplicate.SCORINGS:
        raise ServiceError("bad_scoring")
    if preset not in PRESETS:
        raise ServiceError("bad_preset")
    if rounds is None:
        rounds = max(1, (capacity - 1).bit_length())
    most = min(MAX_ROUNDS, capacity - 1)
    if not isinstance(rounds, int) or not 1 <= rounds <= most:
        raise ServiceError("bad_rounds", n=most)
    timers = {k: v for k, v in (("draw_seconds", draw_seconds), ("play_seconds", play_seconds),
                                ("grace_seconds", grace_seconds)) if v is not None}
    try:
        if duplicate_deals:
            timers["hands"] = duplicate_deals
        ruleset = Ruleset.preset(preset, players=players, target=target, **timers)
    except IllegalMove:
        raise ServiceError("bad_preset") from None
    check_players(ruleset)
    return Tournament.objects.create(
        name=name.strip(), description=description, kind=kind, players=players, capacity=capacity,
        preset=preset, options=ruleset.to_dict(), rounds=rounds,
        starts_at=starts_at if kind == Tournament.Kind.SCHEDULED else None, created_by=created_by,
        duplicate_deals=duplicate_deals, duplicate_scoring=duplicate_scoring if duplicate_deals else "",
    )


def _lock(tournament_id: Any) -> Tournament:
    if not isinstance(tournament_id, int) or isinstance(tournament_id, bool):
        raise ServiceError("no_tournament")
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise ServiceError("no_tournament")
    return tournament


def _require_login(user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("login_required:tournament")


def _entry_of(tournament: Tournament, user_id: int) -> TournamentEntry | None:
    return tournament.entries.filter(Q(user_id=user_id) | Q(partner_id=user_id)).first()


def _rating(tournament: Tournament, users: list) -> float:

    mode = RatingMode.of(4 if tournament.pairs else 2, tournament.preset)
    return sum(rating_of(u, mode) for u in users) / len(users)


def register(*, tournament_id: Any, user, partner: Any = None, now: datetime | None = None) -> TournamentEntry:
    """`user` (with `partner`, a username, in an event for pairs) takes a place. Refused when
    signed out, for an unknown event, after the start, when full, when already registered (or
    the partner is), and for a missing or wrong partner. Taking the last place of a sit-and-go
    starts it in the same transaction."""
    _require_login(user)
    now = now or clock.now()
    # Filling a sit-and-go opens its round's tables: one lobby list for all of them, after the commit.
    with transport.delivered_together(), batched_announcements(), transaction.atomic():
        tournament = _lock(tournament_id)
        _require_open(tournament, now)
        if _entry_of(tournament, user.pk) is not None:
            raise ServiceError("already_registered")
        mate = None
        if tournament.pairs:
            if not isinstance(partner, str) or not partner.strip():
                raise ServiceError("partner_needed")
            mate = get_user_model().objects.filter(username=partner.strip(), is_active=True).first()
            if mate is None:
                raise ServiceError("no_partner")
            if mate.pk == user.pk:
                raise ServiceError("self_partner:tournament")
            if _entry_of(tournament, mate.pk) is not None:
                raise ServiceError("partner_registered", name=mate.username)
        elif partner not in (None, ""):
            raise ServiceError("no_partner_here")
        if tournament.entries.count() >= tournament.capacity:
            raise ServiceError("full")
        try:
            with transaction.atomic():
                entry = TournamentEntry.objects.create(
                    tournament=tournament, user=user, partner=mate,
                    rating=_rating(tournament, [user, mate] if mate else [user]), registered_at=now)
        except IntegrityError:
            raise ServiceError("already_registered") from None
        full = tournament.entries.count() >= tournament.capacity
        if full and tournament.kind == Tournament.Kind.SIT_AND_GO:
            _start(tournament, now)
        else:
            _tell(tournament)
    return entry


def _require_open(tournament: Tournament, now: datetime) -> None:
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise ServiceError("over")
    if tournament.status != Tournament.Status.REGISTERING or (
            tournament.starts_at is not None and now >= tournament.starts_at):
        raise ServiceError("started")


def withdraw(*, tournament_id: Any, user, now: datetime | None = None) -> None:
    """Leave before the start (the place is freed). Refused when not registered, by a partner
    (the one who registered the pair withdraws it), and once the event has started."""
    _require_login(user)
    now = now or clock.now()
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _entry_of(tournament, user.pk)
        if entry is None:
            raise ServiceError("not_registered")
        if tournament.status == Tournament.Status.RUNNING:
            raise ServiceError("mid_round")
        if tournament.status != Tournament.Status.REGISTERING:
            raise ServiceError("over")
        if tournament.starts_at is not None and now >= tournament.starts_at:
            raise ServiceError("mid_round")
        if entry.user_id != user.pk:
            raise ServiceError("partner_withdraw")
        entry.delete()
        _tell(tournament)


# ----------------------------------------------------------------------------- running


def advance(now: datetime | None = None) -> dict[str, int]:
    """The scheduler's pass: start what is due, pair or finish what waits. Returns counts."""
    now = now or clock.now()
    done = {"started": 0, "rounds": 0, "finished": 0}
    unfinished = TournamentPairing.objects.filter(
        round__tournament_id=OuterRef("pk"), round__number=OuterRef("current_round"), finished_at__isnull=True)
    due = list(Tournament.objects.filter(status__in=[Tournament.Status.REGISTERING, Tournament.Status.RUNNING])
               .annotate(round_open=Exists(unfinished))
               .filter(Q(status=Tournament.Status.REGISTERING, kind=Tournament.Kind.SCHEDULED, starts_at__lte=now)
                       | Q(status=Tournament.Status.RUNNING, round_open=False))
               .values_list("pk", flat=True)[:50])
    for tournament_id in due:
        try:
            with transport.delivered_together(), batched_announcements(lobby_now=False), transaction.atomic():
                tournament = (Tournament.objects.select_for_update(skip_locked=True)
                              .filter(pk=tournament_id).first())
                if tournament is None:
                    continue  # another scheduler has it
                if tournament.status == Tournament.Status.REGISTERING:
                    if tournament.starts_at is not None and tournament.starts_at <= now:
                        _start(tournament, now)
                        done["started"] += 1
                elif tournament.status == Tournament.Status.RUNNING and not _round_open(tournament):
                    if _next_round(tournament, now):
                        done["rounds"] += 1
                    else:
                        done["finished"] += 1
        except Exception:  # noqa: BLE001 - one broken event must not stop the others or the timers
            log.exception("tournament %s: could not advance", tournament_id)
    return done


def _round_open(tournament: Tournament) -> bool:
    return TournamentPairing.objects.filter(round__tournament=tournament, round__number=tournament.current_round,
                                            finished_at__isnull=True).exists()


def _start(tournament: Tournament, now: datetime) -> None:
    """Registration closes; round 1, or a cancelled event with fewer than two entrants."""
    tournament.started_at = now
    if tournament.entries.count() < 2:
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at = now
        tournament.note = "too_few"
        tournament.save(update_fields=["status", "started_at", "finished_at", "note"])
        _tell(tournament)
        return
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status", "started_at"])
    _next_round(tournament, now)


def results_of(tournament: Tournament) -> list[swiss.Result]:
    """The stored results, as the library reads them."""
    rows = (TournamentPairing.objects.filter(round__tournament=tournament, finished_at__isnull=False)
            .select_related("round").order_by("round__number", "pk"))
    return [swiss.Result(p.round.number, p.entry_a_id, p.entry_b_id, p.score_a or 0, p.score_b or 0,
                         forfeit=p.forfeit_id) for p in rows]


def entrants_of(entries) -> list[swiss.Entrant]:
    return [swiss.Entrant(e.pk, e.rating) for e in entries]


def _next_round(tournament: Tournament, now: datetime) -> bool:
    """Close the round just played and pair the next one (True), or end the event (False)."""
    if tournament.current_round:
        TournamentRound.objects.filter(tournament=tournament, number=tournament.current_round,
                                       finished_at__isnull=True).update(finished_at=now)
    entries = list(tournament.entries.all())
    results = results_of(tournament)
    active = [e for e in entries if e.withdrawn_at is None]
    if tournament.current_round >= tournament.rounds:
        _finish(tournament, entries, results, now)
        return False
    # A duplicate event pairs by its totals (the round just closed included).
    points = duplicate_totals(tournament) if tournament.duplicate else None
    try:
        pairing = swiss.pair_round(entrants_of(active), results, points)
    except swiss.NoPairing:
        _finish(tournament, entries, results, now, note="no_pairing")
        return False
    number = tournament.current_round + 1
    ruleset = Ruleset.from_dict(tournament.options)
    plan: dict[str, Any] = {}
    if tournament.duplicate:
        # The round's deals, secret until it ends: one seed per deal and deal 1's first player.
        plan = {"seeds": [new_seed().hex() for _ in range(tournament.duplicate_deals)],
                "first_player": secrets.randbelow(ruleset.players)}
    round_row = TournamentRound.objects.create(tournament=tournament, number=number, started_at=now, **plan)
    by_id = {e.pk: e for e in entries}
    calls: list[tuple[str, dict[str, Any]]] = []
    opened: list[int] = []
    for a_id, b_id in pairing.tables:
        table = _open_table(ruleset, round_row, by_id[a_id], by_id[b_id])
        calls += _calls(table, tournament, number)
        opened.append(table.pk)
    if opened:
        # Every table of the round starts at one instant, the commit: the same start time and the
        # same first deadline, however long dealing them all took on a busy machine.
        Table.objects.filter(pk__in=opened).update(started_at=timezone.now())
        Game.objects.filter(table_id__in=opened, turn_deadline__isnull=False).update(
            turn_deadline=clock.now() + timedelta(seconds=ruleset.draw_seconds))
    if pairing.bye is not None:
        TournamentPairing.objects.create(round=round_row, entry_a=by_id[pairing.bye], entry_b=None, score_a=0,
                                         score_b=0, points_a=swiss.BYE_POINTS, finished_at=now)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    _tell(tournament, calls)
    return True


def _open_table(ruleset: Ruleset, round_row: TournamentRound, a: TournamentEntry, b: TournamentEntry) -> Table:
    """A rated public table with entry A at seats 0 (and 2) and B at 1 (and 3), started, and its
    pairing. The pairing is made before the last seat is taken, which deals: a duplicate table
    finds its round's deals through it."""
    people = [a.user, b.user] + ([a.partner, b.partner] if ruleset.players == 4 else [])
    table = create_table(creator=people[0], ruleset=ruleset, rated=True)
    TournamentPairing.objects.create(round=round_row, entry_a=a, entry_b=b, table=table)
    for position, person in enumerate(people[1:], start=1):
        sit(table_id=table.pk, user=person, position=position)
    return table


def _calls(table: Table, tournament: Tournament, number: int) -> list[tuple[str, dict[str, Any]]]:
    """Each player of a new table is called to it on their lobby sockets: every page of theirs
    shows a full-screen call and takes them there (static/js/bell.js)."""
    table.refresh_from_db()
    seats = seat_names(table)
    frame = matched_frame(table, seats) | {"tournament": True, "tournament_id": tournament.pk,
                                           "tournament_name": tournament.name, "round": number}
    return [(transport.user_group(s.user_id), frame) for s in table.seats.all() if s.user_id]


def _finish(tournament: Tournament, entries: list[TournamentEntry], results: list[swiss.Result], now: datetime,
            note: str = "") -> None:
    if tournament.duplicate:
        pairings = list(TournamentPairing.objects.filter(round__tournament=tournament).select_related("round"))
        ranks = {s.entrant: s.rank for s in duplicate_standings(tournament, entries, pairings)}
    else:
        ranks = {s.entrant: s.rank for s in swiss.standings(entrants_of(entries), results)}
    for entry in entries:
        entry.final_rank = ranks[entry.pk]
    TournamentEntry.objects.bulk_update(entries, ["final_rank"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.note = note
    tournament.save(update_fields=["status", "finished_at", "note"])
    _tell(tournament)


def record_result(game: Game, table: Table) -> None:
    """The match at `table` has just finished (the caller's transaction, the game locked): if it
    is a tournament table, its pairing gets the result now, in the same commit."""
    pairing = (TournamentPairing.objects.select_for_update(of=("self",))
               .filter(table_id=table.pk, finished_at__isnull=True)
               .select_related("entry_a", "entry_b", "round").first())
    if pairing is None:
        return
    totals = list(game.result.get("totals") or game.totals or [0, 0])
    pairing.score_a, pairing.score_b = int(totals[0]), int(totals[1])
    forfeit = None
    if game.abandoned_by_id is not None:
        forfeit = next((e for e in (pairing.entry_a, pairing.entry_b)
                        if game.abandoned_by_id in (e.user_id, e.partner_id)), None)
    pairing.forfeit = forfeit
    points = swiss.result_points(swiss.Result(pairing.round.number, pairing.entry_a_id, pairing.entry_b_id,
                                              pairing.score_a, pairing.score_b,
                                              forfeit=forfeit.pk if forfeit else None))
    pairing.points_a, pairing.points_b = points[pairing.entry_a_id], points[pairing.entry_b_id]
    if pairing.round.seeds:  # a duplicate table: its points deal by deal, scored once the round ends
        pairing.deals = [[int(h[0]["total"]), int(h[1]["total"])]
                         for h in Hand.objects.filter(game=game, score__isnull=False).order_by("number")
                         .values_list("score", flat=True)]
    pairing.finished_at = game.finished_at or clock.now()
    pairing.save()
    if forfeit is not None and forfeit.withdrawn_at is None:
        forfeit.withdrawn_at = pairing.finished_at
        forfeit.withdrawn_round = pairing.round.number
        forfeit.save(update_fields=["withdrawn_at", "withdrawn_round"])
    tournament = Tournament.objects.get(pk=pairing.round.tournament_id)
    _tell(tournament)


def _tell(tournament: Tournament, extra: list[tuple[str, dict[str, Any]]] | None = None) -> None:
    """After the commit: the tournament's page (standings, pairings) and the players called."""
    tournament_id = tournament.pk

    def send() -> None:

        fresh = Tournament.objects.filter(pk=tournament_id).first()
        if fresh is None:
            return
        transport.deliver([(tournament_group(tournament_id), tournament_frame(fresh)), *(extra or [])])

    transaction.on_commit(send)
