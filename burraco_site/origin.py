"""The WebSocket origin check: the page that opens a socket must come from this very site.

Channels' `AllowedHostsOriginValidator` compares only the host name with ALLOWED_HOSTS, so a page
served on another port of the same host (another program's) could open a game socket. Here the
Origin must equal the origin the socket itself was opened on, scheme, host and port: the Host
header (which must be an allowed host) with http for ws and https for wss (or, behind a TLS proxy
trusted through SECURE_PROXY_SSL_HEADER, what the proxy says), or one of CSRF_TRUSTED_ORIGINS.
"""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def expected_origin(scope) -> str | None:
    host = _header(scope, b"host")
    if not host:
        return None
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") == "wss"
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        header, value = proxy
        forwarded = _header(scope, header.lower().removeprefix("http_").replace("_", "-").encode())
        if forwarded is not None:
            secure = forwarded.split(",")[0].strip() == value
    return f"{'https' if secure else 'http'}://{host}".lower()


def origin_allowed(scope) -> bool:
    origin = (_header(scope, b"origin") or "").lower()
    if not origin:
        return False
    if origin in {o.lower() for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    return origin == expected_origin(scope)


class SameOriginValidator:
    """ASGI middleware: a WebSocket whose Origin is not this site's is denied at the handshake."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            denier = WebsocketDenier()
            return await denier(scope, receive, send)
        return await self.application(scope, receive, send)
