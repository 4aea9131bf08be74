"""Before a long-running process serves (Daphne, a Celery worker, the scheduler): the services
its settings name must be ones it could ever reach.

A server that is down is waited for (the pool, the channel layer and the broker reconnect on
their own: a restart is normal). A setting that can never work is not: a host name that does not
resolve, a password the server refuses, a database or virtual host that does not exist. Each
such process retried those silently for ever (the worker's "Cannot connect ... retrying", the
pool's reconnect loop), so the site looked up with every table standing still. `problems()`
names the setting at fault; `exit_on_problems()` prints them and exits with status 78
(EX_CONFIG), which a supervisor shows as a failed start instead of a crash loop's log.
"""

from __future__ import annotations

import logging
import socket
import sys
from urllib.parse import unquote, urlsplit

import psycopg
import redis
from amqp.exceptions import AccessRefused, NotAllowed
from django.conf import settings
from django.db import connection
from kombu import Connection

log = logging.getLogger(__name__)

EX_CONFIG = 78
TIMEOUT_SECONDS = 3.0
# getaddrinfo's answers for a name that does not exist (not "try again later": a DNS server that
# is briefly down is waited for like any other).
_NO_SUCH_HOST = {getattr(socket, name) for name in ("EAI_NONAME", "EAI_NODATA", "EAI_FAIL") if hasattr(socket, name)}


def _unresolved(setting: str, url: str) -> str | None:
    parts = urlsplit(url)
    host = parts.hostname
    if not host or host.startswith("/"):
        return None
    try:
        socket.getaddrinfo(host, parts.port or 0)
    except socket.gaierror as exc:
        if exc.errno in _NO_SUCH_HOST:
            return f"{setting}: the host name {host!r} does not resolve ({exc.strerror})"
    return None


def _redis(setting: str, url: str) -> str | None:
    client = redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS)
    try:
        client.ping()
    except redis.AuthenticationError as exc:
        return f"{setting}: Redis refused the user or password ({exc})"
    except redis.ResponseError as exc:
        if any(word in str(exc) for word in ("AUTH", "WRONGPASS", "NOPERM")):
            return f"{setting}: Redis refused the user or password ({exc})"
    except redis.RedisError:
        pass  # not answering: a server that is down is waited for
    finally:
        client.close()
    return None


def _amqp(setting: str, url: str) -> str | None:
    try:
        with Connection(url, connect_timeout=TIMEOUT_SECONDS) as conn:
            conn.connect()
    except AccessRefused as exc:
        return f"{setting}: RabbitMQ refused the user or password ({exc})"
    except NotAllowed as exc:
        return f"{setting}: RabbitMQ refused the virtual host {unquote(urlsplit(url).path[1:]) or '/'!r} ({exc})"
    except Exception:  # noqa: BLE001 - not answering: a broker that is down is waited for
        pass
    return None


def _postgres(setting: str) -> str | None:
    params = connection.get_connection_params()
    keys = ("dbname", "user", "password", "host", "port", "sslmode")
    kwargs = {key: params[key] for key in keys if params.get(key)}
    try:
        psycopg.connect(**kwargs, connect_timeout=max(2, int(TIMEOUT_SECONDS))).close()
    except psycopg.OperationalError as exc:
        text = str(exc)
        if "password authentication failed" in text or "no password supplied" in text:
            return f"{setting}: PostgreSQL refused the user or password ({text.strip()})"
        if "does not exist" in text:
            return f"{setting}: {text.strip()}"
    return None


def problems() -> list[str]:
    """What in DATABASE_URL, REDIS_URL and CELERY_BROKER_URL can never work, one line each."""
    found: list[str] = []
    database = settings.DATABASES["default"]
    checks: list[tuple[str, str, object]] = []
    if database["ENGINE"] == "django.db.backends.postgresql":
        host = database.get("HOST") or ""
        checks.append(("DATABASE_URL", f"postgres://{host}:{database.get('PORT') or 5432}/",
                       lambda: _postgres("DATABASE_URL")))
    if settings.REDIS_URL:
        checks.append(("REDIS_URL", settings.REDIS_URL, lambda: _redis("REDIS_URL", settings.REDIS_URL)))
    broker = settings.CELERY_BROKER_URL
    if broker != settings.REDIS_URL:
        if broker.startswith(("amqp://", "amqps://", "pyamqp://")):
            checks.append(("CELERY_BROKER_URL", broker, lambda: _amqp("CELERY_BROKER_URL", broker)))
        elif broker.startswith(("redis://", "rediss://")):
            checks.append(("CELERY_BROKER_URL", broker, lambda: _redis("CELERY_BROKER_URL", broker)))
    for setting, url, check in checks:
        problem = _unresolved(setting, url) or check()
        if problem:
            found.append(problem)
    return found


def exit_on_problems(process: str) -> None:
    """Print what is wrong and exit (EX_CONFIG), or return quietly."""
    found = problems()
    if not found:
        return
    lines = [f"{process} cannot start: a setting can never work"] + [f"  {line}" for line in found]
    for line in lines:
        log.critical(line)
    print("\n".join(lines), file=sys.stderr, flush=True)
    raise SystemExit(EX_CONFIG)
