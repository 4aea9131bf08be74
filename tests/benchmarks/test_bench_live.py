"""A small run of the live-play load benchmark: it must lose nothing (the figures are not asserted:
performance is a benchmark, not a timed test; see docs/performance.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_a_small_load_run_loses_nothing():
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        if os.environ.get("CI"):
            pytest.fail("bench_live needs PostgreSQL: CI sets DATABASE_URL")
        pytest.skip("bench_live runs on PostgreSQL only (set DATABASE_URL)")
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "bench_live", "--tables", "12", "--seconds", "12", "--pace", "1.5",
         "--connect-seconds", "1", "--daphnes", "2", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    load, echo = report["load"], report["echo"]
    print(json.dumps({"round_trip": load["round_trip"], "ratio_to_echo": report["ratio_to_echo"]}))
    assert load["accepted"] == load["sockets"] == 24 and load["dropped_handshakes"] == 0
    assert load["actions_sent"] >= 50  # 12 tables, one action per 1.5 s each, for 12 s
    assert load["actions_confirmed"] == load["actions_sent"] and load["unanswered"] == 0
    assert load["version_gaps"] == 0 and load["duplicates"] == 0
    assert load["error_frames"] == {} and load["closed_by_server"] == {}
    assert load["turn_timeouts"] == 0
    assert load["cpu_seconds"]["daphne"] > 0 and load["cpu_seconds"]["postgres"] > 0
    assert echo["messages_received"] == echo["messages_sent"] > 0
    assert report["ratio_to_echo"]["server_cpu_per_action"] is not None
    # The game and the echo alternate (3 windows each): every window carried traffic.
    assert len(report["rounds"]) == 3 == load["windows"] == echo["windows"]
    assert all(r["actions"] > 0 and r["echo_messages"] > 0 and r["ratio"] for r in report["rounds"])
    assert sum(r["actions"] for r in report["rounds"]) == load["actions_confirmed"]
