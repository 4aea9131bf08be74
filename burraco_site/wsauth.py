"""WebSocket authentication from the session cookie, done by the consumer after it accepts.

Channels' `AuthMiddlewareStack` looks the session and the user up *before* the handshake is
answered, on its one shared thread: under load the handshakes queued there past Daphne's 5 s
limit and were dropped. Here the middleware only reads the session key from the cookie
(`scope["session_key"]`); each consumer accepts at once and then calls `session_and_user` on
the database thread pool (together with its own set-up, in one call), closing with 4401 when
nobody is signed in. It checks what Django's `get_user` checks (the session hash included).
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


async def authenticate(scope) -> tuple[object, object]:
    """The session and user of a socket's scope (on the thread pool); cached in the scope."""
    if "user" not in scope:
        scope["session"], scope["user"] = await run_db(session_and_user)(scope.get("session_key"))
    return scope["session"], scope["user"]


class SessionKeyMiddleware:
    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            scope = dict(scope, session_key=_cookies(scope).get(settings.SESSION_COOKIE_NAME))
        return await self.application(scope, receive, send)
