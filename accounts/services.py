"""Writes on accounts: the one place that creates players and changes their preferences."""

from __future__ import annotations

from django.db import transaction

from .models import User


@transaction.atomic
def user_create(*, username: str, email: str, password: str, language: str = "it") -> User:
    """Create a player with a hashed password (validators already ran on the form)."""
    user = User(username=username, email=email.strip(), language=language)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    return user


def user_set_language(*, user: User, language: str) -> User:
    user.language = language
    user.full_clean(exclude=["password"])
    user.save(update_fields=["language"])
    return user
