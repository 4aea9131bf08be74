"""What one PostgreSQL and one Redis carry of a table's action (docs/operations.md, capacity plan).

Two measurements, each beside a baseline taken in the same run on the same server, so a machine
shared with other work still gives a ratio:

- PostgreSQL: the play path's own statements (`games/services/play/play.py`: `_READ_SQL`,
  `_WRITE_FRESH_SQL`, `_WRITE_AGAIN_SQL`), turned into pgbench scripts (`pgbench_scripts`, the
  committed copies are deploy/capacity/*.sql), against games cloned from a real one (a table
  made and played through the services), at several client counts; the baseline is `SELECT 1`.
  Each pgbench client owns its own slice of the games, as one writer per game does, so no write
  loses a race. CPU per action is read from /proc for pgbench's own backends.
- Redis: the channel layer's pattern for an action (the frames `apply_action` built, published by
  the project's own `transport._send_batch` on channels_redis's pub/sub layer, received by the
  sockets' channels on another layer instance, as on the other Daphne), on a Redis of its own;
  the baseline is PING through redis-py's asyncio client at the same concurrency; the server's
  CPU is read from /proc. What the layer sends is counted with MONITOR first.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from games.benchmarks.machine import machine as machine_facts
from games.benchmarks.stack import cpu_seconds, start_redis

ACTIONS_PER_RUN = {"select1": 0, "turn": 2, "fresh": 1}  # actions one pass of each script is
DRAW = '{"type": "draw"}'
DISCARD = '{"type": "discard", "card": "7H"}'


def load() -> dict[str, Any]:
    """The load average now (the `uptime` figures) and the wall clock."""
    return {"at": time.strftime("%H:%M:%S", time.gmtime()), "loadavg": [round(x, 2) for x in os.getloadavg()]}


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all cores so far, from /proc/stat."""
    # user nice system idle iowait irq softirq steal (guest time is already inside user)
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


# ----------------------------------------------------------------------------- the action's statements


def _named(sql: str, names: list[str]) -> str:
    """`sql` with its %s placeholders replaced, in order, by pgbench variables."""
    parts = sql.split("%s")
    if len(parts) != len(names) + 1:
        raise ValueError(f"{len(parts) - 1} placeholders, {len(names)} names")
    return parts[0] + "".join(f":{name}{part}" for name, part in zip(names, parts[1:], strict=True))


def pgbench_scripts() -> dict[str, str]:
    """The pgbench scripts, made from the play path's own statements (so they cannot drift).

    `turn` is a person's draw and discard through one Daphne process, as bench_live plays them:
    the read, the guarded write, then the write on the kept position (one statement); two
    actions. `fresh` is one action that must read first (the other seat's first action, through
    another process): read and write. Variables: -D first, per (each client's slice of game
    ids), now ('now', a timestamptz input PostgreSQL reads as the transaction's time), actor,
    draw and discard (the moves' JSON)."""
    from games.services.play import play

    pick = "\\set game_id :first + :client_id * :per + random(0, :per - 1)\n"
    read = _named(play._READ_SQL.strip(), ["game_id"]) + "\n\\gset r_\n"
    fresh_write = ["r_state", "v1", "to_move", "now", "now", "now", "game_id", "r_version",
                   "v1", "r_hand_number", "seat", "draw", "actor", "now"]
    again_write = ["r_state", "v2", "to_move2", "now", "now", "now", "game_id", "v1", "w_token", "r_json_agg",
                   "v2", "r_hand_number", "seat", "discard", "actor", "now"]
    versions = "\\set v1 :r_version + 1\n\\set v2 :r_version + 2\n\\set seat mod(:r_version, 2)\n" \
               "\\set to_move mod(:v1, 2)\n\\set to_move2 mod(:v2, 2)\n"
    write = _named(play._WRITE_FRESH_SQL.strip(), fresh_write)
    head = "-- {}: made by games/benchmarks/capacity.py (pgbench_scripts) from games/services/play/play.py's\n" \
           "-- statements; `python manage.py bench_capacity --write-scripts deploy/capacity` writes it again.\n"
    return {
        "select1": head.format("the baseline") + "SELECT 1;\n",
        "turn": head.format("a draw and a discard through one process (2 actions)") + pick + read + versions + write
        + "\n\\gset w_\n" + _named(play._WRITE_AGAIN_SQL.strip(), again_write) + ";\n",
        "fresh": head.format("one action that reads first") + pick + read + versions + write + ";\n",
    }


