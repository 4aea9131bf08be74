"""Start the production stack on free ports for a benchmark or a fault test, and measure its CPU.

`Stack` runs its own Redis, K Daphne processes, a Celery worker and the turn scheduler against
one PostgreSQL database, with the production settings (DEBUG off), and stops them all at the end.
`cpu_seconds(pids)` reads user+system time from /proc, so a run can charge each role its CPU.
The fault tests (tests/faults/) also kill and restart its processes one by one: `kill`, and the
`start_*` methods with a process name and environment of their own.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {timeout}s")


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU of these processes (and their reaped children) so far, in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[11:15] = utime stime cutime cstime (after the state field at index 0)
        total += sum(int(x) for x in fields[11:15])
    return total / TICKS


def children(pid: int) -> list[int]:
    """Every descendant of `pid` (Celery's prefork children, say)."""
    out: list[int] = []
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return out
    for kid in map(int, kids):
        out.append(kid)
        out.extend(children(kid))
    return out


def start_redis(port: int, workdir: Path) -> subprocess.Popen:
    redis = shutil.which("redis-server") or "/usr/bin/redis-server"
    process = subprocess.Popen(
        [redis, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", str(workdir), "--logfile", str(workdir / f"redis-{port}.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, process)
    return process


def nginx_conf(listen: str, upstreams: list[str], folder: Path) -> str:
    """nginx's configuration for a test or benchmark: `listen` in front of the Daphnes at
    `upstreams` ("host:port"), with the deployed proxy rules; its files in `folder`."""
    servers = "\n".join(f"        server {address};" for address in upstreams)
    return f"""
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
daemon off;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {folder}/nginx-body;
    proxy_temp_path {folder}/nginx-proxy;
    upstream burraco_daphne {{
        least_conn;
{servers}
    }}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    server {{
        listen {listen};
        include {ROOT / "deploy" / "nginx" / "burraco-proxy.conf"};
    }}
}}
"""


@dataclass
class Stack:
    """The production processes on free ports, for `database_url`."""

    database_url: str
    daphnes: int = 2
    workers: int = 1
    # Every worker runs the scheduler in a thread; a separate `run_scheduler` is optional.
    separate_scheduler: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)
    logdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="burraco-stack-")))
    redis_port: int = 0
    # The benchmark measures one solo worker; the fault tests run the Procfile's prefork pool
    # (a solo worker with prefetch 1 leaves a backlog of countdown tasks waiting up to 10 s each).
    worker_pool: str = "solo"
    worker_concurrency: int = 1
    daphne_ports: list[int] = field(default_factory=list)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        env.update({
            "DJANGO_SETTINGS_MODULE": "burraco_site.settings",
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "CELERY_BROKER_URL": self.extra_env.get("CELERY_BROKER_URL", self.redis_url),
            "CELERY_EMBEDDED_WORKER": "0",
            "DEBUG": "0",
            "SECRET_KEY": "bench-only-secret-key-" + "k" * 40,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0",
            "LOG_LEVEL": "WARNING",
            # Production refuses the Redis broker unless a supervisor restarts the worker: the
            # benchmark's worker lives as long as its run, and the fault tests supervise theirs.
            "CELERY_REDIS_BROKER_SUPERVISED": "1",
        })
        env.update(self.extra_env)
        return env

    def _spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.logdir / f"{name}.log", "w")  # noqa: SIM115 (lives as long as the process)
        process = subprocess.Popen(command, cwd=ROOT, env=self.env() | (env or {}), stdout=log,
                                   stderr=subprocess.STDOUT)
        self.processes[name] = process
        return process

    def start_redis(self) -> None:
        """Start Redis (again, after `kill("redis")`: on the same port, empty)."""
        self.redis_port = self.redis_port or free_port()
        self.processes["redis"] = start_redis(self.redis_port, self.logdir)

    def start_daphne(self, index: int, port: int | None = None, wait: bool = True) -> int:
        port = port or free_port()
        process = self._spawn(f"daphne-{index}", [
            sys.executable, "-m", "burraco_site.asgi_server", "--proxy-headers", "--websocket_connect_timeout", "20",
            "-b", "127.0.0.1", "-p", str(port), "burraco_site.asgi:application",
        ])
        if wait:
            wait_for_port(port, process)
        return port

    def start_worker(self, index: int = 0, env: dict[str, str] | None = None, wait: bool = True) -> subprocess.Popen:
        name = f"worker-{index}"
        process = self._spawn(name, [
            sys.executable, "-m", "celery", "-A", "burraco_site", "worker", f"--pool={self.worker_pool}",
            "-c", str(self.worker_concurrency),
            "-n", f"{name}-{os.getpid()}@%h", "--without-heartbeat", "--without-mingle", "--without-gossip",
            "--loglevel=INFO",
        ], env)
        if wait:
            self.wait_worker(name)
        return process

    def wait_worker(self, name: str, timeout: float = 60) -> None:
        """Until the worker's log says it is ready (it consumes its queue)."""
        process, log_path = self.processes[name], self.logdir / f"{name}.log"
        deadline = time.monotonic() + timeout
        while "ready." not in log_path.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start; see {log_path}")
            time.sleep(0.1)

    def start_scheduler(self, name: str = "scheduler", env: dict[str, str] | None = None) -> subprocess.Popen:
        return self._spawn(name, [sys.executable, "manage.py", "run_scheduler"], env)

    def start_nginx(self) -> int:
        """nginx in front of the Daphne processes, with the deployed proxy rules
        (deploy/nginx/burraco-proxy.conf); returns its port."""
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        port = free_port()
        conf = self.logdir / "nginx.conf"
        conf.write_text(nginx_conf(f"127.0.0.1:{port}", [f"127.0.0.1:{p}" for p in self.daphne_ports], self.logdir))
        process = self._spawn("nginx", [nginx, "-c", str(conf), "-p", str(self.logdir)])
        wait_for_port(port, process)
        return port

    def start(self) -> Stack:
        """Redis first, then every Daphne and worker at once (each imports Django for seconds:
        started side by side they are ready in the time of the slowest), then the scheduler."""
        self.start_redis()
        self.daphne_ports = [self.start_daphne(i, wait=False) for i in range(self.daphnes)]
        for i in range(self.workers):
            self.start_worker(i, wait=False)
        if self.separate_scheduler:
            self.start_scheduler()
        for i, port in enumerate(self.daphne_ports):
            wait_for_port(port, self.processes[f"daphne-{i}"], timeout=60)
        for i in range(self.workers):
            self.wait_worker(f"worker-{i}")
        return self

    def kill(self, name: str, sig: int = signal.SIGKILL, wait: float = 15) -> None:
        """A fault: the process `name` and its children (a prefork worker's) get `sig` (kill -9
        by default) and are gone."""
        process = self.processes.get(name)
        if process is not None and process.poll() is None:
            for pid in children(process.pid):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        self.stop(name, sig=sig, wait=wait)

    def pids(self, prefix: str) -> list[int]:
        found = []
        for name, process in self.processes.items():
            if name.startswith(prefix) and process.poll() is None:
                found.append(process.pid)
                found.extend(children(process.pid))
        return found

    @contextmanager
    def paused(self, *prefixes: str) -> Iterator[None]:
        """The processes named by `prefixes` (and their children) are stopped (SIGSTOP) inside the
        block and go on after it: the echo baseline is measured with the game's worker and its
        scheduler still, so that their work (the computer covering the tables just left) neither
        counts in nor competes with it."""
        pids = [pid for prefix in prefixes for pid in self.pids(prefix)]
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass

    def stop(self, name: str, sig: int = signal.SIGTERM, wait: float = 15) -> None:
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        """Stop every process: all are told at once, then each is waited for."""
        live = [p for p in self.processes.values() if p.poll() is None]
        for process in live:
            process.terminate()
        until = time.monotonic() + 10
        for process in live:
            try:
                process.wait(timeout=max(0.1, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
