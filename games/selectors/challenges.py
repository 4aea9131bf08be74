"""Reads for challenges: the presets one may challenge to, a person's invitations, and the
frames the lobby socket sends about them (docs/protocol.md, "Challenges")."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from games.live import frames

from ..engine import PRESET_PLAYERS, PRESETS
from ..models import Challenge
from .rules import preset_label


def challenge_presets() -> list[dict[str, str]]:
    """The engine's presets played by two, in the engine's order: what a challenge may ask for."""
    return [{"value": name, "label": preset_label(name)} for name in PRESETS if 2 in PRESET_PLAYERS[name]]


def is_challenge_preset(name: Any) -> bool:
    return isinstance(name, str) and name in PRESETS and 2 in PRESET_PLAYERS[name]


def live(now: datetime):
    """Pending invitations not yet past their time."""
    return Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__gt=now)


def received(user, now: datetime) -> list[Challenge]:
    """The invitations waiting for this person's answer, newest first (one query)."""
    if not user.is_authenticated:
        return []
    return list(live(now).filter(invitee=user).select_related("challenger").order_by("-created_at"))


def sent(user, now: datetime) -> list[Challenge]:
    """The invitations this person sent that wait for an answer, newest first (one query)."""
    if not user.is_authenticated:
        return []
    return list(live(now).filter(challenger=user).select_related("invitee").order_by("-created_at"))


def challenge_frame(challenge: Challenge, now: datetime) -> dict[str, Any]:
    """The `challenge` frame: sent to both people at every step (pending, declined, expired,
    cancelled; an accepted one is followed by `matched`)."""
    return frames.challenge(challenge.pk, challenge.status, challenge.challenger.username,
                            challenge.invitee.username, challenge.preset, str(preset_label(challenge.preset)),
                            max(0, math.ceil((challenge.expires_at - now).total_seconds())), challenge.table_id)
