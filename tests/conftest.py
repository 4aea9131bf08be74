"""Fixtures shared by the whole suite: a real server process and a real browser."""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
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


MAX_WORKERS = 4


def pytest_xdist_setupnodes(config, specs):
    """bin/test runs the suite in parallel (pytest-xdist, one process per core, at most
    MAX_WORKERS). With REDIS_URL each worker takes a Redis database of its own, the URL's number
    plus the worker's index, before its settings are read: what one worker's servers keep there
    (presence, away marks, the broker's queue, the cache) must not reach another's tables, whose
    ids come from a database of their own and so repeat. The worker's own servers inherit it."""
    url = os.environ.get("REDIS_URL")
    if not url:
        return
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    if base + len(specs) > 16:
        raise pytest.UsageError(
            f"REDIS_URL names database {base}; {len(specs)} workers need databases {base} to "
            f"{base + len(specs) - 1}, and Redis has 16 (0-15): name a lower one or pass fewer -n")
    for index, spec in enumerate(specs):
        spec.env["REDIS_URL"] = urlunsplit(parts._replace(path=f"/{base + index}"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A test marked `alone` asserts a figure of the wall clock (200 people matched in 8 s, a
    worker's move within 5 s): in a parallel run on a small machine the other workers' tests
    would be measured with it. So every test of a parallel run holds a shared lock on a file of
    the run while it runs (setup to teardown), and an `alone` test holds it exclusively: the
    others wait between two of their tests. A second lock, taken on the way in, lets the
    exclusive one through before new shared ones (else two busy workers could starve it)."""
    uid = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not uid:
        return (yield)
    alone = item.get_closest_marker("alone") is not None
    folder = Path(tempfile.gettempdir()) / f"burraco-tests-{uid}"
    folder.mkdir(exist_ok=True)
    with open(folder / "turnstile", "a") as turnstile, open(folder / "running", "a") as running:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(running, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            return (yield)
        finally:
            fcntl.flock(running, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)


def worker_name() -> str:
    """This test process's name among the parallel workers ("gw0", ...), or "main"."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


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
def _shared_state_fresh():
    """Every test starts from the state a fresh process would have: what one test leaves in this
    process's memory must not count in the next. In the default mode (SQLite rolled back, so table
    ids come again) an earlier test's socket would still be online at a later test's table 1.
    This is the one place that resets such state; a new module-level store belongs here.

    - the in-memory stand-ins of Redis: presence (tables' sockets, away marks, people online),
      the local-memory cache (clock offset, sign-up counts, ...) and the in-memory channel layer;
    - with Redis, only the keys a test may leave that the next would read: the clock's offset and
      the sign-ups counted from 127.0.0.1 (the run's Redis database is emptied at the start and
      PostgreSQL's ids are not reused; flushing it here would pull it from under the server
      processes and workers that session- and module-scoped fixtures keep running);
    - this process's kept positions of the play path, the matcher's running passes and the
      sockets' pending grace tasks (whose event loop closed with the test that made them);
    - the site's default language, whatever an earlier test activated;
    - after the test, the play path's event-loop connections (burraco_site/dbasync.py): they
      belong to the test's own loop, and one that outlived it would hold the test database open.

    Not reset, as they hold nothing a test can see: connection pools and clients keyed by their
    settings (burraco_site/cache.py, presence's Redis client), the frame delivery loop's thread
    (live/transport.py, started again on demand), and the engine's caches of pure functions."""
    from django.utils import translation

    from burraco_site import dbasync

    _reset_shared_state()
    with translation.override("it"):
        yield
    dbasync.close_all()


@pytest.fixture(autouse=True)
def _servers_quiet_before_flush(request):
    """After a transactional test on PostgreSQL, wait until the test database's other sessions
    (the test's server processes and workers) are idle before pytest-django empties it with one
    TRUNCATE of every table. A server still answering a socket that closed with the test (a
    leaving player's presence, the game read again) holds a table the TRUNCATE must lock while
    wanting one it already locked: PostgreSQL then ends one of them as a deadlock, and CI saw
    the flush lose (test_two_servers). Set up after pytest-django's database fixture, so its
    teardown runs first."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not (marker.kwargs.get("transaction") or "transactional_db" in request.fixturenames):
        return
    from django.db import connection

    if connection.vendor == "postgresql":
        wait_for_other_sessions_idle(connection)


def wait_for_other_sessions_idle(connection, *, calm_polls: int = 3, max_polls: int = 200) -> None:
    """Return once no other session on this database has been busy (running a statement or
    inside a transaction) at `calm_polls` polls in a row, 50 ms apart, or after `max_polls`
    whatever they do. Counted in polls, not read from a clock: a test may have patched
    time.monotonic, and pytest-django's own monkeypatch can outlive this fixture."""
    busy_sql = ("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction',"
                " 'idle in transaction (aborted)')")
    idle_in_a_row = 0
    for _ in range(max_polls):
        with connection.cursor() as cursor:
            cursor.execute(busy_sql)
            busy = cursor.fetchone()[0]
        idle_in_a_row = 0 if busy else idle_in_a_row + 1
        if idle_in_a_row >= calm_polls:
            return
        time.sleep(0.05)


def _reset_shared_state() -> None:
    from channels.layers import InMemoryChannelLayer, channel_layers
    from django.conf import settings
    from django.core.cache import cache

    from accounts.services import SIGNUP_COUNT_KEY, SIGNUP_UNTIL_KEY
    from games.consumers import table as table_consumer
    from games.live import clock, presence
    from games.services.lobby import matchmaking
    from games.services.play import play

    with presence._memory.lock:
        presence._memory.members.clear()
        presence._memory.away.clear()
        presence._online_memory.clear()
    if settings.CACHES["default"]["BACKEND"].endswith("LocMemCache"):
        cache.clear()
    else:
        clock.reset()
        cache.delete_many([key.format(address="127.0.0.1") for key in (SIGNUP_COUNT_KEY, SIGNUP_UNTIL_KEY)])
    for layer in channel_layers.backends.values():
        if isinstance(layer, InMemoryChannelLayer):
            layer.channels.clear()
            layer.groups.clear()
    play._written.clear()
    with matchmaking._passes_lock:
        matchmaking._passes.clear()
    matchmaking._last_purge = 0.0
    table_consumer._leaving.clear()


SLOW_TIMEOUT_SECONDS = 1800


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright's sync API keeps an event loop in the main thread for the
    rest of the session, which async (Channels) tests must not run inside. The slow runs (-m slow)
    are long by design: they get SLOW_TIMEOUT_SECONDS instead of the suite's 300 s each."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_SECONDS))


def free_port() -> int:
    """A port free now: the kernel's choice, or one of TEST_PORT_RANGE ("8100-8199") when set, for
    a machine where several runs share the ports and each is given its own range."""
    low, _dash, high = os.environ.get("TEST_PORT_RANGE", "").partition("-")
    candidates = random.sample(range(int(low), int(high) + 1), int(high) - int(low) + 1) if high else [0]
    for candidate in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError(f"no free port in TEST_PORT_RANGE {low}-{high}")


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
    # Without Redis, the site plus the route the test process relays its frames to (tests/relay.py).
    app = "burraco_site.asgi:application" if env.get("REDIS_URL") else "tests.live_asgi:application"
    daphne = [sys.executable, "-m", "burraco_site.asgi_server", "-b", "127.0.0.1", "-p", str(port), app]
    OUTPUT.mkdir(exist_ok=True)
    log = open(OUTPUT / f"daphne-{port}.log", "w")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen(daphne, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    wait_for_port(port, process)
    return process


@contextmanager
def celery_worker_process(env: dict[str, str], *, name: str, queue: str | None = None, beat: bool = False):
    """A real `celery worker` process (solo pool) with `env`, started and ready; stopped after."""
    OUTPUT.mkdir(exist_ok=True)
    name = f"{name}-{worker_name()}"  # parallel workers each run theirs
    log_path = OUTPUT / f"celery-{name}.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed below)
    command = [sys.executable, "-m", "celery", "-A", "burraco_site", "worker", "--pool=solo", "-c", "1",
               "-n", f"{name}@%h", "--without-heartbeat", "--without-mingle", "--without-gossip",
               "--loglevel=INFO"]
    if queue:
        # The run's own queue and its analysis queues (the settings' defaults for CELERY_QUEUE=queue).
        command += ["-Q", f"{queue},{queue}.analysis.asked,{queue}.analysis"]
    if beat:
        command.append("-B")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    process.log_path = log_path
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
