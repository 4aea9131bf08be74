"""esperto with some of its settings changed, against a level, on duplicate hands (issue 31,
point 4): the tournament's JSON summary (`games.bots.lab.tournament`), rewritten after every
duplicate pair so that a run stopped at a deadline keeps a whole prefix of pairs.

    PYTHONHASHSEED=0 nice -n 19 .venv/bin/python docs/bench/scripts/esperto_variant.py \\
        base medio 40 41 --worlds 8 --out /tmp/x.json

The variant is `base` (esperto as it is) or `name=value` pairs joined by `+`, of:
`baseline=default|medio` (`expert.BASELINE_PARAMS`), `rollout=default|points|medio_quick`
(`expert.ROLLOUT_PARAMS`), `close_risk=0|1` (`expert.CLOSE_RISK_LEAF`), `margin=<points>`
(`expert.DEVIATION_MARGIN`), `draw_lookahead=0|1` (`expert.DRAW_LOOKAHEAD`: 0, the draw is
medio's), `draw_margin=<points>` (`expert.DRAW_DEVIATION_MARGIN`), `own_usable=0|1`
(`expert.OWN_TAKES_USABLE`). Without `--worlds` esperto plays at its real budget.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.bots import expert, strategy  # noqa: E402
from games.bots.lab import tournament  # noqa: E402

PARAMS = {
    "default": strategy.DEFAULT,
    "points": strategy.PLAYS_FOR_POINTS,
    "medio": strategy.MEDIO,
    # medio's weights with its quick pile rule (no judgement on a copy)
    "medio_quick": dataclasses.replace(strategy.MEDIO, take_on_copy=False),
}


def apply(variant: str) -> None:
    for part in variant.split("+"):
        if part == "base":
            continue
        key, value = part.split("=")
        if key == "baseline":
            expert.BASELINE_PARAMS = PARAMS[value]
        elif key == "rollout":
            expert.ROLLOUT_PARAMS = PARAMS[value]
        elif key == "close_risk":
            expert.CLOSE_RISK_LEAF = bool(int(value))
        elif key == "margin":
            expert.DEVIATION_MARGIN = float(value)
        elif key == "draw_lookahead":
            expert.DRAW_LOOKAHEAD = bool(int(value))
        elif key == "draw_margin":
            expert.DRAW_DEVIATION_MARGIN = float(value)
        elif key == "own_usable":
            expert.OWN_TAKES_USABLE = bool(int(value))
        else:
            raise SystemExit(f"unknown setting {key!r}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("variant")
    parser.add_argument("other")
    parser.add_argument("games", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    apply(args.variant)
    tally = tournament.Tally()
    start = time.time()
    cpu = time.process_time()
    for hand in tournament.hands("esperto", args.other, games=args.games, seed=args.seed,
                                 duplicate=True, tally=tally, worlds=args.worlds):
        tally.add(hand.diff, hand)
        if tally.games % 2 == 0:
            result = tally.summary("esperto", args.other, duplicate=True, seed=args.seed,
                                   variant=args.variant, worlds=args.worlds,
                                   wall_seconds=round(time.time() - start),
                                   cpu_seconds=round(time.process_time() - cpu),
                                   diffs=tally.diffs)
            Path(args.out).write_text(json.dumps(result))
            print(tally.games, result["margin_per_hand"], result["margin_per_hand_ci95"],
                  file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
