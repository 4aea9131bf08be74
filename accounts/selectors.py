"""Reads on accounts."""

from __future__ import annotations

from django.shortcuts import get_object_or_404

from .models import User


def profile_user(username: str) -> User:
    return get_object_or_404(User, username=username, is_active=True)


def email_taken(email: str) -> bool:
    return User.objects.filter(email__iexact=email.strip()).exists()
