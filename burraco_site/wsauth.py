"""WebSocket authentication from the session cookie, on the database thread pool.

It does what Channels' `AuthMiddlewareStack` does (the session from the cookie, then the user,
with the session hash checked), but in one call on `run_db`'s pool: the handshake of a socket
does not queue behind every other socket's session lookup on Channels' one shared thread, which
made Daphne drop handshakes under load. `scope["session"]` and `scope["user"]` are set as before.
"""

from __future__ import annotations

from http.cookies import SimpleCookie
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user
from django.contrib.auth.models import AnonymousUser

from .dbthreads import run_db


def _cookies(scope) -> dict[str, str]:
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            parsed = SimpleCookie()
            try:
                parsed.load(value.decode("latin1"))
            except Exception:  # noqa: BLE001 - a malformed cookie header is no session
                return {}
            return {name: morsel.value for name, morsel in parsed.items()}
    return {}


def session_and_user(session_key: str | None):
    engine = import_module(settings.SESSION_ENGINE)
    session = engine.SessionStore(session_key=session_key)
    if not session_key:
        return session, AnonymousUser()
    return session, get_user(SimpleNamespace(session=session))


class SessionAuthMiddleware:
    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            key = _cookies(scope).get(settings.SESSION_COOKIE_NAME)
            session, user = await run_db(session_and_user)(key)
            scope = dict(scope, session=session, user=user)
        return await self.application(scope, receive, send)
