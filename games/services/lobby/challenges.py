"""Challenges: one person invites another to a game for two; the other accepts or declines.

- `send_challenge` records a pending `Challenge` (preset among the engine's presets for two)
  and tells the invitee's lobby sockets at once (`challenge` frame on `lobby.user.<id>`); who is
  not online finds it in the lobby's list of invitations until it expires
  (`CHALLENGE_EXPIRE_SECONDS`, ten minutes).
- `accept_challenge` (the invitee) opens a private, unrated table (invitation tables are never
  rated: friends could trade wins, issue 14 item 7), seats both and starts it in the same
  transaction that marks the invitation accepted, under the invitation's row lock, so accepting
  twice makes one table; both people get the queue's `matched` frame and their pages go there.
- `decline_challenge` (the invitee) and `cancel_challenge` (the challenger) close it; both
  people hear it.

Refusals raise `TableError` (code, Italian message) and change nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from games.engine import Ruleset
from games.live import clock, transport
from games.models import Block, Challenge
from games.selectors import challenges as selectors
from games.selectors.matchmaking import matched_frame, seat_names
from games.services.lobby import notifications
from games.services.table.seating import TableError, create_table, sit


def _require_login(user) -> None:
    if user is None or not user.is_authenticated:
        raise TableError("login_required", _("Per sfidare un giocatore bisogna entrare con il proprio account."))


def _tell_both(challenge: Challenge, now: datetime, extra: list[tuple[str, dict[str, Any]]] = ()) -> None:
    frame = selectors.challenge_frame(challenge, now)
    messages = [(transport.user_group(challenge.invitee_id), frame),
                (transport.user_group(challenge.challenger_id), frame), *extra]
    transaction.on_commit(lambda: transport.deliver(messages))


def send_challenge(*, challenger, username: Any, preset: Any, now: datetime | None = None) -> Challenge:
    """`challenger` invites the player named `username` to a game of `preset` for two. Refused
    when not signed in, for a player who does not exist, for oneself, for a preset not played
    by two, when either of the two blocks the other (games/services/lobby/social.py), and while an
    invitation of theirs to the same person still waits."""
    _require_login(challenger)
    now = now or clock.now()
    # Names are unique ignoring case: "bruno" typed in a name field finds "Bruno".
    invitee = (get_user_model().objects.filter(username__iexact=username.strip(), is_active=True).first()
               if isinstance(username, str) and username else None)
    if invitee is None:
        raise TableError("no_player", _("Questo giocatore non esiste."))
    if invitee.pk == challenger.pk:
        raise TableError("self_challenge", _("Non puoi sfidare te stesso: scegli un altro giocatore."))
    blocks = set(Block.objects.filter(Q(blocker=challenger, blocked=invitee) | Q(blocker=invitee, blocked=challenger))
                 .values_list("blocker_id", flat=True))
    if challenger.pk in blocks:
        raise TableError("you_block", _("Hai bloccato %(name)s: sbloccalo prima di sfidarlo.")
                         % {"name": invitee.username})
    if blocks:
        raise TableError("blocked", _("Non puoi sfidare %(name)s: questo giocatore non accetta tuoi inviti.")
                         % {"name": invitee.username})
    if not selectors.is_challenge_preset(preset):
        raise TableError("bad_preset", _("Variante sconosciuta: scegli una delle varianti proposte."))
    ruleset = Ruleset.preset(preset, players=2)
    with transaction.atomic():
        # An invitation past its time no longer blocks a new one: mark it for what it is.
        Challenge.objects.filter(challenger=challenger, invitee=invitee, status=Challenge.Status.PENDING,
                                 expires_at__lte=now).update(status=Challenge.Status.EXPIRED)
        try:
            with transaction.atomic():
                challenge = Challenge.objects.create(
                    challenger=challenger, invitee=invitee, preset=preset, options=ruleset.to_dict(),
                    created_at=now, expires_at=now + timedelta(seconds=settings.CHALLENGE_EXPIRE_SECONDS),
                )
        except IntegrityError:
            raise TableError("already_challenged", _(
                "Hai già invitato %(name)s: aspetta la sua risposta o annulla l'invito.")
                % {"name": invitee.username}) from None
        notifications.challenge_sent(challenge)
        _tell_both(challenge, now)
    return challenge


def _locked(challenge_id: Any, user, now: datetime, *, as_invitee: bool) -> Challenge:
    """The invitation under its row lock, if it is this person's to answer and still pending."""
    if not isinstance(challenge_id, int) or isinstance(challenge_id, bool):
        raise TableError("no_challenge", _("Questo invito non esiste."))
    mine = {"invitee": user} if as_invitee else {"challenger": user}
    challenge = (Challenge.objects.select_for_update(of=("self",)).select_related("challenger", "invitee")
                 .filter(pk=challenge_id, **mine).first())
    if challenge is None:  # someone else's invitation reads as none at all
        raise TableError("no_challenge", _("Questo invito non esiste."))
    if challenge.status == Challenge.Status.ACCEPTED:
        raise TableError("already_accepted", _("Questo invito è già stato accettato."))
    if challenge.status != Challenge.Status.PENDING:
        raise TableError("not_pending", _("Questo invito non è più valido: è stato rifiutato o annullato."))
    if challenge.expires_at <= now:
        raise TableError("expired", _("Questo invito è scaduto: chiedi una nuova sfida."))
    return challenge


def accept_challenge(*, user, challenge_id: Any, now: datetime | None = None) -> Challenge:
    """The invitee accepts: a private, unrated table for the two, started; both get `matched`."""
    _require_login(user)
    now = now or clock.now()
    with transaction.atomic():
        challenge = _locked(challenge_id, user, now, as_invitee=True)
        ruleset = Ruleset.from_dict(challenge.options)
        table = create_table(creator=challenge.challenger, ruleset=ruleset, rated=False, private=True)
        sit(table_id=table.pk, user=challenge.invitee, position=1)  # the last seat starts the game
        table.refresh_from_db()
        challenge.status = Challenge.Status.ACCEPTED
        challenge.answered_at = now
        challenge.table = table
        challenge.save(update_fields=["status", "answered_at", "table"])
        notifications.challenge_closed(challenge, now)
        frame = matched_frame(table, seat_names(table)) | {"challenge": True}
        _tell_both(challenge, now, [(transport.user_group(challenge.challenger_id), frame),
                                    (transport.user_group(challenge.invitee_id), frame)])
    return challenge


def decline_challenge(*, user, challenge_id: Any, now: datetime | None = None) -> Challenge:
    """The invitee says no; the challenger hears it."""
    return _close(user, challenge_id, now, Challenge.Status.DECLINED, as_invitee=True)


def cancel_challenge(*, user, challenge_id: Any, now: datetime | None = None) -> Challenge:
    """The challenger takes the invitation back; the invitee's notice goes away."""
    return _close(user, challenge_id, now, Challenge.Status.CANCELLED, as_invitee=False)


def _close(user, challenge_id: Any, now: datetime | None, status: str, *, as_invitee: bool) -> Challenge:
    _require_login(user)
    now = now or clock.now()
    with transaction.atomic():
        challenge = _locked(challenge_id, user, now, as_invitee=as_invitee)
        challenge.status = status
        challenge.answered_at = now
        challenge.save(update_fields=["status", "answered_at"])
        notifications.challenge_closed(challenge, now)
        _tell_both(challenge, now)
    return challenge
