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


PRODUCTION = {"DEBUG": "0", "SECRET_KEY": "k" * 60 + "-production-secret", "ALLOWED_HOSTS": "burraco.example.it"}


def test_debug_off_refuses_the_redis_broker_and_says_to_use_rabbitmq():
    """A Redis restart made the worker exit (kombu's restore_unacked): production takes RabbitMQ,
    or the Redis broker only when told that a supervisor restarts the worker."""
    refused = run_manage("check", **PRODUCTION, REDIS_URL="redis://cache.example:6379/0")
    assert refused.returncode != 0
    assert "CELERY_BROKER_URL is Redis" in refused.stderr and "Use RabbitMQ" in refused.stderr
    for env in ({"CELERY_BROKER_URL": "amqp://burraco:secret@mq.example:5672//"},
                {"CELERY_REDIS_BROKER_SUPERVISED": "1"}):
        ok = run_manage("check", **PRODUCTION, REDIS_URL="redis://cache.example:6379/0", **env)
        assert ok.returncode == 0, ok.stdout + ok.stderr


def run_process(args: list[str], **env: str) -> subprocess.CompletedProcess:
    dropped = {"DATABASE_URL", "REDIS_URL", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "CELERY_BROKER_URL"}
    full_env = {k: v for k, v in os.environ.items() if k not in dropped} | env
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=full_env, capture_output=True, text=True,
                          timeout=60)


def test_a_host_that_does_not_resolve_stops_daphne_and_the_scheduler_naming_the_setting():
    """Not retried for ever: each process says which setting is wrong and exits (EX_CONFIG)."""
    daphne = run_process(["-m", "burraco_site.asgi_server", "-b", "127.0.0.1", "-p", "8399",
                          "burraco_site.asgi:application"],
                         REDIS_URL="redis://no-such-host.invalid:6379/0",
                         CELERY_BROKER_URL="amqp://guest:guest@127.0.0.1:5672//")
    assert daphne.returncode == 78, daphne.stderr
    assert "REDIS_URL: the host name 'no-such-host.invalid' does not resolve" in daphne.stderr
    scheduler = run_process(["manage.py", "run_scheduler"], DATABASE_URL="postgres://u:p@no-db.invalid:5432/burraco")
    assert scheduler.returncode == 78, scheduler.stderr
    assert "DATABASE_URL: the host name 'no-db.invalid' does not resolve" in scheduler.stderr


def test_a_wrong_redis_or_rabbitmq_password_is_named(tmp_path):
    import shutil

    import pytest

    from burraco_site import preflight
    from games.benchmarks.stack import free_port, wait_for_port

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--requirepass", "right", "--save", "",
                              "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, redis)
        assert preflight._redis("REDIS_URL", f"redis://:right@127.0.0.1:{port}/0") is None
        assert "REDIS_URL: Redis refused the user or password" in preflight._redis(
            "REDIS_URL", f"redis://:wrong@127.0.0.1:{port}/0")
    finally:
        redis.terminate()
        redis.wait(10)
    assert preflight._redis("REDIS_URL", f"redis://127.0.0.1:{port}/0") is None  # down: waited for, not fatal
    amqp = os.environ.get("FAULTS_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")
    if preflight._amqp("CELERY_BROKER_URL", amqp) is not None:
        pytest.skip("no RabbitMQ with guest/guest here")
    wrong = amqp.replace("guest:guest@", "guest:wrong@")
    assert "CELERY_BROKER_URL: RabbitMQ refused the user or password" in preflight._amqp("CELERY_BROKER_URL", wrong)