def write_scripts(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in pgbench_scripts().items():
        paths[name] = folder / f"{name}.sql"
        paths[name].write_text(text)
    return paths


def capture_action_statements(game_id: int) -> dict[str, Any]:
    """Play a draw and a discard on `game_id` as a socket would (autocommit, no spectators) and
    return the statements each ran, named after the play path's own, and the frames each
    produced (what the channel layer carries)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.live import presence
    from games.models import Game
    from games.services.play import play
    from games.services.table import turns

    game = Game.objects.get(pk=game_id)
    seat = game.to_move
    user = _seat_user(game, seat)
    seen = presence.Seen(frozenset({0, 1}), False)
    after_change, turns.after_change = turns.after_change, lambda *args, **kwargs: None
    actions = []
    try:
        version = game.version
        for action in ({"type": "draw"}, None):
            if action is None:  # the discard: the first card of the seat's hand, whatever it is
                hand = Game.objects.get(pk=game_id).state
                action = {"type": "discard", "card": _first_card(hand, seat)}
            with CaptureQueriesContext(connection) as queries:
                applied = play.apply_action(game_id=game_id, seat=seat, action=action, actor="person",
                                            expected_version=version, user=user, seen=seen)
            version = applied.version
            actions.append({"action": action["type"],
                            "statements": [statement_name(q["sql"]) for q in queries.captured_queries],
                            "messages": [(group, frame) for group, frame in applied.messages]})
    finally:
        turns.after_change = after_change
    return {"actions": actions}


def statement_name(sql: str) -> str:
    """Which of the play path's statements `sql` (as Django logged it, parameters filled in) is."""
    text = " ".join(sql.split())
    if text.startswith("SELECT g.state::text, g.version"):
        return "read"
    if text.startswith("WITH g AS ( UPDATE games_game"):
        return "write_again" if "AND xmin =" in text else "write"
    return text[:120]


def _seat_user(game, seat: int):
    return game.table.seats.get(position=seat).user


def _first_card(state: dict[str, Any], seat: int) -> str:
    from games.engine import Game as EngineGame

    engine_game = EngineGame.from_dict(state)
    return next(a["card"] for a in engine_game.legal_actions(seat) if a["type"] == "discard")


# ----------------------------------------------------------------------------- the games


def seed(games: int, prefix: str = "cap") -> dict[str, Any]:
    """A real 2-player table made through the services (a hand dealt, its first turn played),
    then `games` copies of its table, seats and game in one statement: every game has the
    row shapes of a live one. Returns the copies' id range and their sizes."""
    from django.db import connection

    from games.benchmarks.live import prepare_tables

    [template] = prepare_tables(1, prefix=f"{prefix}{int(time.time() * 1000) % 10**9}")
    captured = capture_action_statements(template["game_id"])
    with connection.cursor() as cursor:
        cursor.execute(_CLONE_SQL, {"template": template["id"], "n": games})
        cursor.execute("SELECT min(id), max(id), count(*), avg(pg_column_size(state)), avg(octet_length(state::text))"
                       " FROM games_game WHERE table_id > %s", [template["id"]])
        first, last, count, stored, text = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM games_move")
        [moves] = cursor.fetchone()
    return {"template_table": template["id"], "first_game": first, "last_game": last, "games": count,
            "state_bytes_stored": round(float(stored)), "state_bytes_text": round(float(text)),
            "moves_before": moves, "captured": captured}


_CLONE_SQL = """
WITH src AS (SELECT * FROM games_table WHERE id = %(template)s),
t AS (
    INSERT INTO games_table (players, preset, options, draw_seconds, play_seconds, disconnect_grace_seconds, rated,
                             private, invite_token, status, created_at, started_at, finished_at, creator_id)
    SELECT players, preset, options, draw_seconds, play_seconds, disconnect_grace_seconds, rated, private,
           substr(md5(random()::text || i::text), 1, 32), status, now(), now(), NULL, creator_id
      FROM src, generate_series(1, %(n)s) i
    RETURNING id
), s AS (
    INSERT INTO games_seat (position, bot_level, consecutive_timeouts, covered_by_computer, covered_moves, own_moves,
                            user_id, table_id, client_seed)
    SELECT s.position, s.bot_level, 0, false, 0, 0, s.user_id, t.id, s.client_seed
      FROM t CROSS JOIN games_seat s WHERE s.table_id = %(template)s
)
INSERT INTO games_game (hand_number, state, totals, version, to_move, turn_deadline, finished, winner_side, result,
                        created_at, updated_at, finished_at, abandoned_by_id, table_id, due_at)
SELECT g.hand_number, g.state, g.totals, g.version, g.to_move, now() + interval '1 hour', false, NULL, g.result,
       now(), now(), NULL, NULL, t.id, now() + interval '1 hour'
  FROM t CROSS JOIN games_game g WHERE g.table_id = %(template)s
"""


# ----------------------------------------------------------------------------- PostgreSQL


def _dsn_args(settings_dict: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    args = ["-h", settings_dict.get("HOST") or "127.0.0.1", "-p", str(settings_dict.get("PORT") or 5432),
            "-U", settings_dict.get("USER") or "postgres"]
    env = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = settings_dict["PASSWORD"]
    return args, env


def _backend_pids(cursor) -> list[int]:
    cursor.execute("SELECT pid FROM pg_stat_activity"
                   " WHERE datname = current_database() AND application_name = 'pgbench'")
    return [pid for (pid,) in cursor.fetchall()]


def _wal_lsn(cursor) -> int:
    """Where the server's WAL stands, in bytes (all its databases: this load's and anyone else's)."""
    cursor.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
    return int(cursor.fetchone()[0])


def _aux_pids(cursor) -> list[int]:
    """The server's own writers (WAL writer, checkpointer, background writer): shared by every
    database of the server, so their CPU in a window is this load's plus whatever else wrote."""
    cursor.execute("SELECT pid FROM pg_stat_activity WHERE backend_type IN ('walwriter', 'checkpointer', "
                   "'background writer')")
    return [pid for (pid,) in cursor.fetchall()]


def run_pgbench(script: Path, *, clients: int, seconds: float, defines: dict[str, str]) -> dict[str, Any]:
    """One pgbench run (prepared statements, as the site's connections use); its throughput,
    latency, the CPU of its PostgreSQL backends and of pgbench itself, the machine's busy cores."""
    from django.db import connection

    settings_dict = connection.settings_dict
    args, env = _dsn_args(settings_dict)
    command = [shutil.which("pgbench") or "pgbench", "-n", "-M", "prepared", "-c", str(clients),
               "-j", str(min(clients, 2)), "-T", str(max(1, round(seconds))), "-f", str(script), *args]
    for name, value in defines.items():
        command += ["-D", f"{name}={value}"]
    command.append(settings_dict["NAME"])
    before = load()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(min(1.0, seconds / 4))
    with connection.cursor() as cursor:
        pids, aux = _backend_pids(cursor), _aux_pids(cursor)
        t0, cpu0, bench0, busy0 = time.monotonic(), cpu_seconds(pids), cpu_seconds([process.pid]), machine_busy()
        aux0, wal0 = cpu_seconds(aux), _wal_lsn(cursor)
        time.sleep(max(0.2, round(seconds) - min(1.0, seconds / 4) - 0.4))
        t1, cpu1, bench1, busy1 = time.monotonic(), cpu_seconds(pids), cpu_seconds([process.pid]), machine_busy()
        aux1, wal1 = cpu_seconds(aux), _wal_lsn(cursor)
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"pgbench failed ({process.returncode}): {err.strip()[-500:]}")
    tps = float(re.search(r"tps = ([\d.]+) \(without initial", out).group(1))
    latency = float(re.search(r"latency average = ([\d.]+) ms", out).group(1))
    processed = int(re.search(r"actually processed: (\d+)", out).group(1))
    failed = re.search(r"number of failed transactions: (\d+)", out)
    window = t1 - t0
    cores = os.cpu_count() or 1
    return {
        "clients": clients, "tps": round(tps, 1), "latency_ms": latency, "transactions": processed,
        "failed": int(failed.group(1)) if failed else 0, "backends": len(pids),
        "backend_cpu_ms_per_tx": round(1000 * (cpu1 - cpu0) / (tps * window), 4) if tps else None,
        "backend_cores": round((cpu1 - cpu0) / window, 3),
        "writers_cpu_ms_per_tx": round(1000 * (aux1 - aux0) / (tps * window), 4) if tps else None,
        "wal_bytes_per_tx": round((wal1 - wal0) / (tps * window)) if tps else None,
        "pgbench_cores": round((bench1 - bench0) / window, 3),
        "machine_busy_cores": round(cores * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]), 3),
        "load_before": before, "load_after": load(),
    }


