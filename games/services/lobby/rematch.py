"""A rematch at a finished table: every person at it says yes, and a new table starts with the
same seats and the same options, the other side playing first.

`offer_rematch` records one person's yes under the old table's row lock; the last yes creates
and starts the new table in the same transaction (so two people clicking at once make one
table). Every socket of the old table hears each step through the table's `all` group as a
`rematch` frame (docs/protocol.md): who said yes, who is still needed, and the new table's
address once it exists. Computer seats always agree. Who is not looking at the old table hears of an offer in the
header's bell (games/services/lobby/notifications.py), and the bell's line is read once the offer ends either way.

An offer can also end without a new table: `decline_rematch` (a person at the table says no) or
`person_left` (a person's last socket at the table closed and did not come back within
`LEAVE_GRACE_SECONDS`, so a reload does not end it; an offer made after somebody already left
ends at once the same way). Either way the `rematch` frame carries
`ended` ("declined" or "left") and `ended_by` (the seat), and the table takes no further yes.
Refusals (`refusals()`): declining with no offer open, saying yes to an offer that ended.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _

from games.live import clock, frames, presence, transport
from games.models import Game, Hand, Rematch, Seat, Table, TournamentPairing
from games.services.lobby import notifications
from games.services.table.seating import TableError, start_game

LEAVE_GRACE_SECONDS = 5.0  # a person's page may reload this long before their leaving ends the offer


def refusals() -> dict[str, str]:
    """The rematch's own refusals (code: Italian message), in the current language."""
    return {
        "no_table": _("Questo tavolo non esiste."),
        "not_seated": _("Non sei seduto a questo tavolo."),
        "not_finished": _("La rivincita si chiede quando la partita è finita."),
        "no_offer": _("Non c'è nessuna rivincita da rifiutare: nessuno l'ha chiesta."),
        "rematch_declined": _("La rivincita è stata rifiutata: a questo tavolo non se ne gioca un'altra."),
        "rematch_left": _("La rivincita è finita perché qualcuno ha lasciato il tavolo."),
        "rematch_started": _("La rivincita è già cominciata."),
        "tournament_table": _("A un tavolo di torneo non c'è rivincita: il prossimo turno lo decide il torneo."),
    }


def _refuse(code: str) -> TableError:
    return TableError(code, refusals()[code])


def _frame(table: Table, rematch: Rematch | None, seats: list[Seat]) -> dict[str, Any]:
    return frames.rematch(
        table.pk,
        accepted=list(rematch.accepted) if rematch else [],
        needed=[s.position for s in seats if s.user_id],
        table_url=reverse("table", args=[rematch.new_table_id]) if rematch and rematch.new_table_id else None,
        ended=(rematch.ended or None) if rematch else None,
        ended_by=rematch.ended_by if rematch else None,
    )


def rematch_state(table: Table) -> dict[str, Any] | None:
    """The offer as the finished table's page draws it on load (None before the end)."""
    if table.status != Table.Status.FINISHED:
        return None
    rematch = Rematch.objects.filter(table=table).first()
    seats = list(table.seats.all())
    return _frame(table, rematch, sorted(seats, key=lambda s: s.position))


def offer_frame(table_id: int) -> dict[str, Any] | None:
    """The `rematch` frame of an offer at this finished table that has not become a new table
    (open or ended), or None: what a socket that says `hello` there gets again, since a frame
    missed while it was reconnecting is not sent twice by the channel layer."""
    rematch = Rematch.objects.select_related("table").filter(
        table_id=table_id, table__status=Table.Status.FINISHED, new_table__isnull=True).first()
    if rematch is None:
        return None
    return _frame(rematch.table, rematch, list(rematch.table.seats.order_by("position")))


def _first_player(table: Table) -> int | None:
    """The seat after the one that opened the finished match (the other side)."""
    game = Game.objects.filter(table=table).first()
    hand = Hand.objects.filter(game=game, number=1).first() if game else None
    if hand is None:
        return None
    first = hand.deal.get("match_first", hand.deal.get("to_move"))
    return None if first is None else (first + 1) % table.players


def _new_table(old: Table, seats: list[Seat]) -> Table:
    table = Table.objects.create(
        creator_id=old.creator_id, players=old.players, preset=old.preset, options=dict(old.options),
        draw_seconds=old.draw_seconds, play_seconds=old.play_seconds,
        disconnect_grace_seconds=old.disconnect_grace_seconds, rated=old.rated, private=old.private,
    )
    Seat.objects.bulk_create([
        Seat(table=table, position=s.position, user_id=s.user_id, bot_level=s.bot_level) for s in seats
    ])
    start_game(table, first_player=_first_player(old))
    return table


