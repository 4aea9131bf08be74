"""The header's bell (issue 14 item 8): invitations, rematch offers, and "your turn" at a table
the person is not looking at. Stored (`Notification`), so a reload shows them; each change is
followed, after the commit, by the person's `bell` frame on their lobby sockets
(`lobby.user.<id>`: the bell of every page they have open).

- `challenge_sent` / `challenge_closed`: an invitation appears in the invitee's bell, and is
  marked read once it is answered, withdrawn or expires.
- `rematch_offered`: each other person at the finished table who is not looking at it hears
  of the offer; `rematch_done` marks those read when the new table starts.
- `your_turn`: the turn passed to a person with no socket at the table (called after the
  move's commit by the play path, which already knows who is at the table). One unread line per
  table: a later turn there refreshes it instead of adding another.
- `table_opened`: the person opened that table's page: its lines are seen.
- `mark_read`: the person opened the bell.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from games.live import clock, presence, transport
from games.models import Challenge, Notification
from games.selectors.notifications import bell_frame


def _push_after_commit(user_ids: set[int] | list[int]) -> None:
    """After the commit, send each person their own `bell` frame (texts in their language)."""
    ids = sorted(set(user_ids))
    if not ids:
        return

    def push() -> None:
        languages = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "language"))
        transport.deliver([(transport.user_group(u), bell_frame(u, languages.get(u) or settings.LANGUAGE_CODE))
                           for u in ids])

    transaction.on_commit(push)


def challenge_sent(challenge: Challenge) -> Notification:
    note = Notification.objects.create(user_id=challenge.invitee_id, kind=Notification.Kind.CHALLENGE,
                                       actor_id=challenge.challenger_id, challenge=challenge,
                                       created_at=challenge.created_at)
    _push_after_commit([challenge.invitee_id])
    return note


def challenge_closed(challenge: Challenge, now: datetime) -> None:
    if Notification.objects.filter(challenge=challenge, read_at__isnull=True).update(read_at=now):
        _push_after_commit([challenge.invitee_id])


def rematch_offered(*, table_id: int, by_user_id: int, waiting_for: list[int], now: datetime | None = None) -> None:
    """`by_user_id` asked for a rematch; tell each of `waiting_for` (people who have not said yes)
    who is not at the table's page right now."""
    now = now or clock.now()
    told = []
    for user_id in waiting_for:
        if user_id == by_user_id or presence.sockets_of(table_id, user_id):
            continue
        updated = Notification.objects.filter(user_id=user_id, kind=Notification.Kind.REMATCH, table_id=table_id,
                                              read_at__isnull=True).update(created_at=now, actor_id=by_user_id)
        if not updated:
            Notification.objects.create(user_id=user_id, kind=Notification.Kind.REMATCH, table_id=table_id,
                                        actor_id=by_user_id, created_at=now)
        told.append(user_id)
    _push_after_commit(told)


def rematch_done(*, table_id: int, now: datetime | None = None) -> None:
    notes = Notification.objects.filter(kind=Notification.Kind.REMATCH, table_id=table_id, read_at__isnull=True)
    users = list(notes.values_list("user_id", flat=True))
    if users:
        notes.update(read_at=now or clock.now())
        _push_after_commit(users)


def your_turn(*, table_id: int, user_id: int, now: datetime | None = None) -> None:
    """The turn at `table_id` passed to `user_id`, who has no socket there (the caller checked)."""
    now = now or clock.now()
    with transaction.atomic():
        updated = Notification.objects.filter(user_id=user_id, kind=Notification.Kind.TURN, table_id=table_id,
                                              read_at__isnull=True).update(created_at=now)
        if not updated:
            Notification.objects.create(user_id=user_id, kind=Notification.Kind.TURN, table_id=table_id,
                                        created_at=now)
        _push_after_commit([user_id])


def table_opened(*, user, table_id: int, now: datetime | None = None) -> int:
    """The person opened the table's page: its "your turn" and rematch lines are seen (one
    statement; the bells of their other pages hear it if anything changed)."""
    if user is None or not user.is_authenticated:
        return 0
    count = Notification.objects.filter(user=user, table_id=table_id, read_at__isnull=True).update(
        read_at=now or clock.now())
    if count:
        _push_after_commit([user.pk])
    return count


def mark_read(*, user, now: datetime | None = None) -> int:
    """The person opened the bell: everything in it is read now. Returns how many were unread."""
    if user is None or not user.is_authenticated:
        return 0
    count = Notification.objects.filter(user=user, read_at__isnull=True).update(read_at=now or clock.now())
    if count:
        _push_after_commit([user.pk])  # the bells of their other pages go quiet too
    return count
