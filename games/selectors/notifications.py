"""Reads for the header's bell: a person's latest notifications, how many are unread, and the
`bell` frame their lobby sockets receive when that changes (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from games.live import clock, frames

from ..models import Notification
from .rules import preset_label

BELL_LIMIT = 10


def unread_count(user_id: int) -> int:
    """Unread lines, an invitation past its time left out (nothing to answer any more)."""
    return (Notification.objects.filter(user_id=user_id, read_at__isnull=True)
            .exclude(kind=Notification.Kind.CHALLENGE, challenge__expires_at__lte=clock.now()).count())


def _item(note: Notification) -> dict[str, Any]:
    name = note.actor.username if note.actor_id else ""
    if note.kind == Notification.Kind.CHALLENGE:
        preset = note.challenge.preset if note.challenge_id else ""
        text = _("%(name)s ti sfida a una partita (%(preset)s).") % {"name": name, "preset": preset_label(preset)}
        if note.challenge_id and note.challenge.expires_at <= clock.now():
            text = _("%(name)s ti aveva sfidato a una partita (%(preset)s): l'invito è scaduto.") % {
                "name": name, "preset": preset_label(preset)}
        url = reverse("lobby") + "#invitations"
    elif note.kind == Notification.Kind.REMATCH:
        text = _("%(name)s ti propone la rivincita del tavolo %(n)s.") % {"name": name, "n": note.table_id}
        url = reverse("table", args=[note.table_id])
    else:
        text = _("Tocca a te al tavolo %(n)s.") % {"n": note.table_id}
        url = reverse("table", args=[note.table_id])
    return {"id": note.pk, "kind": note.kind, "text": text, "url": url, "unread": note.read_at is None,
            "created_at": note.created_at.isoformat()}


def latest(user_id: int, limit: int = BELL_LIMIT) -> list[dict[str, Any]]:
    """The newest notifications of this person, unread or not (one query)."""
    notes = (Notification.objects.filter(user_id=user_id).select_related("actor", "challenge")
             .order_by("-created_at", "-pk")[:limit])
    return [_item(n) for n in notes]


def bell(user) -> dict[str, Any]:
    """What the header draws on load: {"unread": n, "items": [...]} (two queries)."""
    if user is None or not user.is_authenticated:
        return {"unread": 0, "items": []}
    return {"unread": unread_count(user.pk), "items": latest(user.pk)}


def bell_frame(user_id: int, language: str) -> dict[str, Any]:
    """The `bell` frame for one person, its texts in their language."""
    with translation.override(language):
        return frames.bell(unread_count(user_id), latest(user_id))
