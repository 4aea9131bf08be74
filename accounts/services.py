"""Writes on accounts: the one place that creates players and changes their preferences."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from .models import User
from .validators import validate_username


def username_taken(username: str) -> bool:
    return User.objects.filter(username__iexact=username).exists()


def check_new_username(username: str) -> str:
    """The name a new player would get (NFKC, as Django stores it), or ValidationError saying
    exactly what is allowed. Names stored before the rule stay as they are."""
    username = User.normalize_username(username)
    validate_username(username)
    if username_taken(username):
        raise ValidationError(_("Questo nome utente è già in uso: scegline un altro."), code="username_taken")
    return username


@transaction.atomic
def user_create(*, username: str, email: str, password: str, language: str = "it") -> User:
    """Create a player with a hashed password (password validators already ran on the form).

    The username rule (accounts.validators) is enforced here as well as on the form, so no other
    caller can make a name that breaks pages; errors come back as ValidationError by field."""
    try:
        username = check_new_username(username)
    except ValidationError as error:
        raise ValidationError({"username": error.error_list}) from None
    user = User(username=username, email=email.strip(), language=language)
    user.set_password(password)
    # The username was checked above by the stricter rule; Django's own validator would refuse
    # the vowel signs some scripts need.
    user.full_clean(exclude=["password", "username"])
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        # Another sign-up took the name or address between the checks and the insert.
        if username_taken(username):
            raise ValidationError({"username": _("Questo nome utente è già in uso: scegline un altro.")}) from None
        raise ValidationError({"email": _("Esiste già un account con questo indirizzo e-mail.")}) from None
    return user


def user_set_language(*, user: User, language: str) -> User:
    user.language = language
    # Only the language is checked: a name stored before today's username rule must not stop a
    # player from changing their settings.
    user.clean_fields(exclude=[f.name for f in User._meta.concrete_fields if f.name != "language"])
    user.save(update_fields=["language"])
    return user


# ----------------------------------------------------------------------------- sign-up cap
# At most SIGNUP_LIMIT_PER_HOUR new accounts from one address in a window of
# SIGNUP_LIMIT_WINDOW_SECONDS (an hour) that starts with the window's first sign-up. The count
# lives in the cache (Redis when REDIS_URL is set, so every server process shares it). Only
# accounts actually created count; a refused form costs nothing.

SIGNUP_COUNT_KEY = "accounts:signups:{address}"
SIGNUP_UNTIL_KEY = "accounts:signups-until:{address}"


@dataclass(frozen=True)
class SignupCap:
    allowed: bool
    limit: int
    retry_after_seconds: int = 0


def _signup_keys(address: str | None) -> tuple[str, str]:
    where = address or "unknown"
    return SIGNUP_COUNT_KEY.format(address=where), SIGNUP_UNTIL_KEY.format(address=where)


def _refused(limit: int, until_key: str) -> SignupCap:
    until = cache.get(until_key) or 0
    window = settings.SIGNUP_LIMIT_WINDOW_SECONDS
    return SignupCap(False, limit, max(1, min(window, int(until - time.time()) + 1)))


def signup_cap(address: str | None) -> SignupCap:
    """Whether `address` may still create an account now (reads only)."""
    limit = settings.SIGNUP_LIMIT_PER_HOUR
    if limit <= 0:
        return SignupCap(True, limit)
    count_key, until_key = _signup_keys(address)
    if (cache.get(count_key) or 0) >= limit:
        return _refused(limit, until_key)
    return SignupCap(True, limit)


def signup_take_slot(address: str | None) -> SignupCap:
    """Count one sign-up from `address`, atomically; refused once the window's limit is reached
    (two sign-ups racing for the last slot cannot both get it: incr is atomic in Redis)."""
    limit = settings.SIGNUP_LIMIT_PER_HOUR
    if limit <= 0:
        return SignupCap(True, limit)
    window = settings.SIGNUP_LIMIT_WINDOW_SECONDS
    count_key, until_key = _signup_keys(address)
    if cache.add(count_key, 1, timeout=window):
        cache.set(until_key, time.time() + window, timeout=window)
        return SignupCap(True, limit)
    try:
        count = cache.incr(count_key)
    except ValueError:  # the window ended between add and incr: this one opens the next
        cache.set(count_key, 1, timeout=window)
        cache.set(until_key, time.time() + window, timeout=window)
        return SignupCap(True, limit)
    if count > limit:
        return _refused(limit, until_key)
    return SignupCap(True, limit)


def signup_release_slot(address: str | None) -> None:
    """Give back a slot taken for a sign-up that did not happen (a race on the name)."""
    if settings.SIGNUP_LIMIT_PER_HOUR <= 0:
        return
    try:
        cache.decr(_signup_keys(address)[0])
    except ValueError:
        pass
