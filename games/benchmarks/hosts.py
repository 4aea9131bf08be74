"""Several hosts on one machine: Linux network namespaces on one bridge, for tests, benchmarks
and the operations doc (`bin/hosts up|down|status|exec|fault`; root only).

    data     10.77.0.10   PostgreSQL, Redis, RabbitMQ
    app1     10.77.0.11   two Daphnes (:8001, :8002), a Celery worker (the scheduler in its thread)
    app2     10.77.0.12   the same
    edge     10.77.0.20   nginx on :80 (deploy/nginx/burraco-proxy.conf) over the four Daphnes
    clients  10.77.0.30   the load generator and the test players

Each host is a namespace with one veth pair whose other end is on the bridge in the machine's own
namespace (10.77.0.1), so a fault is a change to one host's link: `cut` drops every packet between
two hosts (an nftables rule in the first one: the TCP connections hang as on a cut cable, they are
not refused), `delay` adds latency to an app host's link to the data host (a relay of ours,
games/benchmarks/wan.py: this machine's kernel has no netem) and loss (an nftables rule dropping
that share of its packets), `link` pulls a host's cable out, `heal` takes every fault of a host
away. `cpu` gives a host's processes a fixed CPU quota (the cgroup's cpu.cfs_quota_us) so that
one and two app hosts compare like with like.

The state (processes, folders) lives in STATE_DIR; `down` stops every process and removes the
namespaces and the bridge, whatever `up` got to.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from games.benchmarks.stack import ROOT, children, nginx_conf

SUBNET = "10.77.0"
BRIDGE = "burraco-br"
GATEWAY = f"{SUBNET}.1"
STATE_DIR = Path(os.environ.get("BURRACO_HOSTS_DIR", "/tmp/burraco-hosts"))
# One bed per machine: whoever uses it (a hosts test module, a benchmark) holds this lock.
BED_LOCK = Path(tempfile.gettempdir()) / "burraco-hosts-bed.lock"
DAPHNE_PORTS = (8001, 8002)
SECRET_KEY = "hosts-test-bed-only-" + "k" * 40
CGROUP_CPU = Path("/sys/fs/cgroup/cpu")


class HostsError(Exception):
    """The test bed could not do what it was asked (not root, a tool missing, a host not up)."""


@dataclass(frozen=True)
class Host:
    name: str
    number: int

    @property
    def address(self) -> str:
        return f"{SUBNET}.{self.number}"

    @property
    def namespace(self) -> str:
        return f"burraco-{self.name}"

    @property
    def link(self) -> str:
        """The veth end on the bridge, in the machine's namespace (15 characters at most)."""
        return f"bh-{self.name}"

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` run inside this host."""
        return ["ip", "netns", "exec", self.namespace, *argv]


HOSTS = {h.name: h for h in (Host("data", 10), Host("app1", 11), Host("app2", 12), Host("edge", 20),
                              Host("clients", 30))}
APP_HOSTS = ("app1", "app2")


def host(name: str) -> Host:
    try:
        return HOSTS[name]
    except KeyError:
        raise HostsError(f"no host {name!r}: the hosts are {', '.join(HOSTS)}") from None


def run(argv: list[str], check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise HostsError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return done


def require_root() -> None:
    if os.geteuid() != 0:
        raise HostsError("the test bed makes network namespaces: run it as root")
    for tool in ("ip", "tc", "nft"):
        if shutil.which(tool) is None:
            raise HostsError(f"{tool} is missing (Debian: apt-get install iproute2 nftables)")


# ----------------------------------------------------------------------------- the network


def network_up() -> None:
    require_root()
    if run(["ip", "link", "show", BRIDGE], check=False).returncode != 0:
        run(["ip", "link", "add", BRIDGE, "type", "bridge"])
        run(["ip", "addr", "add", f"{GATEWAY}/24", "dev", BRIDGE])
    run(["ip", "link", "set", BRIDGE, "up"])
    for h in HOSTS.values():
        if run(["ip", "netns", "pids", h.namespace], check=False).returncode == 0:
            continue  # already up
        run(["ip", "netns", "add", h.namespace])
        run(["ip", "link", "add", h.link, "type", "veth", "peer", "name", "eth0", "netns", h.namespace])
        run(["ip", "link", "set", h.link, "master", BRIDGE, "up"])
        run(h.wrap(["ip", "link", "set", "lo", "up"]))
        run(h.wrap(["ip", "addr", "add", f"{h.address}/24", "dev", "eth0"]))
        run(h.wrap(["ip", "link", "set", "eth0", "up"]))
        run(h.wrap(["ip", "route", "add", "default", "via", GATEWAY]))


def network_down() -> None:
    for h in HOSTS.values():
        # What daemonized out of our process groups (RabbitMQ's epmd) lives on in the namespace.
        pids = run(["ip", "netns", "pids", h.namespace], check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        run(["ip", "netns", "del", h.namespace], check=False)  # takes its veth pair with it
        run(["ip", "link", "del", h.link], check=False)
    run(["ip", "link", "del", BRIDGE], check=False)


def network_is_up() -> bool:
    return all(run(["ip", "netns", "pids", h.namespace], check=False).returncode == 0 for h in HOSTS.values())


# ----------------------------------------------------------------------------- faults


def cut(source: str, target: str) -> None:
    """Every packet between two hosts dropped, both ways (the source's firewall; nothing is
    refused, so connections hang as on a cut cable)."""
    a, b = host(source), host(target)
    run(a.wrap(["nft", "add", "table", "inet", "fault"]))
    for hook in ("input", "output"):
        run(a.wrap(["nft", "add", "chain", "inet", "fault", hook,
                    f"{{ type filter hook {hook} priority 0 ; policy accept ; }}"]))
    run(a.wrap(["nft", "add", "rule", "inet", "fault", "output", "ip", "daddr", b.address, "drop"]))
    run(a.wrap(["nft", "add", "rule", "inet", "fault", "input", "ip", "saddr", b.address, "drop"]))


DATA_PORTS = (5432, 6379, 5672)


def relay_port(app: str, port: int) -> int:
    """Where the data host relays `port` for app host `app` (25432, 26379, 25672 for app1...)."""
    return port + 20000 + 10000 * APP_HOSTS.index(app)


def start_wan(app: str) -> None:
    """The app host's link to the data host: a relay on the data host for each of its ports,
    and the app host's firewall sending its connections there."""
    data = host("data").address
    control = STATE_DIR / f"wan-{app}.json"
    control.write_text(json.dumps({"ms": 0}))
    routes = [f"--listen={data}:{relay_port(app, p)}={data}:{p}" for p in DATA_PORTS]
    spawn(f"wan-{app}", "data", [sys.executable, "-m", "games.benchmarks.wan", *routes, f"--control={control}"])
    for p in DATA_PORTS:
        wait_port("data", relay_port(app, p))
    a = host(app)
    run(a.wrap(["nft", "add", "table", "ip", "wan"]))
    run(a.wrap(["nft", "add", "chain", "ip", "wan", "out", "{ type nat hook output priority -100 ; }"]))
    for p in DATA_PORTS:
        run(a.wrap(["nft", "add", "rule", "ip", "wan", "out", "ip", "daddr", data, "tcp", "dport", str(p),
                    "dnat", "to", f"{data}:{relay_port(app, p)}"]))


def delay(app: str, ms: float, loss_percent: float = 0.0) -> None:
    """`ms` more each way between the app host and the data host (the round trip: twice that),
    and `loss_percent` of the app host's packets to the data host dropped (TCP resends them)."""
    if app not in APP_HOSTS:
        raise HostsError(f"delay is between an app host ({', '.join(APP_HOSTS)}) and the data host, not {app!r}")
    (STATE_DIR / f"wan-{app}.json").write_text(json.dumps({"ms": ms}))
    a = host(app)
    run(a.wrap(["nft", "delete", "table", "inet", "loss"]), check=False)
    if loss_percent > 0:
        run(a.wrap(["nft", "add", "table", "inet", "loss"]))
        run(a.wrap(["nft", "add", "chain", "inet", "loss", "out", "{ type filter hook output priority 0 ; }"]))
        run(a.wrap(["nft", "add", "rule", "inet", "loss", "out", "ip", "daddr", host("data").address,
                    "numgen", "random", "mod", "100", "<", str(int(loss_percent)), "drop"]))


def link(name: str, up: bool) -> None:
    """The host's cable pulled out (or put back)."""
    # The host's own end (its peer on the bridge loses its carrier): reachable through the
    # namespace's name from any thread, a test's players' included.
    h = host(name)
    run(h.wrap(["ip", "link", "set", "eth0", "up" if up else "down"]))
    if up:
        run(h.wrap(["ip", "route", "replace", "default", "via", GATEWAY]))  # the link going down took it


def heal(name: str) -> None:
    """Every fault of the host taken away: its cuts, its added delay and loss, its link."""
    h = host(name)
    run(h.wrap(["nft", "delete", "table", "inet", "fault"]), check=False)
    if name in APP_HOSTS:
        delay(name, 0)
    link(name, True)


def cpu_quota(name: str, cores: float, shares: int = 1024, pids: list[int] | None = None) -> None:
    """The host's processes (those started by `up`, or `pids`) limited to `cores` of CPU together
    (0: no limit). `shares` above the default 1024 lets the host have its quota on a machine
    that other work keeps busy (the benchmark's comparison is of the quotas, not of the
    neighbours)."""
    group = CGROUP_CPU / f"burraco-{name}"
    group.mkdir(exist_ok=True)
    period = 100_000
    (group / "cpu.cfs_period_us").write_text(str(period))
    (group / "cpu.cfs_quota_us").write_text(str(int(cores * period)) if cores > 0 else "-1")
    (group / "cpu.shares").write_text(str(shares))
    for pid in _pids_of(name) if pids is None else pids:
        try:
            (group / "cgroup.procs").write_text(str(pid))
        except OSError:
            pass  # gone meanwhile


# ----------------------------------------------------------------------------- processes


def _state() -> dict:
    path = STATE_DIR / "state.json"
    return json.loads(path.read_text()) if path.exists() else {"processes": {}}


def _save(state: dict) -> None:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    (STATE_DIR / "state.json").write_text(json.dumps(state, indent=2))


def _pids_of(name: str) -> list[int]:
    """The processes `up` started on host `name` and their children; not the WAN relays, which
    stand for the network between the hosts rather than for a service of the data host."""
    pids = [p["pid"] for key, p in _state()["processes"].items() if p["host"] == name and not key.startswith("wan-")]
    found = []
    for pid in pids:
        found.append(pid)
        found += children(pid)
    return found


def spawn(name: str, on: str, argv: list[str], env: dict[str, str] | None = None, user: str | None = None,
          cwd: Path = ROOT) -> int:
    """Start `argv` on host `on` in the background (its own session, its log in STATE_DIR)."""
    h = host(on)
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    command = h.wrap((["runuser", "-u", user, "--"] if user else []) + argv)
    with open(STATE_DIR / f"{name}.log", "w") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env or dict(os.environ), stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    state = _state()
    state["processes"][name] = {"pid": process.pid, "host": on, "argv": argv}
    _save(state)
    return process.pid


def stop(name: str, sig: int = signal.SIGTERM, wait: float = 15) -> None:
    """Stop one process started by `spawn` (and its children): the process group gets `sig`."""
    state = _state()
    entry = state["processes"].pop(name, None)
    _save(state)
    if entry is None:
        return
    try:
        os.killpg(entry["pid"], sig)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.waitpid(entry["pid"], os.WNOHANG)  # reap it if this process started it (a zombie stays in its group)
        except ChildProcessError:
            pass
        try:
            os.killpg(entry["pid"], 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    try:
        os.killpg(entry["pid"], signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_port(on: str, port: int, timeout: float = 60) -> None:
    """Until something on host `on` listens on `port` (asked from that host)."""
    h = host(on)
    target = h.address
    probe = f"import socket; socket.create_connection(({target!r}, {port}), timeout=1).close()"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if run(h.wrap([sys.executable, "-c", probe]), check=False).returncode == 0:
            return
        time.sleep(0.3)
    raise HostsError(f"nothing listens on {target}:{port} after {timeout:.0f} s (logs in {STATE_DIR})")


# ----------------------------------------------------------------------------- services


def data_urls() -> dict[str, str]:
    data = host("data").address
    return {
        "DATABASE_URL": f"postgres://postgres@{data}:5432/burraco",
        "REDIS_URL": f"redis://{data}:6379/0",
        "CELERY_BROKER_URL": f"amqp://burraco:burraco@{data}:5672//",
    }


def app_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(data_urls())
    env.update({
        "DJANGO_SETTINGS_MODULE": "burraco_site.settings",
        "CELERY_EMBEDDED_WORKER": "0",
        "DEBUG": "0",
        "SECRET_KEY": SECRET_KEY,
        "ALLOWED_HOSTS": ",".join([host("edge").address, "localhost", "127.0.0.1"]),
        "CSRF_TRUSTED_ORIGINS": f"http://{host('edge').address}",
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "SECURE_HSTS_SECONDS": "0",
        "LOG_LEVEL": "WARNING",
    })
    return env


def pg_bindir() -> Path:
    """Where initdb and postgres are (Debian keeps them out of PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True):
        return candidate.parent
    raise HostsError("PostgreSQL's initdb was not found (Debian: apt-get install postgresql)")


def start_postgres() -> None:
    bindir = pg_bindir()
    root = STATE_DIR / "postgres"
    data = root / "data"
    if not data.exists():
        root.mkdir(parents=True, exist_ok=True)
        shutil.chown(root, "postgres", "postgres")
        run(["runuser", "-u", "postgres", "--", str(bindir / "initdb"), "-D", str(data), "-U", "postgres",
             "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"])
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {SUBNET}.0/24 trust\n")
    options = (f"-h {host('data').address} -p 5432 -k {root} -c max_connections=300 "
               "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
    spawn("postgres", "data", [str(bindir / "postgres"), "-D", str(data), *options.split()], user="postgres")
    wait_port("data", 5432)
    created = run(host("data").wrap(["runuser", "-u", "postgres", "--", str(bindir / "psql"), "-h", str(root),
                                     "-tAc", "SELECT 1 FROM pg_database WHERE datname = 'burraco'"]))
    if created.stdout.strip() != "1":
        run(host("data").wrap(["runuser", "-u", "postgres", "--", str(bindir / "createdb"), "-h", str(root),
                               "burraco"]))


def start_redis() -> None:
    spawn("redis", "data", [shutil.which("redis-server") or "/usr/bin/redis-server", "--bind", host("data").address,
                            "--port", "6379", "--save", "", "--appendonly", "no", "--protected-mode", "no",
                            "--dir", str(STATE_DIR)])
    wait_port("data", 6379)


def start_rabbitmq() -> None:
    """RabbitMQ of the data host: a node of its own (its own epmd, in the namespace), a user
    `burraco` (guest may only log in over loopback); its distribution port out of the relays' way."""
    base = STATE_DIR / "rabbitmq"
    base.mkdir(parents=True, exist_ok=True)
    conf = base / "rabbitmq.conf"
    conf.write_text("loopback_users = none\ndefault_user = burraco\ndefault_pass = burraco\n")
    env = dict(os.environ, RABBITMQ_NODENAME="burraco@localhost", RABBITMQ_NODE_IP_ADDRESS=host("data").address,
               RABBITMQ_NODE_PORT="5672", RABBITMQ_DIST_PORT="45672", RABBITMQ_MNESIA_BASE=str(base / "mnesia"),
               RABBITMQ_LOG_BASE=str(base / "log"), RABBITMQ_CONFIG_FILE=str(conf.with_suffix("")),
               RABBITMQ_ENABLED_PLUGINS_FILE=str(base / "enabled_plugins"), HOME=str(base))
    (base / "enabled_plugins").write_text("[].\n")
    run(["chown", "-R", "rabbitmq:rabbitmq", str(base)])
    server = "/usr/lib/rabbitmq/bin/rabbitmq-server"  # Debian's /usr/sbin one insists on its own folders
    spawn("rabbitmq", "data", [server if Path(server).exists() else "rabbitmq-server"], env=env, user="rabbitmq",
          cwd=base)  # where a crash dump would land
    wait_port("data", 5672, timeout=90)


def release() -> None:
    """The Procfile's release step, once, from app1: migrate, translations, static files."""
    for command in (["migrate", "--noinput"], ["compile_translations"], ["collectstatic", "--noinput"]):
        done = subprocess.run(host("app1").wrap([sys.executable, "manage.py", *command]), cwd=ROOT,
                              env=app_env(), capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise HostsError(f"manage.py {command[0]} failed: {done.stderr.strip()[-2000:]}")


def start_app(name: str) -> None:
    env = app_env()
    for port in DAPHNE_PORTS:
        spawn(f"{name}-daphne-{port}", name, [
            sys.executable, "-m", "burraco_site.asgi_server", "--proxy-headers", "--websocket_connect_timeout", "20",
            "-b", "0.0.0.0", "-p", str(port), "burraco_site.asgi:application"], env=env)
    spawn(f"{name}-worker", name, [
        sys.executable, "-m", "celery", "-A", "burraco_site", "worker", "--pool=prefork", "-c", "2",
        "-n", f"worker@{name}", "--without-mingle", "--without-gossip", "--loglevel=INFO"], env=env)


def start_edge(apps: tuple[str, ...] = APP_HOSTS) -> None:
    """nginx on the edge over the Daphnes of `apps` (restarted if it runs: the load benchmark
    sends its players to one app host, then to two)."""
    stop("nginx")
    upstreams = [f"{host(a).address}:{p}" for a in apps for p in DAPHNE_PORTS]
    folder = STATE_DIR / "nginx"
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(nginx_conf(f"{host('edge').address}:80", upstreams, folder))
    spawn("nginx", "edge", [shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(conf), "-p", str(folder)])
    wait_port("edge", 80)


def up() -> dict[str, str]:
    """The network, the data host's services, both app hosts and the edge; returns the addresses."""
    require_root()
    network_up()
    running = _state()["processes"]
    if "postgres" not in running:
        start_postgres()
    if "redis" not in running:
        start_redis()
    if "rabbitmq" not in running and shutil.which("rabbitmq-server"):
        start_rabbitmq()
    release()
    for name in APP_HOSTS:
        if f"wan-{name}" not in running:
            start_wan(name)
    for name in APP_HOSTS:
        if f"{name}-worker" not in running:
            start_app(name)
    for name in APP_HOSTS:
        for port in DAPHNE_PORTS:
            wait_port(name, port)
    if "nginx" not in running:
        start_edge()
    return {"site": f"http://{host('edge').address}/", **data_urls()}


def down() -> None:
    for name in list(_state()["processes"]):
        stop(name, wait=10)
    for name in [*HOSTS, "wan"]:
        group = CGROUP_CPU / f"burraco-{name}"
        if group.exists():
            try:
                group.rmdir()
            except OSError:
                pass
    network_down()
    shutil.rmtree(STATE_DIR, ignore_errors=True)


def status() -> dict:
    state = _state()
    alive = {}
    for name, entry in state["processes"].items():
        try:
            os.kill(entry["pid"], 0)
            alive[name] = f"{entry['host']} pid {entry['pid']}"
        except ProcessLookupError:
            alive[name] = f"{entry['host']} exited (log: {STATE_DIR / (name + '.log')})"
    return {"network": "up" if network_is_up() else "down", "processes": alive}


def in_host(name: str, function, *args):
    """`function(*args)` run in a thread that lives in host `name`'s network (os.setns applies
    to one thread; the threads it starts inherit it): a test's players on the clients host."""
    outcome: dict = {}

    def target() -> None:
        try:
            with open(f"/var/run/netns/{host(name).namespace}") as netns:
                os.setns(netns.fileno(), os.CLONE_NEWNET)
            outcome["value"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - handed back to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name=f"on-{name}")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def main(argv: list[str]) -> int:
    usage = ("usage: bin/hosts up | down | status | exec HOST COMMAND... | cut A B | delay APP MS [LOSS%] |"
             " link HOST up|down | heal HOST | cpu HOST CORES")
    if not argv:
        print(usage, file=sys.stderr)
        return 2
    verb, args = argv[0], argv[1:]
    try:
        if verb == "up":
            print(json.dumps(up(), indent=2))
        elif verb == "down":
            down()
        elif verb == "status":
            print(json.dumps(status(), indent=2))
        elif verb == "exec" and len(args) >= 2:
            return subprocess.call(host(args[0]).wrap(args[1:]), env=app_env(), cwd=ROOT)
        elif verb == "cut" and len(args) == 2:
            cut(*args)
        elif verb == "delay" and len(args) in (2, 3):
            delay(args[0], float(args[1]), float(args[2]) if len(args) == 3 else 0.0)
        elif verb == "link" and len(args) == 2 and args[1] in ("up", "down"):
            link(args[0], args[1] == "up")
        elif verb == "heal" and len(args) == 1:
            heal(args[0])
        elif verb == "cpu" and len(args) == 2:
            cpu_quota(args[0], float(args[1]))
        else:
            print(usage, file=sys.stderr)
            return 2
    except HostsError as error:
        print(f"bin/hosts: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