def _locked(table_id: int, user) -> tuple[Table, list[Seat], Seat]:
    """The finished table under its row lock, its seats, and `user`'s seat (or a refusal)."""
    try:
        table = Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise _refuse("no_table") from None
    seats = list(table.seats.order_by("position"))
    mine = next((s for s in seats if user is not None and s.user_id == user.pk), None)
    if mine is None:
        raise _refuse("not_seated")
    if table.status != Table.Status.FINISHED:
        raise _refuse("not_finished")
    if TournamentPairing.objects.filter(table_id=table_id).exists():
        raise _refuse("tournament_table")
    return table, seats, mine


def _gone(table_id: int, positions: set[int]) -> int | None:
    """The first of these seats whose person left the table more than LEAVE_GRACE_SECONDS ago
    (no socket now, away since then), or None."""
    online = presence.online_positions(table_id)
    for position in sorted(positions - online):
        since = presence.away_since(table_id, position)
        if since is not None and (clock.now() - since).total_seconds() > LEAVE_GRACE_SECONDS:
            return position
    return None


def _tell(table: Table, rematch: Rematch, seats: list[Seat], offered_by: int | None = None) -> None:
    """Every socket of the old table hears the offer's state; the bell's lines follow it: an
    offer still open (just made or accepted by `offered_by`) rings for whoever has not said yes
    and is not looking, an offer that started its table or ended is read."""
    if rematch.new_table_id is not None or rematch.ended:
        notifications.rematch_done(table_id=table.pk)
    elif offered_by is not None:
        notifications.rematch_offered(table_id=table.pk, by_user_id=offered_by, waiting_for=[
            s.user_id for s in seats if s.user_id and s.position not in rematch.accepted])
    frame = _frame(table, rematch, seats)
    transaction.on_commit(lambda: transport.deliver([(transport.all_group(table.pk), frame)]))


def offer_rematch(*, table_id: int, user) -> Rematch:
    """`user`, seated at the finished table, asks for (or accepts) a rematch. Raises TableError
    (no_table, not_finished, not_seated, rematch_declined, rematch_left) and changes nothing
    when refused; a yes after the new table started changes nothing and is no error."""
    with transaction.atomic():
        table, seats, mine = _locked(table_id, user)
        rematch, _created = Rematch.objects.select_for_update().get_or_create(table=table)
        if rematch.ended:
            raise _refuse("rematch_declined" if rematch.ended == Rematch.Ended.DECLINED else "rematch_left")
        if rematch.new_table_id is None:
            if mine.position not in rematch.accepted:
                rematch.accepted = [*rematch.accepted, mine.position]
            people = {s.position for s in seats if s.user_id}
            if people <= set(rematch.accepted):
                rematch.new_table = _new_table(table, seats)
            else:
                gone = _gone(table.pk, people - set(rematch.accepted))
                if gone is not None:  # asked of somebody who already left the table
                    rematch.ended, rematch.ended_by = Rematch.Ended.LEFT, gone
            rematch.save()
        _tell(table, rematch, seats, offered_by=user.pk)
    return rematch


def decline_rematch(*, table_id: int, user) -> Rematch:
    """`user`, seated at the finished table, says no to the rematch someone offered: the offer
    ends for everybody at the table (nothing else changes). Raises TableError (no_table,
    not_seated, not_finished, no_offer, rematch_started) and changes nothing when refused;
    saying no again to an offer that already ended changes nothing and is no error."""
    with transaction.atomic():
        table, seats, mine = _locked(table_id, user)
        rematch = Rematch.objects.select_for_update().filter(table=table).first()
        if rematch is None or (not rematch.accepted and not rematch.ended):
            raise _refuse("no_offer")
        if rematch.new_table_id is not None:
            raise _refuse("rematch_started")
        if not rematch.ended:
            rematch.ended = Rematch.Ended.DECLINED
            rematch.ended_by = mine.position
            rematch.save(update_fields=["ended", "ended_by"])
            _tell(table, rematch, seats)
    return rematch


def person_left(*, table_id: int, position: int) -> bool:
    """The person of `position` has no socket at the finished table any more: an offer still
    open ends ("left"). Does nothing (False) when they are back, the table is not finished, or
    there is no open offer. Called by the table socket LEAVE_GRACE_SECONDS after a seat's
    last socket closed."""
    if presence.is_online(table_id, position):
        return False
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id, status=Table.Status.FINISHED).first()
        if table is None:
            return False
        rematch = Rematch.objects.select_for_update().filter(table=table).first()
        if rematch is None or rematch.ended or rematch.new_table_id is not None or not rematch.accepted:
            return False
        seats = list(table.seats.order_by("position"))
        if not any(s.position == position and s.user_id for s in seats):
            return False
        rematch.ended = Rematch.Ended.LEFT
        rematch.ended_by = position
        rematch.save(update_fields=["ended", "ended_by"])
        _tell(table, rematch, seats)
    return True
