"""medio's decision time as CPU time of its thread, beside the wall clock: on a shared machine
the wall clock around `choose_action` (what `bot_tournament` reports) counts the time the
process waited for a core; `time.thread_time` counts only the work of the decision.

    nice -n 19 .venv/bin/python docs/bench/scripts/medio_decision_cpu.py sparring 31 40

Plays that many hands (duplicate deals, as `bot_tournament --duplicate`) of medio against the
level given, both sides with the public record, and prints one JSON object: medio's decisions'
median, p99 and max, in CPU and wall-clock milliseconds, and the load before and after.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.bots import choose_action  # noqa: E402
from games.engine import Game, Ruleset  # noqa: E402


def quantiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"median": round(s[len(s) // 2], 3), "p99": round(s[min(len(s) - 1, int(0.99 * len(s)))], 3),
            "max": round(s[-1], 3), "decisions": len(s)}


def main() -> None:
    other, seed, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    rng = random.Random(seed)
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(games // 2):
        deal_seed = rng.getrandbits(64)
        for medio_side in (0, 1):
            deal_rng = random.Random(deal_seed)
            game = Game.new(Ruleset.preset("classico", target=None), rng=random.Random(deal_rng.getrandbits(64)))
            bot_rng = random.Random(deal_rng.getrandbits(64))
            for _ in range(3000):
                if game.hand_over:
                    break
                seat = game.to_move
                level = "medio" if seat % 2 == medio_side else other
                view, record = game.view(seat), game.public_record()
                c0, w0 = time.thread_time(), time.perf_counter()
                action = choose_action(view, level, bot_rng, record=record)
                if level == "medio":
                    cpu.append((time.thread_time() - c0) * 1000)
                    wall.append((time.perf_counter() - w0) * 1000)
                game.apply(seat, action)
    after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(json.dumps({"medio_against": other, "seed": seed, "hands": games, "cpu_ms": quantiles(cpu),
                      "wall_ms": quantiles(wall), "uptime_before": before, "uptime_after": after}))


if __name__ == "__main__":
    main()
