"""A tuning run, never part of the site: search medio's weights (`strategy.Params`) for the set
that beats principiante most often, on duplicate deals of 2 and 4 players.

Seven sessions tried medio's variants one at a time by hand; this searches all the weights at
once. Each generation draws fresh deals, plays the incumbent and `--children` perturbations of
it on the very same deals (common random numbers: the luck of the deal cancels in the
comparison), and races the best child against the incumbent on as many new deals again; the
child replaces the incumbent only if it wins that second race too, so a lucky first race (the
best of several noisy scores) is not taken for progress. Every evaluation is logged to
`--log` as one JSON line.

    PYTHONHASHSEED=0 .venv/bin/python docs/bench/scripts/tune_medio.py --minutes 80 \\
        --hands 600 --children 6 --seed 20261204 --log /tmp/tune.jsonl

The weights found are printed as Python (`Params(...)`) and in the log's last line.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.bots import strategy  # noqa: E402
from games.bots.lab import tournament  # noqa: E402

# name: (scale of one step, lower bound, upper bound); integers are rounded when played.
SPACE: dict[str, tuple[float, float, float]] = {
    "take_pile_min_gain": (8.0, -20.0, 80.0),
    "pile_card_cost": (1.5, -5.0, 12.0),
    "pile_card_cost_late": (2.0, -5.0, 20.0),
    "pile_card_cost_closing": (3.0, -5.0, 30.0),
    "pile_card_cost_building": (2.0, -10.0, 10.0),
    "wild_in_pile": (8.0, 0.0, 80.0),
    "dirty_meld_cost": (6.0, -20.0, 60.0),
    "danger_lay_off": (10.0, 0.0, 100.0),
    "keep_pair": (3.0, 0.0, 40.0),
    "keep_near1": (3.0, 0.0, 40.0),
    "keep_near2": (2.0, 0.0, 30.0),
    "shed_points": (0.15, 0.0, 2.0),
    "pile_same_rank": (3.0, -10.0, 30.0),
    "pile_near1": (2.0, -10.0, 20.0),
    "pile_near2": (1.5, -10.0, 20.0),
    "sequence_bonus": (4.0, -20.0, 40.0),
    "value_lay_off": (3.0, -5.0, 30.0),
    "value_meld_card": (3.0, -5.0, 30.0),
    "value_wild": (6.0, 0.0, 80.0),
    "value_pair": (1.5, 0.0, 20.0),
    "value_near1": (1.5, 0.0, 20.0),
    "value_near2": (1.0, 0.0, 20.0),
    "play_lay_off": (10.0, 0.0, 150.0),
    "play_chain_card": (3.0, 0.0, 30.0),
    "play_wild_lay_off": (10.0, -50.0, 150.0),
    "play_meld": (10.0, -30.0, 120.0),
    "play_meld_card": (3.0, 0.0, 30.0),
    "play_diretta": (30.0, 0.0, 300.0),
    "race_hand": (1.0, 3.0, 11.0),
    "early_draws": (4.0, 0.0, 40.0),
    "lone_wild_hand": (1.0, 2.0, 7.0),
    "threat_hand": (1.0, 1.0, 8.0),
}
INTEGERS = {f.name for f in dataclasses.fields(strategy.Params) if f.type in ("int", int)}


def params_of(values: dict[str, float]) -> strategy.Params:
    played = {k: (int(round(v)) if k in INTEGERS else round(v, 3)) for k, v in values.items()}
    return dataclasses.replace(strategy.DEFAULT, **played)


def _play(job: tuple[dict[str, float], int, int, int]) -> tuple[float, int, float]:
    """One chunk: `hands` duplicate hands of medio (with these weights) against principiante."""
    values, seed, players, hands = job
    params = params_of(values)
    strategy.greedy_action = functools.partial(_greedy, params=params)
    won = 0.0
    diff = 0.0
    for hand in tournament.hands("medio", "principiante", games=hands, seed=seed, players=players,
                                 duplicate=True):
        won += 1.0 if hand.diff > 0 else 0.5 if hand.diff == 0 else 0.0
        diff += hand.diff
    return won, hands, diff


_REAL_GREEDY = strategy.greedy_action


def _greedy(g, seat, rng=None, params=strategy.DEFAULT):
    return _REAL_GREEDY(g, seat, rng, params)


def evaluate(pool, candidates: list[dict[str, float]], seed: int, hands: int, chunk: int = 50) -> list[dict]:
    """Each candidate on the same deals: half of them 2 players, half 4."""
    jobs = []
    owners = []
    rng = random.Random(seed)
    chunks = []
    for players in (2, 4):
        for _ in range(max(1, hands // 2 // chunk)):
            chunks.append((rng.getrandbits(48), players))
    for i, values in enumerate(candidates):
        for chunk_seed, players in chunks:
            jobs.append((values, chunk_seed, players, chunk))
            owners.append(i)
    out = [{"won": 0.0, "hands": 0, "diff": 0.0} for _ in candidates]
    for owner, (won, n, diff) in zip(owners, pool.imap(_play, jobs), strict=True):
        out[owner]["won"] += won
        out[owner]["hands"] += n
        out[owner]["diff"] += diff
    for o in out:
        o["rate"] = o["won"] / o["hands"]
        o["mean_diff"] = o["diff"] / o["hands"]
    return out


def perturb(values: dict[str, float], rng: random.Random, sigma: float, share: float) -> dict[str, float]:
    """A child: a random `share` of the weights moved by a normal step of `sigma` scales."""
    child = dict(values)
    names = [n for n in SPACE if rng.random() < share] or [rng.choice(list(SPACE))]
    for name in names:
        scale, low, high = SPACE[name]
        child[name] = min(high, max(low, child[name] + rng.gauss(0.0, sigma) * scale))
    return child


def score(result: dict) -> float:
    """Wins first; the mean score difference only breaks near-ties (1 win in 1,000 ~ 50 points)."""
    return result["rate"] + result["mean_diff"] / 50_000


def gradient_run(pool, args, rng: random.Random, centre: dict[str, float], log) -> None:
    """Antithetic sampling around `centre`, which never moves: each pair plays centre + step and
    centre - step (every weight moved by a normal step of `sigma` scales) on the same deals.
    Half their difference, regressed on the steps once the run ends (`--analyse`), estimates
    how each weight moves the win rate; the even-order terms (the harm of any large move)
    cancel in the difference."""
    deadline = time.monotonic() + 60 * args.minutes
    generation = 0
    names = list(SPACE)
    while time.monotonic() < deadline:
        generation += 1
        steps = [{n: rng.gauss(0.0, args.sigma) for n in names} for _ in range(args.children)]
        candidates = []
        for step in steps:
            for sign in (1, -1):
                child = {}
                for n in names:
                    scale, low, high = SPACE[n]
                    child[n] = min(high, max(low, centre[n] + sign * step[n] * scale))
                candidates.append(child)
        results = evaluate(pool, candidates, rng.getrandbits(48), args.hands)
        for k, step in enumerate(steps):
            plus, minus = results[2 * k], results[2 * k + 1]
            entry = {"generation": generation, "step": {n: round(v, 4) for n, v in step.items()},
                     "plus": plus, "minus": minus}
            log.write(json.dumps(entry) + "\n")
        log.flush()
        print(json.dumps({"generation": generation,
                          "pairs": [[round(results[i]["rate"], 4), round(results[i + 1]["rate"], 4)]
                                    for i in range(0, len(results), 2)],
                          "elapsed_min": round(args.minutes - (deadline - time.monotonic()) / 60, 1)}),
              flush=True)


def analyse(path: str, ridge: float = 1.0) -> dict[str, float]:
    """Least squares (with a small ridge) of half the pairs' differences in win rate on their
    steps: the estimated change of the win rate, in points, for one scale up of each weight,
    with its standard error."""
    rows = [json.loads(line) for line in open(path) if '"step"' in line]
    names = list(SPACE)
    X = [[r["step"][n] for n in names] for r in rows]
    y = [(r["plus"]["rate"] - r["minus"]["rate"]) / 2 * 100 for r in rows]
    d = len(names)
    A = [[sum(x[i] * x[j] for x in X) + (ridge if i == j else 0.0) for j in range(d)] for i in range(d)]
    inverse = _inverse(A)
    xty = [sum(x[i] * v for x, v in zip(X, y, strict=True)) for i in range(d)]
    coef = [sum(inverse[i][j] * xty[j] for j in range(d)) for i in range(d)]
    resid = [v - sum(c * xi for c, xi in zip(coef, x, strict=True)) for x, v in zip(X, y, strict=True)]
    s2 = sum(r * r for r in resid) / max(1, len(y) - d)
    se = [math.sqrt(s2 * inverse[i][i]) for i in range(d)]
    out = {n: (round(c, 3), round(e, 3)) for n, c, e in zip(names, coef, se, strict=True)}
    print(json.dumps({"pairs": len(rows), "residual_sd_points": round(s2 ** 0.5, 3)}))
    for n, (c, e) in sorted(out.items(), key=lambda kv: -abs(kv[1][0] / kv[1][1])):
        print(f"{n:26} {c:+.3f} ± {e:.3f}  (t {c / e:+.1f})")
    return {n: c for n, (c, e) in out.items()}


def _inverse(a: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse of a small symmetric positive definite matrix."""
    n = len(a)
    m = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        p = m[col][col]
        m[col] = [v / p for v in m[col]]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col]
                m[r] = [v - f * w for v, w in zip(m[r], m[col], strict=True)]
    return [row[n:] for row in m]


