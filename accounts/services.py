"""Writes on accounts: the one place that creates players and changes their preferences."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from games.live import clock
from games.services.errors import ServiceError
from games.services.lobby import departures

from .models import User
from .selectors import deleted_name, email_taken
from .validators import validate_username

EMAIL_CHANGE_SALT = "accounts.email-change"
# A link to confirm a new address works this long (two days).
EMAIL_CHANGE_MAX_AGE_SECONDS = 2 * 24 * 3600


class AccountError(Exception):
    """A refused change to an account: `code` for programs, `message` (Italian) for people."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


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


def user_set_preferences(*, user: User, language: str, sound_on: bool, client_seed: str | None = None) -> User:
    """The settings page's first form: the site's language, whether the table's sounds start
    on and (when given) the player's seed for the deals. Only those fields are checked and saved."""
    user.language = language
    user.sound_on = bool(sound_on)
    fields = ["language", "sound_on"]
    if client_seed is not None:
        user.client_seed = client_seed
        fields.append("client_seed")
    user.clean_fields(exclude=[f.name for f in User._meta.concrete_fields if f.name not in ("language", "client_seed")])
    user.save(update_fields=fields)
    return user


def user_remember_quick_play(*, user: User, preset: str, level: str) -> None:
    """"Gioca contro il computer" opens next time with this variant and level (both already
    checked by the caller)."""
    if (user.quick_preset, user.quick_level) != (preset, level):
        user.quick_preset, user.quick_level = preset, level
        user.save(update_fields=["quick_preset", "quick_level"])


# ----------------------------------------------------------------------------- e-mail change
# The new address gets a signed link (no table: the signature carries the account, the old and
# the new address, and its age). Opening it while signed in as that account makes the change;
# the old address is told. A link for an address that changed since, or older than
# EMAIL_CHANGE_MAX_AGE_SECONDS, does nothing.


def email_change_request(*, user: User, password: str, new_email: str, link_for: Callable[[str], str]) -> str:
    """Send the confirmation link to `new_email` (`link_for(token)` makes the absolute URL);
    return the address it went to. Refused with the wrong password, the same address, or one
    another account uses."""
    if not user.check_password(password or ""):
        raise AccountError("wrong_password", _("La password non è giusta: l'indirizzo non è cambiato."))
    new_email = User.objects.normalize_email((new_email or "").strip())
    if new_email.lower() == user.email.lower():
        raise AccountError("same_email", _("È già il tuo indirizzo: scrivine uno nuovo."))
    if email_taken(new_email, exclude_id=user.pk):
        raise AccountError("email_taken", _("Esiste già un account con questo indirizzo e-mail."))
    token = signing.dumps({"u": user.pk, "old": user.email, "new": new_email}, salt=EMAIL_CHANGE_SALT)
    context = {"user": user, "link": link_for(token), "new_email": new_email,
               "days": EMAIL_CHANGE_MAX_AGE_SECONDS // 86400}
    send_mail(_("Burraco: conferma il nuovo indirizzo e-mail"),
              render_to_string("accounts/email_change_email.txt", context), None, [new_email])
    return new_email


def email_change_confirm(*, user: User, token: str) -> User:
    """Make the change a link asked for, if it is this account's, recent, and still about the
    current address; the old address hears of it."""
    try:
        data = signing.loads(token, salt=EMAIL_CHANGE_SALT, max_age=EMAIL_CHANGE_MAX_AGE_SECONDS)
    except signing.SignatureExpired:
        raise AccountError("link_expired", _(
            "Questo link è scaduto: chiedi di nuovo il cambio di indirizzo dalle Impostazioni.")) from None
    except signing.BadSignature:
        raise AccountError("link_invalid", _(
            "Questo link non è valido: copialo per intero dal messaggio, oppure chiedi di nuovo il cambio "
            "dalle Impostazioni.")) from None
    if data.get("u") != user.pk:
        raise AccountError("link_other_account", _(
            "Questo link è per un altro account: entra con l'account che ha chiesto il cambio e aprilo di nuovo."))
    if data.get("old", "").lower() != user.email.lower():
        raise AccountError("link_stale", _(
            "Il tuo indirizzo è cambiato dopo questa richiesta: il link non vale più."))
    new_email = data["new"]
    if email_taken(new_email, exclude_id=user.pk):
        raise AccountError("email_taken", _("Esiste già un account con questo indirizzo e-mail."))
    old_email = user.email
    user.email = new_email
    try:
        with transaction.atomic():
            user.save(update_fields=["email"])
    except IntegrityError:  # another account took it between the check and the save
        user.email = old_email
        raise AccountError("email_taken", _("Esiste già un account con questo indirizzo e-mail.")) from None
    send_mail(_("Burraco: il tuo indirizzo e-mail è cambiato"),
              render_to_string("accounts/email_changed_notice.txt",
                               {"user": user, "old_email": old_email, "new_email": new_email}),
              None, [old_email])
    return user


# ----------------------------------------------------------------------------- deletion


def user_delete(*, user: User, password: str) -> None:
    """Delete the account: refused with the wrong password or while the game side says no
    (games.services.lobby.departures: seated at a table, entered in a tournament). The row stays,
    anonymous, so every game keeps its seat: the name becomes "giocatore eliminato N", the
    address a reserved one that receives nothing, the password unusable, the account inactive
    (no log-in, no search, no challenge, no profile page)."""
    if not user.check_password(password or ""):
        raise AccountError("wrong_password", _("La password non è giusta: l'account non è stato eliminato."))
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not locked.is_active:
            raise AccountError("already_deleted", _("Questo account è già stato eliminato."))
        try:
            departures.clear_for_departure(locked, clock.now())
        except ServiceError as exc:
            raise AccountError(exc.code, exc.message) from None
        locked.username = deleted_name(locked.pk)
        locked.email = f"eliminato-{locked.pk}@example.invalid"
        locked.first_name = locked.last_name = ""
        locked.is_active = False
        locked.is_staff = locked.is_superuser = False
        locked.sound_on = True
        locked.quick_preset = locked.quick_level = locked.client_seed = ""
        locked.language = User.Language.ITALIAN
        locked.deleted_at = timezone.now()
        locked.set_unusable_password()
        locked.save()
        locked.groups.clear()
        locked.user_permissions.clear()


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
