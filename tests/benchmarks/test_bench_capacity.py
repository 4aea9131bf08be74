"""The capacity measurement, tiny (docs/operations.md, capacity plan): the fields the plan quotes
are there and plausible, every pgbench write landed, every frame published was received."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from games.benchmarks import capacity
from tests.conftest import ROOT


def test_the_committed_pgbench_scripts_are_the_play_paths_own_statements():
    for name, text in capacity.pgbench_scripts().items():
        assert (ROOT / "deploy" / "capacity" / f"{name}.sql").read_text() == text, (
            f"deploy/capacity/{name}.sql differs: python manage.py bench_capacity --write-scripts deploy/capacity")
    turn = capacity.pgbench_scripts()["turn"]
    assert turn.count("UPDATE games_game") == 2 and turn.count("INSERT INTO games_move") == 2
    assert "%s" not in turn and ":game_id" in turn and "AND xmin = :w_token::xid" in turn


@pytest.mark.django_db(transaction=True)
def test_a_tiny_run_has_the_plans_figures(tmp_path: Path):
    if connection.vendor != "postgresql":
        pytest.skip("pgbench runs against PostgreSQL (set DATABASE_URL)")
    missing = [tool for tool in ("pgbench", "redis-server") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"not installed: {missing}")
    from games.benchmarks.stack import free_port

    out = io.StringIO()
    call_command("bench_capacity", games=40, clients="1,2", seconds=2, redis_port=free_port(), redis_tables=5,
                 redis_seconds=1, redis_concurrency=4, benchmark_requests=2000, json=True, stdout=out)
    report = json.loads(out.getvalue())
    print(json.dumps({"postgres": report["postgres"]["best_turn_actions_per_s"],
                      "redis": report["redis"]["actions_per_s_per_core"]}))
    assert report["machine"]["nproc"] >= 1 and len(report["load_start"]["loadavg"]) == 3
    # The action's statements as the play path ran them: a read and a write, then the kept position's write.
    assert report["statements_per_action"] == {"draw": ["read", "write"], "discard": ["write_again"]}
    assert report["seeded"]["games"] == 40 and report["seeded"]["state_bytes_text"] > 500
    pg = report["postgres"]
    assert [run["clients"] for run in pg["runs"]] == [1, 2]
    for run in pg["runs"]:
        assert run["moves_written"] == run["moves_expected"] > 0  # every guarded write landed
        for name in ("turn",) + (("fresh",) if "fresh" in run else ()):
            figures = run[name]
            assert figures["failed"] == 0 and figures["actions_per_s"] > 0
            assert 0 < figures["ratio_to_select1"] < 1  # an action costs more than SELECT 1
            assert 0 <= figures["backend_cpu_ms_per_action"] < 50  # 0: under one /proc tick in a short run
            assert figures["wal_bytes_per_action"] > 200  # a new game row and a move row at least
            assert figures["load_before"]["loadavg"] and figures["load_after"]["loadavg"]
    assert "fresh" in pg["runs"][-1] and 0 < pg["backend_cpu_ms_per_action_median"] < 50
    assert pg["wal_per_write"]["wal_bytes"] > 0 and pg["server"]["synchronous_commit"]
    redis = report["redis"]
    assert redis["frames_per_action"] == 2 and redis["commands_per_action"]["PUBLISH"] == 2
    action = redis["action"]
    assert action["actions"] > 0 and action["frames_received"] == action["frames_published"]
    four = redis["action_4_seats"]
    assert four["actions"] > 0 and four["frames_received"] == four["frames_published"] == 4 * four["actions"]
    assert redis["ping"]["pings"] > 0 and redis["action_cost_in_pings"] > 0
    assert redis["actions_per_s_per_core"] > 0
    if shutil.which("redis-benchmark") is None:
        assert redis["redis_benchmark"] == {"skipped": "no redis-benchmark"}
        return
    publish = redis["redis_benchmark"]["publish"]
    assert publish["requests_per_s"] > 0 and publish["subscribers"] == 1 and publish["redis_cpu_us_each"] > 0
    assert publish["subscriber_bytes"] >= 2000 * max(redis["frame_bytes"])  # every publish reached it
