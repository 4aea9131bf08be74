"""Reads on accounts."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, IntegerField, Value, When
from django.db.models.functions import Lower
from django.shortcuts import get_object_or_404

from .models import User

# A deleted account keeps its row (games, ratings and tournaments point at it) under this name
# and the row's id: "giocatore eliminato 12". A space is not allowed in a new username
# (accounts.validators), so nobody can sign up as one.
DELETED_NAME = "giocatore eliminato"
SEARCH_MIN_LENGTH = 2
SEARCH_PER_PAGE = 20


def profile_user(username: str) -> User:
    return get_object_or_404(User, username=username, is_active=True)


def email_taken(email: str, *, exclude_id: int | None = None) -> bool:
    found = User.objects.filter(email__iexact=email.strip())
    if exclude_id is not None:
        found = found.exclude(pk=exclude_id)
    return found.exists()


def deleted_name(user_id: int) -> str:
    return f"{DELETED_NAME} {user_id}"


def is_deleted_name(username: str) -> bool:
    """Whether a name shown on a page is a deleted account's (no query: pages call it per row)."""
    return isinstance(username, str) and username.startswith(DELETED_NAME + " ")


@dataclass(frozen=True)
class PlayerSearch:
    text: str
    names: list[str]
    page: int
    has_previous: bool
    has_next: bool
    too_short: bool = False


def search_players(*, viewer, text: str, page: int = 1, per_page: int = SEARCH_PER_PAGE) -> PlayerSearch:
    """Active players whose name contains `text` (any case), the ones that start with it first,
    then alphabetical; never the viewer. One query per page (one row more than the page says
    whether another page follows)."""
    text = (text or "").strip()[:150]
    page = max(1, page)
    if len(text) < SEARCH_MIN_LENGTH:
        return PlayerSearch(text, [], 1, False, False, too_short=bool(text))
    found = User.objects.filter(username__icontains=text, is_active=True)
    if viewer is not None and viewer.is_authenticated:
        found = found.exclude(pk=viewer.pk)
    found = found.annotate(
        starts=Case(When(username__istartswith=text, then=Value(0)), default=Value(1), output_field=IntegerField())
    ).order_by("starts", Lower("username"), "pk")
    start = (page - 1) * per_page
    names = list(found.values_list("username", flat=True)[start:start + per_page + 1])
    return PlayerSearch(text, names[:per_page], page, page > 1, len(names) > per_page)


def quick_play_choice(user) -> dict[str, str]:
    """The variant and level "Gioca contro il computer" opens with: the player's last ones, or
    Mano unica against medio."""
    return {"preset": getattr(user, "quick_preset", "") or "mano_unica",
            "level": getattr(user, "quick_level", "") or "medio"}
