"""A quick A/B probe (issue 31, third session): medio with some of its weights changed, against
a level, on duplicate hands; one JSON line with the margin a hand and its 95 % interval over
the pairs, burraco, piles and pile cards a hand, share closed and the mean score parts a hand
(medio first).

    PYTHONHASHSEED=0 nice -n 19 .venv/bin/python docs/bench/scripts/medio_variant.py \\
        take_on_copy=0 sparring 200 11

The variant is `base` (medio as it is) or `name=value` pairs of `strategy.Params` joined by `+`.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import games.bots as bots  # noqa: E402
from games.bots import strategy  # noqa: E402
from games.bots.lab import tournament  # noqa: E402


def apply(name: str) -> None:
    params = strategy.MEDIO
    for part in name.split("+"):
        if part == "base":
            continue
        key, value = part.split("=")
        kind = type(getattr(params, key))
        params = dataclasses.replace(params, **{key: bool(int(value)) if kind is bool else kind(float(value))})
    bots.MEDIO = params  # what `choose_action` gives medio with the record


def main() -> None:
    variant, other, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    apply(variant)
    start = time.process_time()
    records, pairs, pair, parts = [], [], [], {}
    for hand in tournament.hands("medio", other, games=games, seed=seed, duplicate=True):
        records.append(tournament.hand_record(hand.game, hand.a_side))
        score = hand.game.score()
        for key in ("melds", "burraco", "closing", "hand", "pozzetto"):
            totals = parts.setdefault(key, [0, 0])
            totals[0] += score[hand.a_side][key]
            totals[1] += score[1 - hand.a_side][key]
        pair.append(hand.diff)
        if len(pair) == 2:
            pairs.append(sum(pair) / 2)
            pair = []
    mean = statistics.fmean(pairs)
    half = 1.96 * statistics.stdev(pairs) / len(pairs) ** 0.5
    s = tournament.summarise_records(records)
    print(json.dumps({
        "variant": variant, "opp": other, "games": games, "seed": seed, "margin": round(mean, 1),
        "ci": [round(mean - half, 1), round(mean + half, 1)],
        **{k: [s["a"][k], s["b"][k]] for k in ("burraco", "piles", "pile_cards", "closed", "points")},
        "parts": {k: [round(v[0] / games, 1), round(v[1] / games, 1)] for k, v in parts.items()},
        "cpu_s": round(time.process_time() - start, 1)}), flush=True)


if __name__ == "__main__":
    main()
