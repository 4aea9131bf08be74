"""Friends and blocking (issue 14 item 4): follow or unfollow a player, block or unblock one.

- Following is one-way ("Amici" lists whom you follow, games/selectors/social.py): never
  oneself, once per pair, and not a player who blocked you (nor one you block).
- Blocking a player ends either's following of the other and withdraws the invitations still
  pending between the two; from then on the blocked player cannot challenge you
  (games/services/lobby/challenges.py) nor follow you, and the queue does not pair you
  (games/services/lobby/matchmaking.py).

Refusals raise `TableError` (code, Italian message), the lobby's and the challenges' catalogue,
and change nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.live import clock, frames, presence, transport
from games.models import Block, Challenge, Follow, Notification
from games.selectors import social as selectors
from games.selectors.challenges import challenge_frame
from games.services.table.seating import TableError


def _require_login(user) -> None:
    if user is None or not user.is_authenticated:
        raise TableError("login_required", _("Per seguire o bloccare un giocatore bisogna entrare con il proprio "
                                             "account."))


def _player(username: Any):
    player = (get_user_model().objects.filter(username=username, is_active=True).first()
              if isinstance(username, str) and username else None)
    if player is None:
        raise TableError("no_player", _("Questo giocatore non esiste."))
    return player


def follow(*, user, username: Any, now: datetime | None = None) -> Follow:
    """`user` follows the player named `username`."""
    _require_login(user)
    player = _player(username)
    names = {"name": player.username}
    if player.pk == user.pk:
        raise TableError("self_follow", _("Non puoi seguire te stesso: scegli un altro giocatore."))
    if Block.objects.filter(blocker=user, blocked=player).exists():
        raise TableError("you_block", _("Hai bloccato %(name)s: sbloccalo prima di seguirlo.") % names)
    if Block.objects.filter(blocker=player, blocked=user).exists():
        raise TableError("blocked", _("Non puoi seguire %(name)s: questo giocatore non lo permette.") % names)
    try:
        with transaction.atomic():
            return Follow.objects.create(follower=user, followed=player, created_at=now or clock.now())
    except IntegrityError:
        raise TableError("already_following", _("Segui già %(name)s.") % names) from None


def unfollow(*, user, username: Any) -> None:
    """`user` stops following the player named `username`."""
    _require_login(user)
    player = _player(username)
    if not Follow.objects.filter(follower=user, followed=player).delete()[0]:
        raise TableError("not_following", _("Non segui %(name)s.") % {"name": player.username})


def block(*, user, username: Any, now: datetime | None = None) -> Block:
    """`user` blocks the player named `username`: the follows between them end, and the
    invitations pending between them are withdrawn (both people's pages hear it)."""
    _require_login(user)
    player = _player(username)
    if player.pk == user.pk:
        raise TableError("self_block", _("Non puoi bloccare te stesso."))
    now = now or clock.now()
    with transaction.atomic():
        try:
            with transaction.atomic():
                row = Block.objects.create(blocker=user, blocked=player, created_at=now)
        except IntegrityError:
            raise TableError("already_blocked", _("Hai già bloccato %(name)s.") % {"name": player.username}) from None
        Follow.objects.filter(Q(follower=user, followed=player) | Q(follower=player, followed=user)).delete()
        between = Q(challenger=user, invitee=player) | Q(challenger=player, invitee=user)
        pending = list(Challenge.objects.select_for_update().select_related("challenger", "invitee")
                       .filter(between, status=Challenge.Status.PENDING))
        if pending:
            Challenge.objects.filter(pk__in=[c.pk for c in pending]).update(
                status=Challenge.Status.CANCELLED, answered_at=now)
            Notification.objects.filter(challenge__in=pending).delete()

            messages = []
            for challenge in pending:
                challenge.status = Challenge.Status.CANCELLED
                frame = challenge_frame(challenge, now)
                messages += [(transport.user_group(challenge.invitee_id), frame),
                             (transport.user_group(challenge.challenger_id), frame)]
            transaction.on_commit(lambda: transport.deliver(messages))
    return row


def unblock(*, user, username: Any) -> None:
    """`user` lifts their block of the player named `username` (the follows do not come back)."""
    _require_login(user)
    player = _player(username)
    if not Block.objects.filter(blocker=user, blocked=player).delete()[0]:
        raise TableError("not_blocked", _("Non hai bloccato %(name)s.") % {"name": player.username})


def presence_changed(user_id: int) -> None:
    """A person came online or went offline: the pages of whoever follows them hear it (a
    `friends_changed` frame on their lobby sockets; the "Amici" page then asks for the list)."""
    followers = selectors.follower_ids(user_id)
    if followers:
        frame = frames.friends_changed()
        transport.deliver([(transport.user_group(f), frame) for f in followers])


def seating_changed(table_ids) -> None:
    """Someone sat, a game started or ended at these tables (called after the commit with the
    tables' own announcement): whoever follows a person seated there hears it (one query)."""
    ids = list(dict.fromkeys(table_ids))
    if not ids:
        return
    followers = list(Follow.objects.filter(followed__seats__table_id__in=ids)
                     .values_list("follower_id", flat=True).distinct())
    if followers:
        frame = frames.friends_changed()
        transport.deliver([(transport.user_group(f), frame) for f in followers])


def socket_opened(user_id: int, socket_id: str) -> None:
    """A lobby socket of this person opened: online from now; their followers hear it if that
    is news."""
    if presence.user_connected(user_id, socket_id):
        presence_changed(user_id)


def socket_closed(user_id: int, socket_id: str) -> None:
    """A lobby socket of this person closed: it lingers a moment (the next page opening is no
    news); the caller calls `announce_if_gone` once that moment has passed."""
    presence.user_disconnected(user_id, socket_id)


def announce_if_gone(user_id: int) -> None:
    """After a closed socket's linger: if none of this person's sockets lives, their followers
    hear it."""
    if not presence.online_users([user_id]):
        presence_changed(user_id)