def postgres_capacity(seeded: dict[str, Any], *, clients: list[int], seconds: float,
                      folder: Path) -> dict[str, Any]:
    """For each client count: SELECT 1 (the baseline), then the turn script, then (at the
    largest count) the fresh one; actions per second and the ratio to the baseline's rate."""
    from django.db import connection

    scripts = write_scripts(folder)
    runs = []
    for count in clients:
        per = seeded["games"] // max(clients)
        defines = {"first": str(seeded["first_game"]), "per": str(per), "now": "now", "actor": "person",
                   "draw": DRAW, "discard": DISCARD}
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM games_move")
            [moves_before] = cursor.fetchone()
        row: dict[str, Any] = {"clients": count}
        for name in ("select1", "turn") + (("fresh",) if count == max(clients) else ()):
            result = run_pgbench(scripts[name], clients=count, seconds=seconds, defines=defines)
            if ACTIONS_PER_RUN[name]:
                result["actions_per_s"] = round(result["tps"] * ACTIONS_PER_RUN[name], 1)
                result["backend_cpu_ms_per_action"] = (round(result["backend_cpu_ms_per_tx"] / ACTIONS_PER_RUN[name], 4)
                                                       if result["backend_cpu_ms_per_tx"] is not None else None)
                result["wal_bytes_per_action"] = (round(result["wal_bytes_per_tx"] / ACTIONS_PER_RUN[name])
                                                  if result["wal_bytes_per_tx"] is not None else None)
                result["writers_cpu_ms_per_action"] = (round(result["writers_cpu_ms_per_tx"] / ACTIONS_PER_RUN[name], 4)
                                                       if result["writers_cpu_ms_per_tx"] is not None else None)
                result["ratio_to_select1"] = round(result["actions_per_s"] / row["select1"]["tps"], 4)
            row[name] = result
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM games_move")
            [moves_after] = cursor.fetchone()
        expected = sum(row[n]["transactions"] * ACTIONS_PER_RUN[n] for n in ("turn", "fresh") if n in row)
        row["moves_written"] = moves_after - moves_before
        row["moves_expected"] = expected
        runs.append(row)
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', "
                       "'shared_buffers', 'max_connections', 'wal_level', 'full_page_writes') ORDER BY name")
        server = dict(cursor.fetchall())
        cursor.execute("SELECT version()")
        server["version"] = cursor.fetchone()[0]
    best = max((r["turn"] for r in runs), key=lambda r: r["actions_per_s"])
    cpu = sorted(r["turn"]["backend_cpu_ms_per_action"] for r in runs if r["turn"]["backend_cpu_ms_per_action"])
    # (a run too short for /proc's 10 ms ticks reads 0: left out of the median)
    return {"server": server, "runs": runs, "best_turn_actions_per_s": best["actions_per_s"],
            "best_turn_clients": best["clients"],
            "backend_cpu_ms_per_action_median": cpu[len(cpu) // 2] if cpu else None,
            "actions_per_s_per_core": round(1000 / cpu[len(cpu) // 2]) if cpu else None}


def wal_per_action(seeded: dict[str, Any]) -> dict[str, Any]:
    """WAL bytes of the action's write, from EXPLAIN (ANALYZE, WAL) inside a transaction that is
    rolled back (the write on a fresh read of one seeded game)."""
    from django.db import connection, transaction

    from games.services.play import play

    game_id = seeded["first_game"]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(play._READ_SQL, [game_id])
        state, version, _f, _t, hand_number, *_rest = cursor.fetchone()
        params = [state, version + 1, (version + 1) % 2, "now", "now", "now", game_id, version,
                  version + 1, hand_number, version % 2, DRAW, "person", "now"]
        cursor.execute("EXPLAIN (ANALYZE, WAL, FORMAT JSON) " + play._WRITE_FRESH_SQL, params)
        plan = cursor.fetchone()[0]
        transaction.set_rollback(True)
    plan = json.loads(plan) if isinstance(plan, str) else plan
    top = plan[0]["Plan"]
    totals = Counter()

    def walk(node: dict[str, Any]) -> None:
        for key in ("WAL Records", "WAL FPI", "WAL Bytes"):
            totals[key] += node.get(key, 0)
        for child in node.get("Plans", []):
            walk(child)

    walk(top)
    return {"wal_records": totals["WAL Records"], "wal_bytes": totals["WAL Bytes"], "wal_fpi": totals["WAL FPI"]}


# ----------------------------------------------------------------------------- Redis


@contextmanager
def own_redis(port: int):
    """A Redis of this measurement's own on `port` (its CPU is then this load's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="burraco-cap-redis-"))
    process = start_redis(port, folder)
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def _layer(url: str):
    from channels_redis.pubsub import RedisPubSubChannelLayer

    from burraco_site.settings import redis_channel_layer

    config = redis_channel_layer(url)["CONFIG"]
    return RedisPubSubChannelLayer(**config)


async def _layer_load(url: str, messages: list[tuple[str, dict[str, Any]]], *, tables: int, seconds: float,
                      concurrency: int, monitor_actions: int) -> dict[str, Any]:
    """`tables` tables, each with a socket per seat group on the receiving layer (the other
    Daphne); senders publish each action's frames as the play path does: `messages` (a 2-player
    action, one frame per seat), then the same frames to four seats (a 4-player table)."""
    import redis.asyncio as aioredis

    from games.live import transport

    sender, receiver = _layer(url), _layer(url)
    template_table = messages[0][0].split(".")[1]
    four = messages + [(group.replace(".seat.", ".seat.x"), frame) for group, frame in messages]
    four = [(group.replace(".seat.x0", ".seat.2").replace(".seat.x1", ".seat.3"), frame) for group, frame in four]
    groups = [group for group, _frame in four]

    def regroup(group: str, table: int) -> str:
        return group.replace(f"table.{template_table}.", f"table.{table}.", 1)

    received = Counter()
    channels = []
    for table in range(tables):
        for group in groups:
            channel = await receiver.new_channel()
            await receiver.group_add(regroup(group, table), channel)
            channels.append(channel)
    stop = asyncio.Event()

    async def consume(channel: str) -> None:
        while not stop.is_set():
            try:
                await receiver.receive(channel)
            except asyncio.CancelledError:
                return
            received["frames"] += 1

    consumers = [asyncio.create_task(consume(c)) for c in channels]
    await asyncio.sleep(0.5)
    sent = Counter()

    def actor(batch: list[tuple[str, dict[str, Any]]], key: str):
        async def act(deadline: float, rng: random.Random) -> None:
            while time.monotonic() < deadline:
                table = rng.randrange(tables)
                await transport._send_batch(sender, [(regroup(g, table), f) for g, f in batch])
                sent[key] += 1
        return act

    # What channels_redis sends for an action, by command (MONITOR is slow: counted apart).
    client = aioredis.Redis.from_url(url)
    commands: Counter = Counter()
    async with client.monitor() as monitor:
        listen = monitor.listen()
        await asyncio.sleep(0.1)
        for i in range(monitor_actions):
            await transport._send_batch(sender, [(regroup(g, i % tables), f) for g, f in messages])
        seen_actions = 0
        try:
            while seen_actions < monitor_actions * len(messages):
                entry = await asyncio.wait_for(listen.__anext__(), 2)
                command = entry["command"].split(" ", 1)[0].upper()
                commands[command] += 1
                seen_actions += command == "PUBLISH"
        except (TimeoutError, StopAsyncIteration):
            pass
    await asyncio.sleep(0.3)
    received.clear()

    async def ping(deadline: float) -> None:
        while time.monotonic() < deadline:
            await client.ping()
            sent["pings"] += 1

    async def redis_cpu() -> float:
        """The server's own CPU (getrusage, microseconds), not /proc's 10 ms ticks."""
        info = await client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])

    async def window(make, count_key: str) -> dict[str, Any]:
        sent[count_key] = 0
        received.clear()
        before, start, busy0 = await redis_cpu(), time.monotonic(), machine_busy()
        loadavg = load()
        await asyncio.gather(*[make(start + seconds, random.Random(i)) for i in range(concurrency)])
        elapsed = time.monotonic() - start
        cpu, busy1 = await redis_cpu() - before, machine_busy()
        rate = sent[count_key] / elapsed
        return {count_key: sent[count_key], "per_s": round(rate, 1), "redis_cores": round(cpu / elapsed, 3),
                "redis_cpu_us_each": round(1e6 * cpu / sent[count_key], 2) if sent[count_key] else None,
                "machine_busy_cores": round((os.cpu_count() or 1) * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]),
                                            3),
                "load_before": loadavg, "load_after": load()}

    pings = await window(lambda deadline, _rng: ping(deadline), "pings")
    actions = await window(actor(messages, "actions"), "actions")
    await asyncio.sleep(0.5)
    actions["frames_received"] = received["frames"]
    actions["frames_published"] = actions["actions"] * len(messages)
    actions4 = await window(actor(four, "actions"), "actions")
    await asyncio.sleep(0.5)
    actions4["frames_received"] = received["frames"]
    actions4["frames_published"] = actions4["actions"] * len(four)
    stop.set()
    for task in consumers:
        task.cancel()
    await asyncio.gather(*consumers, return_exceptions=True)
    await client.aclose()
    for layer in (sender, receiver):
        await layer.flush()
    return {"ping": pings, "action": actions, "action_4_seats": actions4,
            "commands_per_action": {k: round(v / monitor_actions, 2) for k, v in commands.items()}}


def redis_benchmark(port: int, payload: int, requests: int) -> dict[str, Any]:
    """redis-benchmark's PING, then PUBLISH of a frame-sized payload to a channel one
    subscriber listens on (a `redis-cli SUBSCRIBE`, as a Daphne's subscriber connection), 50
    clients, pipelined 16: what one Redis thread takes when the client costs little, and the
    server's CPU per request at that rate."""
    import redis

    tool = shutil.which("redis-benchmark")
    if tool is None:
        return {"skipped": "no redis-benchmark"}
    client = redis.Redis(host="127.0.0.1", port=port)

    def server_cpu() -> float:
        info = client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])

    channel = "asgi-db5__group__table.1.seat.0"
    subscriber = _Subscriber(port, channel)
    out = {}
    try:
        deadline = time.monotonic() + 5
        while client.pubsub_numsub(channel)[0][1] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        # Redis would drop a subscriber this far behind (client-output-buffer-limit pubsub): this
        # Redis is the measurement's own, so let it buffer, and count the CPU until all is delivered.
        client.config_set("client-output-buffer-limit", "pubsub 0 0 0")
        for name, command in (("ping", ["PING"]), ("publish", ["PUBLISH", channel, "x" * payload])):
            before, cpu0, t0, drained = load(), server_cpu(), time.monotonic(), subscriber.received
            text = subprocess.run([tool, "-h", "127.0.0.1", "-p", str(port), "-n", str(requests), "-c", "50",
                                   "-P", "16", "--csv", *command], capture_output=True, text=True, timeout=120).stdout
            if name == "publish":  # each message is the payload plus about 60 bytes of framing
                deadline = time.monotonic() + 60
                while subscriber.received - drained < requests * payload and time.monotonic() < deadline:
                    time.sleep(0.05)
            cpu, elapsed = server_cpu() - cpu0, time.monotonic() - t0
            rows = [line.split(",") for line in text.strip().splitlines() if line.startswith('"')]
            value = float(rows[-1][1].strip('"')) if rows and len(rows[-1]) > 1 else None
            out[name] = {"requests_per_s": value, "delivered_per_s": round(requests / elapsed),
                         "redis_cores": round(cpu / elapsed, 3), "redis_cpu_us_each": round(1e6 * cpu / requests, 3),
                         "load_before": before, "load_after": load()}
        out["publish"]["subscribers"] = client.pubsub_numsub(channel)[0][1]
        out["publish"]["subscriber_bytes"] = subscriber.received - drained
    finally:
        subscriber.close()
        client.close()
    return out


class _Subscriber:
    """A subscriber that reads and drops whatever Redis pushes, in a thread: it keeps up with
    redis-benchmark (redis-cli, which prints each message, fell behind and Redis dropped it)."""

    def __init__(self, port: int, channel: str) -> None:
        import socket
        import threading

        self.sock = socket.create_connection(("127.0.0.1", port))
        name = channel.encode()
        self.sock.sendall(b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(name), name))
        self.received = 0
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                return
            if not chunk:
                return
            self.received += len(chunk)

    def close(self) -> None:
        import socket

        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(timeout=5)


def redis_capacity(captured: dict[str, Any], *, port: int, tables: int, seconds: float, concurrency: int,
                   benchmark_requests: int) -> dict[str, Any]:
    """The layer's load on a Redis of its own, for the 2-player action's frames as captured."""
    from games.live import transport

    messages = captured["actions"][0]["messages"]  # a draw's frames: one per seat, no spectators
    sizes = [len(transport.layer_message(frame)["text"]) for _group, frame in messages]
    with own_redis(port):
        url = f"redis://127.0.0.1:{port}/5"
        layer = asyncio.run(_layer_load(url, messages, tables=tables, seconds=seconds, concurrency=concurrency,
                                        monitor_actions=20))
        bench = redis_benchmark(port, payload=max(sizes), requests=benchmark_requests) if benchmark_requests else {}
    action, ping = layer["action"], layer["ping"]
    per_action, four = action["redis_cpu_us_each"], layer["action_4_seats"]["redis_cpu_us_each"]
    return {
        "server": subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip(),
        "frames_per_action": len(messages), "frame_bytes": sizes, "tables": tables, "concurrency": concurrency,
        **layer, "redis_benchmark": bench,
        "action_cost_in_pings": round(per_action / ping["redis_cpu_us_each"], 2)
        if per_action and ping["redis_cpu_us_each"] else None,
        "action_4_seats_cost_in_pings": round(four / ping["redis_cpu_us_each"], 2)
        if four and ping["redis_cpu_us_each"] else None,
        "actions_per_s_per_core": round(1e6 / per_action) if per_action else None,
    }


# ----------------------------------------------------------------------------- the whole measurement


def measure(*, games: int, clients: list[int], seconds: float, redis_port: int, redis_tables: int,
            redis_seconds: float, redis_concurrency: int = 32, benchmark_requests: int = 300_000) -> dict[str, Any]:
    started = load()
    seeded = seed(games)
    captured = seeded.pop("captured")
    statements = {a["action"]: a["statements"] for a in captured["actions"]}
    with tempfile.TemporaryDirectory(prefix="burraco-cap-") as folder:
        postgres = postgres_capacity(seeded, clients=clients, seconds=seconds, folder=Path(folder))
    postgres["wal_per_write"] = wal_per_action(seeded)
    redis_figures = redis_capacity(captured, port=redis_port, tables=redis_tables, seconds=redis_seconds,
                                   concurrency=redis_concurrency, benchmark_requests=benchmark_requests)
    return {
        "benchmark": "capacity", "machine": machine_facts(), "load_start": started, "load_end": load(),
        "seeded": seeded, "statements_per_action": statements, "postgres": postgres, "redis": redis_figures,
    }
