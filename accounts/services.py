"""Writes on accounts: the one place that creates players and changes their preferences."""

from __future__ import annotations

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
