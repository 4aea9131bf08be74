"""Fixtures of the fault tests: one PostgreSQL server of their own for the session (migrated
once into a template database; each test gets a fresh copy), and a production stack per test.

These tests use no shared service but RabbitMQ (the broker tests): PostgreSQL and Redis are
started here, on free ports, and stopped at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator

import pytest

from games.benchmarks.stack import Stack

from .harness import Postgres, migrate, prerequisite

TEMPLATE = "faults_template"
RABBIT_URL = os.environ.get("FAULTS_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    prerequisite(shutil.which("redis-server") is not None, "redis-server was not found (apt-get install redis-server)")
    server = Postgres().init()
    try:
        server.start()
        server.execute(f"CREATE DATABASE {TEMPLATE}")
        migrate(server.url(TEMPLATE))
        yield server
    finally:
        server.close()


@pytest.fixture
def database(postgres: Postgres) -> str:
    """A fresh, migrated database on the session's server; its URL."""
    name = f"faults_{uuid.uuid4().hex[:10]}"
    postgres.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return postgres.url(name)


def pytest_terminal_summary(terminalreporter) -> None:
    """Each fault's figures at the end of the run, captured output or not."""
    from .harness import REPORTS, summary_line

    if REPORTS:
        terminalreporter.section("fault tests: recovery after each fault")
        for line in REPORTS:
            terminalreporter.write_line(summary_line(line))


def rabbit_ok(url: str) -> bool:
    try:
        from kombu import Connection

        with Connection(url, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
        return True
    except Exception:  # noqa: BLE001 - any failure: not usable
        return False


@pytest.fixture(scope="session")
def rabbitmq() -> str:
    """The AMQP broker URL (the shared RabbitMQ on this machine; started if it is not running)."""
    if not rabbit_ok(RABBIT_URL) and shutil.which("rabbitmq-server"):
        subprocess.run(["rabbitmq-server", "-detached"], capture_output=True, timeout=60)
        for _ in range(60):
            if rabbit_ok(RABBIT_URL):
                break
            subprocess.run(["sleep", "1"])
    prerequisite(rabbit_ok(RABBIT_URL), f"no RabbitMQ answering at {RABBIT_URL} (apt-get install rabbitmq-server)")
    return RABBIT_URL


def delete_queue(url: str, queue: str) -> None:
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=3) as conn:
            conn.default_channel.queue_delete(queue)
    except Exception:  # noqa: BLE001 - a queue left behind is harmless (auto-named per run)
        pass


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so a fixture can tell whether the test passed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def make_stack(database: str, request) -> Iterator[Callable[..., Stack]]:
    """Builds the stack under test on this test's database: `make_stack(broker=..., env={...})`.
    As the Procfile runs it by default: Daphnes and one worker whose thread is the only turn
    scheduler; `scheduler=True` adds a `manage.py run_scheduler` process. Every stack gets a
    queue name of its own (CELERY_QUEUE); all its processes stop at the end, and an AMQP queue
    is deleted."""
    made: list[tuple[Stack, str | None, str]] = []

    def build(*, broker: str | None = None, daphnes: int = 2, workers: int = 1, scheduler: bool = False,
              env: dict[str, str] | None = None) -> Stack:
        queue = f"faults-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        extra = {
            "CELERY_QUEUE": queue,
            "DB_POOL_MAX": "6",
            "DB_THREADS": "6",
            "PRESENCE_HEARTBEAT_SECONDS": "3",
            "BOT_MOVE_DELAY_SECONDS": "0.3",
            "SCHEDULER_INTERVAL_SECONDS": "0.5",
            "LOG_LEVEL": "WARNING",
        }
        if broker:
            extra["CELERY_BROKER_URL"] = broker
        extra.update(env or {})
        stack = Stack(database, daphnes=daphnes, workers=workers, separate_scheduler=scheduler, extra_env=extra,
                      worker_pool="prefork", worker_concurrency=2)  # as the Procfile runs it
        made.append((stack, broker, queue))
        stack.start()
        return stack

    yield build
    call = getattr(request.node, "report_call", None)
    for stack, broker, queue in made:
        stack.close()
        if broker and broker.startswith("amqp"):
            delete_queue(broker, queue)
        if call is not None and call.passed:
            shutil.rmtree(stack.logdir, ignore_errors=True)
        else:  # the processes' logs (Daphne, worker, scheduler, Redis) are kept for a failure
            print(f"fault test stack logs: {stack.logdir}")
