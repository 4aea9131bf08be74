"""`bot_tournament --json` in pieces: the same hands and matches, the summary rewritten as it goes.

A long measurement on a shared machine may be cut short by a deadline; this plays exactly the
hands (and then the matches to 2005) that `python manage.py bot_tournament --a A --b B --games N
--duplicate --matches M --seed S --json` plays, in the same order, and after every `--every`
hands (every duplicate pair of matches) writes the summary so far to `--out` with
``"complete": false``, so a run stopped at any moment leaves a whole prefix of duplicate pairs
measured. The last write says ``"complete": true``. Machine and load (`uptime`) are recorded at
the start and the end.

    nice -n 19 .venv/bin/python docs/bench/scripts/bot_pieces.py medio sparring --games 1000 \\
        --matches 40 --seed 31 --out docs/bench/2026-12-07-medio-vs-sparring.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.bots.lab.tournament import (  # noqa: E402
    Tally,
    hands,
    play_match,
    summarise_matches,
)


def machine() -> dict[str, str]:
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return {"uptime": uptime, "cpus": str(os.cpu_count()), "python": platform.python_version(),
            "machine": platform.machine()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=0)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--out", required=True)
    # The matches alone (the same as after the hands), so that hands and matches of one pairing
    # can run side by side as two processes when a deadline is near.
    parser.add_argument("--matches-only", action="store_true")
    args = parser.parse_args()
    out = Path(args.out)
    start = machine()
    command = " ".join(sys.argv)

    def write(result: dict, complete: bool) -> None:
        result |= {"complete": complete, "command": command, "seed": args.seed, "preset": "classico",
                   "players": 2, "machine_start": start}
        if complete:
            result["machine_end"] = machine()
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=1))
        tmp.replace(out)

    common = dict(budget_seconds=args.budget, worlds=args.worlds)
    tally = Tally()
    result: dict = {}
    games = 0 if args.matches_only else args.games
    for hand in hands(args.a, args.b, games=games, seed=args.seed, duplicate=True, tally=tally, **common):
        tally.add(hand.diff, hand)
        if tally.games % args.every == 0:
            result = tally.summary(args.a, args.b, duplicate=True) | {"diffs": tally.diffs}
            write(result, complete=False)
    result = {} if args.matches_only else tally.summary(args.a, args.b, duplicate=True) | {"diffs": tally.diffs}
    if args.matches:
        rng = random.Random(args.seed)  # as `run_matches`: the same matches as bot_tournament's
        match_tally = Tally()
        results = []
        while len(results) < args.matches:
            deal_seed, bot_seed = rng.getrandbits(64), rng.getrandbits(64)
            for a_side in (0, 1):
                results.append(play_match(args.a, args.b, a_side=a_side, deal_seed=deal_seed,
                                          bot_seed=bot_seed, tally=match_tally, **common))
            result["matches"] = summarise_matches(results, duplicate=True) | {
                "hands": match_tally.summary(args.a, args.b)}
            write(result, complete=len(results) >= args.matches)
    else:
        write(result, complete=True)


if __name__ == "__main__":
    main()
