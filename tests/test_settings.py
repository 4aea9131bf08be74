"""Production settings pass Django's deployment checks; development defaults stay embedded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    dropped = {"DATABASE_URL", "REDIS_URL", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {k: v for k, v in os.environ.items() if k not in dropped}
    full_env.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_reports_nothing_with_debug_off():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING",
                        DEBUG="0", SECRET_KEY="k" * 60 + "-production-secret", ALLOWED_HOSTS="burraco.example.it")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_debug_off_without_secret_key_refuses_to_start():
    result = run_manage("check", DEBUG="0", SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_embedded_defaults_without_environment():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='burraco_site.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['OPTIONS']['transaction_mode'],"
        " s.CHANNEL_LAYERS['default']['BACKEND'], s.CELERY_BROKER_URL, s.CELERY_EMBEDDED_WORKER)"
    )
    full_env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full_env, capture_output=True, text=True,
                         timeout=60).stdout.split()
    assert out == ["django.db.backends.sqlite3", "IMMEDIATE", "burraco_site.layers.InMemoryChannelLayer", "memory://",
                   "True"]


def test_production_services_from_environment():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='burraco_site.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['CONN_MAX_AGE'],"
        " 'pool' in s.DATABASES['default']['OPTIONS'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.CELERY_BROKER_URL, s.CELERY_EMBEDDED_WORKER)"
    )
    full_env = dict(os.environ, DATABASE_URL="postgres://u@db.example:5432/burraco",
                    REDIS_URL="redis://cache.example:6379/0")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full_env, capture_output=True, text=True,
                         timeout=60).stdout.split()
    assert out == ["django.db.backends.postgresql", "0", "True", "channels_redis.pubsub.RedisPubSubChannelLayer",
                   "redis://cache.example:6379/0", "False"]


async def test_two_redis_databases_never_hear_each_others_groups():
    """Redis's Pub/Sub ignores the database number: before the channel layer named its groups
    after it, a parallel test run's worker on database 2 delivered its lobby's frames to the pages
    of the worker on database 1 (a table of the same id vanished from the other's lobby)."""
    import asyncio
    from urllib.parse import urlsplit, urlunsplit

    import pytest
    from channels_redis.pubsub import RedisPubSubChannelLayer

    from burraco_site.settings import redis_channel_layer

    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("the Redis channel layer needs REDIS_URL (CI sets it)")
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0)
    other = urlunsplit(parts._replace(path=f"/{15 if database != 15 else 14}"))
    mine, same, theirs = (RedisPubSubChannelLayer(**redis_channel_layer(u)["CONFIG"]) for u in (url, url, other))
    try:
        channel = await mine.new_channel()
        await mine.group_add("lobby", channel)
        await same.group_send("lobby", {"type": "probe", "n": 0})
        assert (await asyncio.wait_for(mine.receive(channel), 5))["n"] == 0  # subscribed, and heard
        await theirs.group_send("lobby", {"type": "probe", "n": 1})  # sent first, on the other database
        await same.group_send("lobby", {"type": "probe", "n": 2})
        assert (await asyncio.wait_for(mine.receive(channel), 5))["n"] == 2
    finally:
        for layer in (mine, same, theirs):
            await layer.flush()
