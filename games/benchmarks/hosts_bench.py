"""The load benchmark across hosts (issue 32): bench_live's players (games/benchmarks/live.py) on
the clients host, through nginx on the edge, to one and then two app hosts of the test bed
(games/benchmarks/hosts.py), each host under a fixed CPU quota, with a 2 ms and a 20 ms round
trip between the app hosts and the data host. Root only; brings the bed up if it is not, and
refuses to start while another benchmark or a hosts test holds the bed's lock.

    python -m games.benchmarks.hosts_bench --tables 100,200,300 --rtt 2,20 --apps 1,2 \\
        --seconds 30 --out docs/bench

One run per (round trip, app hosts, tables): fresh tables made through the services, their
sessions cached, sockets opened over `--connect-seconds`, `--seconds` of play at one action per
table every `--pace` s. Each run's JSON (the load figures, the CPU of each host's processes and
how often its quota throttled them, `uptime` before and after) goes to --out; the summary printed
at the end gives, for each round trip and app-host count, the most tables whose actions were all
confirmed at p99 <= --p99-ms, and the two-host / one-host ratio (both measured in this sweep).

For the ratio on a machine others keep busy, search rather than sweep, several times over:

    python -m games.benchmarks.hosts_bench --bisect 200,800 --resolution 0.15 --apps 1,2 --rtt 2 \\
        --repeat 3 --seconds 40 --name 2026-12-07-s6-hosts

--bisect LO,HI bisects (geometrically, to --resolution) the table count between LO (assumed
carried, not run) and HI (assumed not, not run) for one app host, and between n times those for n
app hosts; the app-host counts take turns run by run (1, 2, 1, 2...) so that what the neighbours
do to the machine hits both alike, and --repeat does the whole search again. The summary gives
each repetition's most tables carried, the smallest count that was not, and the ratio, then the
median and range of the ratios.

By default every run opens its sockets within --connect-seconds (10 s) whatever the table count:
about 10 ms of an app host's CPU per socket, so at 680 tables one host at half a core took 42 s
to answer its 1,360 handshakes and closed 30 sockets (1011) before play began. One
app host at N tables and two at 2N take the same storm per app host, but the machine's shared
parts (data host, relays, nginx, the players) take twice as much with two. --connect-rate
spreads the handshakes (e.g. 40 sockets a second per app host) so that the runs measure play.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import statistics
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


def _minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: round(v - before.get(k, 0), 2) for k, v in after.items()}


def measure() -> dict[str, float]:
    cpu = {name: cpu_seconds(hosts._pids_of(name)) for name in ("app1", "app2", "data", "edge")}
    cpu["wan_relays"] = cpu_seconds(_relays())
    return cpu | {"server_total": sum(cpu.values())}


def _relays() -> list[int]:
    return [p["pid"] for key, p in hosts._state()["processes"].items() if key.startswith("wan-")]


def one_run(count: int, apps: int, rtt_ms: float, args, prefix: str) -> dict:
    from games.benchmarks import live

    quotas = QUOTAS | ({app: args.app_quota for app in hosts.APP_HOSTS} if args.app_quota else {})
    for name, cores in quotas.items():
        hosts.cpu_quota(name, cores, SHARES)
    # Not capped, but weighted alike: the players (this process), nginx, and the WAN relays, which
    # stand for the network and must not be what the neighbours slow down.
    hosts.cpu_quota("clients", 0, SHARES, pids=[os.getpid()])
    hosts.cpu_quota("edge", 0, SHARES)
    hosts.cpu_quota("wan", 0, SHARES, pids=_relays())
    for app in hosts.APP_HOSTS:
        hosts.delay(app, rtt_ms / 2)
    before = {name: throttled(name) for name in QUOTAS}
    connect_seconds = args.connect_seconds
    if args.connect_rate:
        connect_seconds = max(connect_seconds, 2 * count / (args.connect_rate * apps))
    tables = live.prepare_tables(count, prefix=prefix)
    ids = [t["id"] for t in tables]
    live.cache_sessions(hosts.data_urls()["REDIS_URL"], [s for t in tables for s in t["sessions"]])
    live.restart_clocks(ids, seconds=3600)  # nobody's turn runs out while they connect
    time.sleep(2)
    report = {"machine": live.machine(), "uptime_before": uptime(),
              "options": {"tables": count, "app_hosts": apps, "rtt_ms": rtt_ms, "pace": args.pace,
                          "seconds": args.seconds, "connect_seconds": round(connect_seconds, 1),
                          "connect_rate_per_app_host": args.connect_rate,
                          "cpu_quota_cores": quotas, "through": "nginx on edge from clients"}}
    at_play: dict[str, dict] = {}

    def before_play() -> None:
        _in_thread(live.restart_clocks, ids)
        at_play.update({name: throttled(name) for name in QUOTAS})

    report["load"] = hosts.in_host("clients", asyncio.run, live.run_load(
        tables, [80], pace=args.pace, seconds=args.seconds, connect_seconds=connect_seconds, measure=measure,
        before_play=before_play, address=hosts.host("edge").address))
    _put_away(ids)
    after = {name: throttled(name) for name in QUOTAS}
    report["throttled"] = {name: _minus(after[name], before[name]) for name in QUOTAS}
    # From the start of play to the players' last close: what the quota did to the measured
    # actions, without the handshakes' burst (which alone can spend the quota for seconds).
    report["throttled_in_play"] = {name: _minus(after[name], at_play.get(name, {})) for name in QUOTAS}
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


def _record(args, rtt: float, apps: int, count: int, repetition: int | None, stamp: int) -> dict:
    """One run, its JSON written to --out; returns the line the summary keeps."""
    rep = "" if repetition is None else f"-rep{repetition}"
    report = one_run(count, apps, rtt, args, prefix=f"hb{stamp}r{rtt:g}a{apps}t{count}{rep}-")
    report["options"]["repetition"] = repetition
    path = args.out / f"{args.name}-{rtt:g}ms-{apps}-app-hosts-{count}-tables{rep}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    load = report["load"]
    line = {"p99_ms": load["round_trip"]["p99_ms"], "p50_ms": load["round_trip"]["p50_ms"],
            "confirmed": f"{load['actions_confirmed']}/{load['actions_sent']}",
            "carried": carried(load, args.p99_ms), "throttled": report["throttled"],
            "throttled_in_play": report["throttled_in_play"],
            "uptime_before": report["uptime_before"], "uptime_after": report["uptime_after"],
            "json": str(path)}
    print(json.dumps({f"{rtt:g}ms-{apps}-app{rep}": {count: line}}), flush=True)
    return line


def _next_count(lo: int, hi: int, resolution: float) -> int | None:
    """The geometric middle of (lo, hi) rounded to 10 tables, or None once hi/lo is within
    1 + resolution (or no round count lies between)."""
    if hi <= lo * (1 + resolution):
        return None
    mid = int(round((lo * hi) ** 0.5 / 10) * 10)
    return mid if lo < mid < hi else None


def bisect(args, rtt: float, app_counts: list[int], repetition: int, stamp: int) -> dict:
    """One repetition of the search at one round trip, the app-host counts taking turns."""
    lo0, hi0 = (int(x) for x in args.bisect.split(","))
    bounds = {apps: [lo0 * apps, hi0 * apps] for apps in app_counts}
    runs: dict[int, dict] = {apps: {} for apps in app_counts}
    while True:
        stepped = False
        for apps in app_counts:
            lo, hi = bounds[apps]
            count = _next_count(lo, hi, args.resolution)
            if count is None:
                continue
            hosts.start_edge(hosts.APP_HOSTS[:apps])
            line = _record(args, rtt, apps, count, repetition, stamp)
            runs[apps][count] = line
            bounds[apps][0 if line["carried"] else 1] = count
            stepped = True
        if not stepped:
            break
    result = {}
    for apps in app_counts:
        lo, hi = bounds[apps]
        result[f"{apps}-app"] = {"carried": lo, "not_carried": hi,
                                 "carried_was_run": lo in runs[apps], "not_carried_was_run": hi in runs[apps],
                                 "runs": runs[apps]}
    one, two = result.get("1-app"), result.get("2-app")
    if one and two:
        result["ratio_two_to_one"] = round(two["carried"] / one["carried"], 2)
        # The ratio's bracket from the search's resolution: both ends are between carried and not.
        result["ratio_bracket"] = [round(two["carried"] / one["not_carried"], 2),
                                   round(two["not_carried"] / one["carried"], 2)]
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="100,200,300", help="table counts to step through, ascending")
    parser.add_argument("--apps", default="1,2", help="app host counts")
    parser.add_argument("--rtt", default="2,20", help="round trips between app and data hosts, ms")
    parser.add_argument("--pace", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--connect-seconds", type=float, default=10.0)
    parser.add_argument("--connect-rate", type=float, default=0.0,
                        help="sockets opened per second per app host: the connect phase lasts 2 x tables / "
                        "(rate x app hosts) s if that is longer than --connect-seconds (0: always --connect-seconds)")
    parser.add_argument("--app-quota", type=float, default=0.0,
                        help="cores per app host instead of QUOTAS' 0.5: smaller, so that two app hosts at their "
                        "quota leave room on this two-core machine for the shared parts and the neighbours")
    parser.add_argument("--p99-ms", type=float, default=150.0)
    parser.add_argument("--out", type=Path, default=Path("docs/bench"))
    parser.add_argument("--name", default=time.strftime("%Y-%m-%d") + "-hosts")
    parser.add_argument("--bisect", help="LO,HI: search the table count between these for one app host "
                        "(n times them for n app hosts) instead of stepping through --tables")
    parser.add_argument("--resolution", type=float, default=0.15,
                        help="with --bisect: stop once the count not carried is within this of the one carried")
    parser.add_argument("--repeat", type=int, default=1, help="with --bisect: repetitions of the whole search")
    args = parser.parse_args(argv)
    hosts.require_root()
    # The bed is one per machine: the hosts tests hold this lock from bringing it up to taking it
    # down (tests/hosts/conftest.py), and so does a benchmark, which refuses rather than waits.
    # Two benchmarks at once each set nginx's upstreams and the quotas for their own runs, and
    # the bed's state ended up naming a dead nginx while a stray one served both app hosts.
    lock = open(hosts.BED_LOCK, "w")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"the bed is in use (a benchmark or a hosts test holds {lock.name})", file=sys.stderr)
        return 1
    if not hosts.network_is_up() or "nginx" not in hosts._state()["processes"]:
        hosts.up()
    os.environ.update(hosts.app_env())
    import django

    django.setup()
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict] = {}
    stamp = int(time.time())
    if args.bisect:
        app_counts = [int(x) for x in args.apps.split(",")]
        for rtt in (float(x) for x in args.rtt.split(",")):
            reps = [bisect(args, rtt, app_counts, r, stamp) for r in range(1, args.repeat + 1)]
            ratios = sorted(r["ratio_two_to_one"] for r in reps if "ratio_two_to_one" in r)
            summary[f"{rtt:g}ms"] = {
                "repetitions": reps,
                "carried": {f"{a}-app": [r[f"{a}-app"]["carried"] for r in reps] for a in app_counts},
                "ratios": [r.get("ratio_two_to_one") for r in reps],
                "ratio_median": statistics.median(ratios) if ratios else None,
                "ratio_range": [ratios[0], ratios[-1]] if ratios else None}
            print(json.dumps({f"{rtt:g}ms": {k: v for k, v in summary[f"{rtt:g}ms"].items() if k != "repetitions"}}),
                  flush=True)
        hosts.start_edge()
        (args.out / f"{args.name}-summary.json").write_text(json.dumps(summary, indent=1) + "\n")
        print(json.dumps(summary, indent=1))
        return 0
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
