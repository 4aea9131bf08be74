"""The load benchmark across hosts (issue 32): bench_live's players (games/benchmarks/live.py) on
the clients host, through nginx on the edge, to one and then two app hosts of the test bed
(games/benchmarks/hosts.py), each host under a fixed CPU quota, with a 2 ms and a 20 ms round
trip between the app hosts and the data host. Root only; brings the bed up if it is not.

    python -m games.benchmarks.hosts_bench --tables 100,200,300 --rtt 2,20 --apps 1,2 \\
        --seconds 30 --out docs/bench

One run per (round trip, app hosts, tables): fresh tables made through the services, their
sessions cached, sockets opened over `--connect-seconds`, `--seconds` of play at one action per
table every `--pace` s. Each run's JSON (the load figures, the CPU of each host's processes and
how often its quota throttled them, `uptime` before and after) goes to --out; the summary printed
at the end gives, for each round trip and app-host count, the most tables whose actions were all
confirmed at p99 <= --p99-ms, and the two-host / one-host ratio (both measured in this sweep).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from games.benchmarks import hosts
from games.benchmarks.stack import cpu_seconds

QUOTAS = {"app1": 0.5, "app2": 0.5, "data": 0.6}  # cores; the edge, the clients and the relays are not capped
# Four times the default weight: with the machine busy with other work (load average near 10 on
# two cores), each host still gets its quota; the quota, not the neighbours, is what is compared.
SHARES = 4096


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def throttled(name: str) -> dict[str, float]:
    """The host's cgroup: periods its quota throttled, and for how long (cpu.stat)."""
    try:
        text = (hosts.CGROUP_CPU / f"burraco-{name}" / "cpu.stat").read_text()
        stat = dict(line.split() for line in text.splitlines())
    except OSError:
        return {}
    return {"nr_throttled": int(stat.get("nr_throttled", 0)),
            "throttled_seconds": round(int(stat.get("throttled_time", 0)) / 1e9, 2)}


def measure() -> dict[str, float]:
    cpu = {name: cpu_seconds(hosts._pids_of(name)) for name in ("app1", "app2", "data", "edge")}
    cpu["wan_relays"] = cpu_seconds(_relays())
    return cpu | {"server_total": sum(cpu.values())}


def _relays() -> list[int]:
    return [p["pid"] for key, p in hosts._state()["processes"].items() if key.startswith("wan-")]