def _outcomes(job: tuple[dict[str, float], int, int, int]) -> list[float]:
    values, seed, players, hands = job
    strategy.greedy_action = functools.partial(_greedy, params=params_of(values))
    return [1.0 if h.diff > 0 else 0.5 if h.diff == 0 else 0.0
            for h in tournament.hands("medio", "principiante", games=hands, seed=seed, players=players,
                                      duplicate=True)]


def compare(pool, weights: dict[str, float], seed: int, hands: int, chunk: int = 50) -> None:
    """The weights against medio's own (`strategy.DEFAULT`), each against principiante on the same
    duplicate deals, 2 and 4 players: win rates with 95 % intervals, and the hands only one of
    the two won (a sign test on those)."""
    base = {name: float(getattr(strategy.DEFAULT, name)) for name in SPACE}
    rng = random.Random(seed)
    for players in (2, 4):
        seeds = [rng.getrandbits(48) for _ in range(hands // chunk)]
        runs = []
        for values in (base, {**base, **weights}):
            runs.append([x for part in pool.imap(_outcomes, [(values, s, players, chunk) for s in seeds])
                         for x in part])
        only_new = sum(1 for a, b in zip(*runs, strict=True) if b > a)
        only_base = sum(1 for a, b in zip(*runs, strict=True) if a > b)
        n = only_new + only_base
        z = (only_new - only_base) / math.sqrt(n) if n else 0.0
        print(json.dumps({"players": players, "hands": len(runs[0]), "seed": seed,
                          "default": round(sum(runs[0]) / len(runs[0]), 4),
                          "default_ci95": tournament.wilson(sum(runs[0]), len(runs[0])),
                          "new": round(sum(runs[1]) / len(runs[1]), 4),
                          "new_ci95": tournament.wilson(sum(runs[1]), len(runs[1])),
                          "only_new_won": only_new, "only_default_won": only_base,
                          "sign_z": round(z, 2)}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compare", default=None, help="a JSON file of weights to play against medio's own")
    ap.add_argument("--mode", choices=("race", "gradient"), default="race")
    ap.add_argument("--analyse", default=None, help="print the regression of a gradient run's log")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--hands", type=int, default=600, help="hands per candidate per race")
    ap.add_argument("--children", type=int, default=6)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--log", default="tune.jsonl")
    ap.add_argument("--start", default=None, help="a JSON file of weights to start from")
    args = ap.parse_args()
    if args.analyse:
        analyse(args.analyse)
        return
    if args.compare:
        with multiprocessing.get_context("fork").Pool(args.processes) as pool:
            compare(pool, json.loads(Path(args.compare).read_text()), args.seed, args.hands)
        return
    rng = random.Random(args.seed)
    incumbent = {name: float(getattr(strategy.DEFAULT, name)) for name in SPACE}
    if args.start:
        incumbent.update(json.loads(Path(args.start).read_text()))
    deadline = time.monotonic() + 60 * args.minutes
    log = open(args.log, "a")
    generation = 0
    with multiprocessing.get_context("fork").Pool(args.processes) as pool:
        if args.mode == "gradient":
            gradient_run(pool, args, rng, incumbent, log)
            return
        while time.monotonic() < deadline:
            generation += 1
            children = [perturb(incumbent, rng, args.sigma, args.share) for _ in range(args.children)]
            race1 = evaluate(pool, [incumbent, *children], rng.getrandbits(48), args.hands)
            best = max(range(1, len(race1)), key=lambda i: score(race1[i]))
            entry = {"generation": generation, "race1": [round(score(r), 4) for r in race1],
                     "race1_rates": [round(r["rate"], 4) for r in race1], "best": best}
            if score(race1[best]) > score(race1[0]):
                race2 = evaluate(pool, [incumbent, children[best - 1]], rng.getrandbits(48), args.hands)
                entry["race2_rates"] = [round(r["rate"], 4) for r in race2]
                entry["race2"] = [round(score(r), 4) for r in race2]
                if score(race2[1]) > score(race2[0]):
                    incumbent = children[best - 1]
                    entry["accepted"] = True
            entry["incumbent"] = {k: round(v, 3) for k, v in incumbent.items()}
            entry["elapsed_min"] = round((time.monotonic() - deadline) / 60 + args.minutes, 1)
            log.write(json.dumps(entry) + "\n")
            log.flush()
            print(json.dumps({k: v for k, v in entry.items() if k != "incumbent"}), flush=True)
    changed = {k: v for k, v in incumbent.items() if not math.isclose(v, getattr(strategy.DEFAULT, k))}
    print("Params(" + ", ".join(f"{k}={v!r}" for k, v in dataclasses.asdict(params_of(changed)).items()
                                if k in changed) + ")")


if __name__ == "__main__":
    main()
