"""A player deletes their account (accounts.services.user_delete): what the game side refuses
and what it clears first.

The account's row stays (seats, moves, ratings and tournament entries point at it), so every
finished game keeps its players and scores; the name becomes "giocatore eliminato N". Refused,
with a message that says what to do, while the person sits at a table waiting or in play (a
game in play belongs to the others at the table too: finish it or abandon it first) or is
entered in a tournament that has not ended (withdraw first). Otherwise their follows and
blocks, their notifications, their waiting place in "Gioca con persone" and the invitations
still pending to or from them go; the other person's page hears a withdrawn invitation.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.live import transport
from games.models import Block, Challenge, Follow, Notification, QueueEntry, Seat, Table, Tournament, TournamentEntry
from games.selectors.challenges import challenge_frame
from games.services.table.seating import TableError


def check_can_leave(user) -> None:
    """Raise TableError when the person may not delete their account now (reads only)."""
    seat = (Seat.objects.filter(user=user, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
            .select_related("table").order_by("-table__created_at").first())
    if seat is not None and seat.table.status == Table.Status.PLAYING:
        raise TableError("seated_playing", _(
            "Stai giocando al tavolo %(n)s: finisci la partita o abbandonala prima di eliminare l'account.")
            % {"n": seat.table_id})
    if seat is not None:
        raise TableError("seated_waiting", _(
            "Sei seduto al tavolo %(n)s, che aspetta giocatori: alzati dal tavolo prima di eliminare l'account.")
            % {"n": seat.table_id})
    entry = (TournamentEntry.objects.filter(Q(user=user) | Q(partner=user), withdrawn_at__isnull=True,
                                            tournament__status__in=[Tournament.Status.REGISTERING,
                                                                    Tournament.Status.RUNNING])
             .select_related("tournament").first())
    if entry is not None:
        raise TableError("in_tournament", _(
            "Sei iscritto al torneo «%(name)s»: ritirati dal torneo prima di eliminare l'account.")
            % {"name": entry.tournament.name})


def clear_for_departure(user, now: datetime) -> None:
    """Drop what links the person to others and is not a game's record (inside the caller's
    transaction; the other people's pages hear withdrawn invitations after the commit)."""
    check_can_leave(user)
    Follow.objects.filter(Q(follower=user) | Q(followed=user)).delete()
    Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
    QueueEntry.objects.filter(Q(user=user) | Q(partner=user), status=QueueEntry.Status.WAITING).delete()
    pending = list(Challenge.objects.select_for_update().select_related("challenger", "invitee")
                   .filter(Q(challenger=user) | Q(invitee=user), status=Challenge.Status.PENDING))
    Notification.objects.filter(Q(user=user) | Q(actor=user) | Q(challenge__in=pending)).delete()
    if not pending:
        return
    Challenge.objects.filter(pk__in=[c.pk for c in pending]).update(
        status=Challenge.Status.CANCELLED, answered_at=now)
    messages = []
    for challenge in pending:
        challenge.status = Challenge.Status.CANCELLED
        other = challenge.invitee_id if challenge.challenger_id == user.pk else challenge.challenger_id
        messages.append((transport.user_group(other), challenge_frame(challenge, now)))
    transaction.on_commit(lambda: transport.deliver(messages))