def one_run(count: int, apps: int, rtt_ms: float, args, prefix: str) -> dict:
    from games.benchmarks import live

    for name, cores in QUOTAS.items():
        hosts.cpu_quota(name, cores, SHARES)
    # Not capped, but weighted alike: the players (this process), nginx, and the WAN relays, which
    # stand for the network and must not be what the neighbours slow down.
    hosts.cpu_quota("clients", 0, SHARES, pids=[os.getpid()])
    hosts.cpu_quota("edge", 0, SHARES)
    hosts.cpu_quota("wan", 0, SHARES, pids=_relays())
    for app in hosts.APP_HOSTS:
        hosts.delay(app, rtt_ms / 2)
    before = {name: throttled(name) for name in QUOTAS}
    tables = live.prepare_tables(count, prefix=prefix)
    ids = [t["id"] for t in tables]
    live.cache_sessions(hosts.data_urls()["REDIS_URL"], [s for t in tables for s in t["sessions"]])
    live.restart_clocks(ids, seconds=3600)  # nobody's turn runs out while they connect
    time.sleep(2)
    report = {"machine": live.machine(), "uptime_before": uptime(),
              "options": {"tables": count, "app_hosts": apps, "rtt_ms": rtt_ms, "pace": args.pace,
                          "seconds": args.seconds, "connect_seconds": args.connect_seconds,
                          "cpu_quota_cores": QUOTAS, "through": "nginx on edge from clients"}}
    report["load"] = hosts.in_host("clients", asyncio.run, live.run_load(
        tables, [80], pace=args.pace, seconds=args.seconds, connect_seconds=args.connect_seconds, measure=measure,
        before_play=lambda: _in_thread(live.restart_clocks, ids), address=hosts.host("edge").address))
    _put_away(ids)
    report["throttled"] = {name: {k: v - before[name].get(k, 0) for k, v in throttled(name).items()} for name in QUOTAS}
    report["uptime_after"] = uptime()
    report["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return report


def _put_away(table_ids: list[int]) -> None:
    """The run's tables end with it. Left in play, their players gone, the computer took their
    seats once the grace ran out and played on in every later run (16,000 computer moves on an
    app host that served no socket, in a first sweep): a benchmark's own tables only, so the
    games are marked finished here rather than played to their end."""
    from games.models import Game

    Game.objects.filter(table_id__in=table_ids).update(finished=True, due_at=None)


def _in_thread(func, *args) -> None:
    from django.db import connections

    try:
        func(*args)
    finally:
        connections.close_all()


def carried(load: dict, p99_ms: float) -> bool:
    return (load["dropped_handshakes"] == 0 and load["unanswered"] == 0 and not load["error_frames"]
            and load["round_trip"]["p99_ms"] is not None and load["round_trip"]["p99_ms"] <= p99_ms)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="100,200,300", help="table counts to step through, ascending")
    parser.add_argument("--apps", default="1,2", help="app host counts")
    parser.add_argument("--rtt", default="2,20", help="round trips between app and data hosts, ms")
    parser.add_argument("--pace", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--connect-seconds", type=float, default=10.0)
    parser.add_argument("--p99-ms", type=float, default=150.0)
    parser.add_argument("--out", type=Path, default=Path("docs/bench"))
    parser.add_argument("--name", default=time.strftime("%Y-%m-%d") + "-hosts")
    args = parser.parse_args(argv)
    hosts.require_root()
    if not hosts.network_is_up() or "nginx" not in hosts._state()["processes"]:
        hosts.up()
    os.environ.update(hosts.app_env())
    import django

    django.setup()
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict] = {}
    stamp = int(time.time())
    for rtt in (float(x) for x in args.rtt.split(",")):
        for apps in (int(x) for x in args.apps.split(",")):
            hosts.start_edge(hosts.APP_HOSTS[:apps])
            key = f"{rtt:g}ms-{apps}-app"
            summary[key] = {"runs": {}, "carried": 0}
            for count in (int(x) for x in args.tables.split(",")):
                report = one_run(count, apps, rtt, args, prefix=f"hb{stamp}r{rtt:g}a{apps}t{count}-")
                path = args.out / f"{args.name}-{rtt:g}ms-{apps}-app-hosts-{count}-tables.json"
                path.write_text(json.dumps(report, indent=1) + "\n")
                load = report["load"]
                ok = carried(load, args.p99_ms)
                summary[key]["runs"][count] = {"p99_ms": load["round_trip"]["p99_ms"],
                                               "p50_ms": load["round_trip"]["p50_ms"],
                                               "confirmed": f"{load['actions_confirmed']}/{load['actions_sent']}",
                                               "carried": ok, "throttled": report["throttled"],
                                               "uptime_before": report["uptime_before"],
                                               "uptime_after": report["uptime_after"], "json": str(path)}
                print(json.dumps({key: {count: summary[key]["runs"][count]}}), flush=True)
                if ok:
                    summary[key]["carried"] = count
                else:
                    break  # past what this configuration carries
    hosts.start_edge()
    for rtt in (float(x) for x in args.rtt.split(",")):
        one = summary.get(f"{rtt:g}ms-1-app", {}).get("carried")
        two = summary.get(f"{rtt:g}ms-2-app", {}).get("carried")
        summary[f"{rtt:g}ms-ratio-two-to-one"] = round(two / one, 2) if one and two else None
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
