"""Fixtures shared by the whole suite: a real server process and a real browser."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "test-output"

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_sessionstart(session):
    """The Redis database named by REDIS_URL belongs to the test run (CI gives it one of its own):
    empty it first. Each run's test database numbers its tables from 1 again, so what an earlier
    run left under the same table ids (presence sets, away marks kept 24 hours, queued computer
    moves) would be taken for this run's: a seat marked away minutes ago is covered by the
    computer as soon as its game starts."""
    url = os.environ.get("REDIS_URL")
    if url:
        import redis

        redis.Redis.from_url(url).flushdb()


@pytest.fixture(autouse=True)
def _site_language():
    """Every test starts in the site's default language, whatever an earlier test activated."""
    from django.utils import translation

    with translation.override("it"):
        yield


@pytest.fixture(autouse=True)
def _loop_connections_closed():
    """The play path's event-loop connections (burraco_site/dbasync.py) belong to the test's own
    loop: closed after each test, so none outlives it and holds the test database open."""
    yield
    from burraco_site import dbasync

    dbasync.close_all()


@pytest.fixture(autouse=True)
def _fresh_signup_cap():
    """Sign-ups from the test client and the browser all come from 127.0.0.1: each test starts
    with that address's hourly sign-up count at zero (with Redis it would outlive the run)."""
    from django.core.cache import cache

    from accounts.services import SIGNUP_COUNT_KEY, SIGNUP_UNTIL_KEY

    cache.delete_many([key.format(address="127.0.0.1") for key in (SIGNUP_COUNT_KEY, SIGNUP_UNTIL_KEY)])
    yield


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright's sync API keeps an event loop in the main thread for the
    rest of the session, which async (Channels) tests must not run inside."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on {port} after {timeout}s")


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a child process that must use the test database the suite set up."""
    from django.db import connection

    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # only the test process itself needs it
    env["DJANGO_SETTINGS_MODULE"] = "burraco_site.settings"
    env["DEBUG"] = "1"
    settings_dict = connection.settings_dict
    if settings_dict["ENGINE"].endswith("sqlite3"):
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(settings_dict["NAME"])
    else:
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + settings_dict["NAME"]))
    env.update(extra or {})
    return env


def start_daphne(port: int, env: dict[str, str]) -> subprocess.Popen:
    daphne = [sys.executable, "-m", "burraco_site.asgi_server", "-b", "127.0.0.1", "-p", str(port),
              "burraco_site.asgi:application"]
    OUTPUT.mkdir(exist_ok=True)
    log = open(OUTPUT / f"daphne-{port}.log", "w")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(daphne, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    wait_for_port(port, process)
    return process


@contextmanager
def celery_worker_process(env: dict[str, str], *, name: str, queue: str | None = None, beat: bool = False):
    """A real `celery worker` process (solo pool) with `env`, started and ready; stopped after."""
    OUTPUT.mkdir(exist_ok=True)
    log_path = OUTPUT / f"celery-{name}.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed below)
    command = [sys.executable, "-m", "celery", "-A", "burraco_site", "worker", "--pool=solo", "-c", "1",
               "-n", f"{name}@%h", "--without-heartbeat", "--without-mingle", "--without-gossip",
               "--loglevel=INFO"]
    if queue:
        # The run's own queue and its analysis queue (settings.CELERY_ANALYSIS_QUEUE's default).
        command += ["-Q", f"{queue},{queue}.analysis"]
    if beat:
        command.append("-B")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log_path.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start; see {log_path}")
            time.sleep(0.2)
        yield process
    finally:
        stop(process)
        log.close()


def stop(process: subprocess.Popen, timeout: float = 15) -> None:
    """Ask a process of the tests to stop (SIGTERM), and kill it if it has not after `timeout`."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()


def serve(django_db_blocker):
    """Run a Daphne process on the suite's test database for as long as the generator lives."""
    with django_db_blocker.unblock():
        env = server_env()
    port = free_port()
    process = start_daphne(port, env)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def live_site(django_db_setup, django_db_blocker):
    """A Daphne process serving the site on a free port, on the suite's test database."""
    yield from serve(django_db_blocker)


@pytest.fixture(scope="session")
def second_live_site(live_site, django_db_blocker):
    """Another Daphne process on the same database and channel layer: with Redis, a player on
    each process must see the same game (nothing authoritative lives in a process)."""
    if not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.skip("two server processes share a game only through PostgreSQL and Redis (set both URLs)")
    yield from serve(django_db_blocker)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: .ci/run must install Debian's chromium package")
        pytest.skip("no Chromium on this machine (apt-get install chromium chromium-driver)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
        )
        yield browser
        browser.close()


@pytest.fixture
def screenshot_dir() -> Path:
    path = OUTPUT / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path
