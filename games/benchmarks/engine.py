"""Engine benchmark: ``python -m games.benchmarks.engine [--json] [--hands N]`` (no Django needed).

Figures (medians):
- ``check_meld_us``: one :func:`check_meld` call, over a fixed corpus of valid and invalid melds;
- ``random_hand_ms``: a complete random 2-player hand (classico), applying every action of the
  random player and building the view of both seats after each one;
- ``hands_per_second``: such hands per second on one core;
- ``round_trip_us``: ``Game.from_dict(g.to_dict())`` of a finished hand.

Times are CPU time of this process (``time.process_time``), so other work on a busy machine
does not count against the engine; run it on an idle machine for wall-clock figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

from games.bots.random_player import random_action
from games.engine.cards import parse_cards
from games.engine.errors import IllegalMove
from games.engine.game import Game
from games.engine.melds import check_meld
from games.engine.rules import Ruleset

MELD_CORPUS = [
    "7H 8H 9H", "QH KH AH", "KH AH 2H", "AH 2H 3H", "2H 3H 4H JK", "5H 5S JK", "3H 4H JK 6H 7H 8H 9H",
    "3H 4H 5H 6H 7H 8H 9H JK", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "7S 7D 7C 7H 2C",
    "4D 5D 6D 7D 8D", "JC QC KC AC", "3H 2H 5H", "9S 9S 9D",
    # refused
    "KH AH 2H 3H", "AH 2H JK", "2S 2H 2D", "5H JK 2C", "5H 6S 7H", "5H 5S 6H", "3H 7H JK",
    "3H 5H 7H JK", "5H 6H JK JK", "5H 6H 2S 2D", "5H 6H",
]


def _median_per_call(fn, items, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        for item in items:
            fn(item)
        samples.append((time.process_time() - start) / len(items))
    return statistics.median(samples)


def bench_check_meld(repeats: int = 300) -> float:
    corpus = [parse_cards(text) for text in MELD_CORPUS]
    ruleset = Ruleset.preset("classico")

    def one(cards):
        try:
            check_meld(cards, ruleset)
        except IllegalMove:
            pass

    return _median_per_call(one, corpus, repeats) * 1e6


def play_viewed_hand(seed: int) -> Game:
    g = Game.new(Ruleset.preset("classico", players=2), rng=random.Random(seed))
    rng = random.Random(seed + 1)
    while not g.hand_over:
        seat = g.to_move
        g.apply(seat, random_action(g, seat, rng))
        g.view(0)
        g.view(1)
    return g


def bench_hands(hands: int) -> tuple[float, float, list[Game]]:
    times = []
    games = []
    start_all = time.process_time()
    for seed in range(hands):
        start = time.process_time()
        games.append(play_viewed_hand(seed))
        times.append(time.process_time() - start)
    total = time.process_time() - start_all
    return statistics.median(times) * 1e3, hands / total, games


def bench_round_trip(games: list[Game]) -> float:
    return _median_per_call(lambda g: Game.from_dict(g.to_dict()), games, 5) * 1e6


def run(hands: int = 300) -> dict:
    check_us = bench_check_meld()
    hand_ms, per_second, games = bench_hands(hands)
    return {
        "check_meld_us": round(check_us, 2),
        "random_hand_ms": round(hand_ms, 2),
        "hands_per_second": round(per_second, 1),
        "round_trip_us": round(bench_round_trip(games), 1),
        "actions_per_hand": round(statistics.median(len(g.actions) for g in games), 1),
        "hands": hands,
        "meld_corpus": len(MELD_CORPUS),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark the Burraco engine.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hands", type=int, default=300, help="random hands to play")
    args = parser.parse_args(argv)
    result = run(args.hands)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>18}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
