"""A rematch at a finished table: every person at it says yes, and a new table starts with the
same seats and the same options, the other side playing first.

`offer_rematch` records one person's yes under the old table's row lock; the last yes creates
and starts the new table in the same transaction (so two people clicking at once make one
table). Every socket of the old table hears each step through the table's `all` group as a
`rematch` frame (docs/protocol.md): who said yes, who is still needed, and the new table's
address once it exists. Computer seats always agree. Who is not looking at the old table hears of an offer in the
header's bell (games/services/notifications.py).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _

from ..models import Game, Hand, Rematch, Seat, Table
from . import broadcast, notifications
from .tables import TableError, start_game


def _frame(table: Table, rematch: Rematch | None, seats: list[Seat]) -> dict[str, Any]:
    return {
        "type": "rematch",
        "table": table.pk,
        "accepted": list(rematch.accepted) if rematch else [],
        "needed": [s.position for s in seats if s.user_id],
        "table_url": reverse("table", args=[rematch.new_table_id]) if rematch and rematch.new_table_id else None,
    }


def rematch_state(table: Table) -> dict[str, Any] | None:
    """The offer as the finished table's page draws it on load (None before the end)."""
    if table.status != Table.Status.FINISHED:
        return None
    rematch = Rematch.objects.filter(table=table).first()
    seats = list(table.seats.all())
    return _frame(table, rematch, sorted(seats, key=lambda s: s.position))


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


def offer_rematch(*, table_id: int, user) -> Rematch:
    """`user`, seated at the finished table, asks for (or accepts) a rematch. Raises TableError
    (no_table, not_finished, not_seated) and changes nothing when refused."""
    with transaction.atomic():
        try:
            table = Table.objects.select_for_update().get(pk=table_id)
        except Table.DoesNotExist:
            raise TableError("no_table", _("Questo tavolo non esiste.")) from None
        seats = list(table.seats.order_by("position"))
        mine = next((s for s in seats if user is not None and s.user_id == user.pk), None)
        if mine is None:
            raise TableError("not_seated", _("Non sei seduto a questo tavolo."))
        if table.status != Table.Status.FINISHED:
            raise TableError("not_finished", _("La rivincita si chiede quando la partita è finita."))
        rematch, _created = Rematch.objects.select_for_update().get_or_create(table=table)
        if rematch.new_table_id is None:
            if mine.position not in rematch.accepted:
                rematch.accepted = [*rematch.accepted, mine.position]
            people = {s.position for s in seats if s.user_id}
            if people <= set(rematch.accepted):
                rematch.new_table = _new_table(table, seats)
            rematch.save()
            if rematch.new_table_id is not None:
                notifications.rematch_done(table_id=table_id)
            else:
                notifications.rematch_offered(table_id=table_id, by_user_id=user.pk, waiting_for=[
                    s.user_id for s in seats if s.user_id and s.position not in rematch.accepted])
        frame = _frame(table, rematch, seats)
        transaction.on_commit(lambda: broadcast.deliver([(broadcast.all_group(table_id), frame)]))
    return rematch
