"""Shared test factories: people and complete recorded matches (see games/benchmarks/sample_games.py)."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model

from games.benchmarks.sample_games import record_sample_match

_counter = itertools.count(1)


def make_user(username: str | None = None, password: str | None = None, **extra):
    """A person with a unique name and e-mail. No password unless given: hashing one with Argon2
    costs a fair fraction of a second, and tests log people in with `client.force_login`."""
    name = username or f"giocatore{next(_counter)}"
    return get_user_model().objects.create_user(name, f"{name}@example.com", password, **extra)


def make_users(count: int, prefix: str | None = None) -> list:
    return [make_user(f"{prefix}{i}" if prefix else None) for i in range(count)]


def finished_match(users, **kwargs):
    """A finished match recorded through the engine (random legal play); see record_sample_match."""
    kwargs.setdefault("seed", next(_counter))
    return record_sample_match(users, **kwargs)


def match_in_progress(users, stop_after: int = 30, **kwargs):
    """A match left in progress after `stop_after` actions."""
    kwargs.setdefault("seed", next(_counter))
    return record_sample_match(users, stop_after=stop_after, **kwargs)
