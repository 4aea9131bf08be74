"""Reads for "Gioca con persone": which queues exist, a person's place in them, and the frames
the lobby socket sends about it (docs/protocol.md, "Play people now")."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext as _

from games.live import frames

from ..engine import PRESET_PLAYERS, PRESETS
from ..models import PlayerRating, QueueEntry, RatingMode, Seat, Table
from .leaderboards import START_RATING
from .rules import preset_label

# The queues: one per mode (the rating modes: "2p" one against one, "4p" pairs) and preset.
MODE_PLAYERS = {RatingMode.SINGLES.value: 2, RatingMode.PAIRS.value: 4}
# A matched person whose lobby socket reopens this soon after the match is sent to the table
# again (a reload or a Daphne restart at the moment of the match); later the lobby's own list
# of their tables shows it, and coming back to the lobby does not bounce them to the table.
RETELL_SECONDS = 15


def mode_label(mode: str) -> str:
    return {RatingMode.SINGLES.value: _("1 contro 1"), RatingMode.PAIRS.value: _("A coppie")}.get(mode, mode)


def queue_choices() -> dict[str, Any]:
    """The lobby form's choices: the modes, and the presets each allows."""
    return {
        "modes": [{"value": mode, "label": mode_label(mode)} for mode in MODE_PLAYERS],
        "presets": [{"value": name, "label": preset_label(name),
                     "modes": [m for m, n in MODE_PLAYERS.items() if n in PRESET_PLAYERS[name]]}
                    for name in PRESETS],
    }


def rating_of(user, mode: str) -> float:
    rating = PlayerRating.objects.filter(user=user, mode=mode).values_list("rating", flat=True).first()
    return START_RATING if rating is None else float(rating)


def rating_window(waited: float) -> float:
    """How far apart two ratings may be for a person who has waited `waited` seconds: ±100 at
    once, 10 more every second, and anyone once they waited WINDOW_ANYONE_SECONDS.

    >>> rating_window(0), rating_window(10), rating_window(30)
    (100.0, 200.0, inf)
    """
    if waited >= WINDOW_ANYONE_SECONDS:
        return math.inf
    return WINDOW_START + WINDOW_GROWTH * max(0.0, waited)


WINDOW_START = 100.0
WINDOW_GROWTH = 10.0  # rating points per second waited
WINDOW_ANYONE_SECONDS = 30.0


def waiting_frame(entry: QueueEntry, now: datetime, computer_after_seconds: float,
                  partner_ready: bool | None = None) -> dict[str, Any]:
    """Where a waiting person stands. `partner` is the player they queue with as a pair (or
    None), `partner_ready` whether that player has named them back (until then the entry is an
    invitation and is not matched); read from the database when not given."""
    waited = max(0.0, (now - entry.joined_at).total_seconds())
    window = rating_window(waited)
    partner = None
    if entry.partner_id is not None:
        partner = entry.partner.username
        if partner_ready is None:
            partner_ready = QueueEntry.objects.filter(user_id=entry.partner_id, partner_id=entry.user_id,
                                                      status=QueueEntry.Status.WAITING).exists()
    return frames.queue_waiting(
        mode=entry.mode, preset=entry.preset, waited=int(waited),
        window=None if math.isinf(window) else int(window), computer_after=entry.computer_after,
        computer_in=max(0, math.ceil(computer_after_seconds - waited)) if entry.computer_after else None,
        partner=partner, partner_ready=bool(partner_ready) if partner is not None else None)


def pair_invite_frame(entry: QueueEntry, status: str) -> dict[str, Any]:
    """To the player `entry` names as partner: `pending` (their lobby page offers to queue with
    `from` as a pair), `cancelled` (the inviter stopped searching, or the invitation lapsed) or
    `declined` (their own answer, for their other tabs)."""
    return frames.pair_invite(status, entry.user.username, entry.partner.username, entry.mode, entry.preset,
                              str(preset_label(entry.preset)))


def pair_invitations(user) -> list[QueueEntry]:
    """The pair invitations waiting for this person's answer: entries naming them as partner
    that they have not named back (one query)."""
    if not user.is_authenticated:
        return []
    answered = QueueEntry.objects.filter(user=user, partner_id=OuterRef("user_id"), status=QueueEntry.Status.WAITING)
    return list(QueueEntry.objects.filter(partner=user, status=QueueEntry.Status.WAITING)
                .exclude(Exists(answered)).select_related("user", "partner").order_by("-joined_at"))


def table_in_play(user) -> int | None:
    """The table this person sits at whose match is in play, if any (one query)."""
    return (Seat.objects.filter(user=user, table__status=Table.Status.PLAYING)
            .order_by("-table_id").values_list("table_id", flat=True).first())


def idle_frame(reason: str = "cancelled") -> dict[str, Any]:
    """Not (or no longer) in any queue: `cancelled` (the person's own choice), `left` (their
    lobby page closed past the grace); for a pair, `partner_left` (the partner cancelled or left),
    `partner_declined` (the invited partner said no), `partner_timeout` (nor answered in time)."""
    return frames.queue_idle(reason)


def matched_frame(table: Table, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A table was made for this person: the lobby page goes to `url` at once."""
    return frames.matched(table.pk, table.players, table.preset, table.rated, seats)


def seat_names(table: Table) -> list[dict[str, Any]]:
    return [{"position": s.position, "username": s.user.username if s.user_id else None,
             "bot_level": s.bot_level or None}
            for s in table.seats.select_related("user").order_by("position")]


def queue_status(user) -> tuple[str | None, int | None]:
    """In one query: ("waiting", None) when the person waits in a queue, ("matched", table id)
    when a table the queue gave them is still being played, else (None, None)."""
    in_play = [Table.Status.WAITING, Table.Status.PLAYING]
    row = (QueueEntry.objects.filter(user=user)
           .filter(Q(status=QueueEntry.Status.WAITING) | Q(status=QueueEntry.Status.MATCHED, table__status__in=in_play))
           .order_by("-status").values_list("status", "table_id").first())  # "waiting" sorts first
    return row if row is not None else (None, None)


def current_match(user) -> QueueEntry | None:
    """This person's latest queue-made table that is still being played, if any."""
    return (QueueEntry.objects.filter(user=user, status=QueueEntry.Status.MATCHED,
                                      table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
            .select_related("table").order_by("-matched_at").first())


def state_frame(user, now: datetime, computer_after_seconds: float) -> dict[str, Any]:
    """What a lobby socket that just opened is told about its person's queue: still waiting, just
    matched (within RETELL_SECONDS), or idle."""
    entry = QueueEntry.objects.filter(user=user, status=QueueEntry.Status.WAITING).select_related("partner").first()
    if entry is not None:
        return waiting_frame(entry, now, computer_after_seconds)
    match = current_match(user)
    if match is not None and match.matched_at and (now - match.matched_at).total_seconds() <= RETELL_SECONDS:
        return matched_frame(match.table, seat_names(match.table))
    return idle_frame("none")
