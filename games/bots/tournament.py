"""Computer against computer: whole hands, seats alternating, with decision times.

Used by `python manage.py bot_tournament` and by the tests. Each game is one hand of the chosen
preset (a single-hand match); in game *i* side A sits at the even seats when *i* is even and at
the odd seats otherwise, and the first player is drawn from the seeded rng, so a run is exactly
repeatable for a seed: the same games in every process, whatever PYTHONHASHSEED (the expert too
when it samples a fixed number of `worlds` instead of watching the clock). The summary's
`digest` fingerprints every deal and action played, so two runs can be compared at a glance.
Every action goes through `Game.apply`, like anyone's.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from games.engine import Game, Ruleset

from . import choose_action

MAX_ACTIONS = 3000


@dataclass
class Tally:
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    diffs: list[int] = field(default_factory=list)
    ms_a: list[float] = field(default_factory=list)
    ms_b: list[float] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)

    def summary(self, level_a: str, level_b: str, **extra: Any) -> dict[str, Any]:
        return {
            "a": level_a,
            "b": level_b,
            "games": self.games,
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "draws": self.draws,
            "win_rate_a": round(self.wins_a / self.games, 4) if self.games else None,
            "mean_score_diff": round(statistics.fmean(self.diffs), 1) if self.diffs else None,
            "decision_ms_a": _quantiles(self.ms_a),
            "decision_ms_b": _quantiles(self.ms_b),
            "digest": self.digest.hexdigest()[:16],
            **extra,
        }


def _quantiles(samples: list[float]) -> dict[str, float | int | None]:
    if not samples:
        return {"median": None, "p99": None, "max": None, "decisions": 0}
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"median": round(statistics.median(ordered), 3), "p99": round(p99, 3),
            "max": round(ordered[-1], 3), "decisions": len(ordered)}


def play_hand(level_a: str, level_b: str, *, a_side: int, rng: random.Random, preset: str = "classico",
              players: int = 2, tally: Tally | None = None, budget_seconds: float | None = None,
              worlds: int | None = None) -> int:
    """Play one hand; return side A's score minus side B's. Decision times and the hand's deal
    and actions (for the digest) go into `tally`."""
    ruleset = Ruleset.preset(preset, players=players, target=None)
    game = Game.new(ruleset, rng=random.Random(rng.getrandbits(64)))
    bot_rng = random.Random(rng.getrandbits(64))
    for _ in range(MAX_ACTIONS):
        if game.hand_over:
            break
        seat = game.to_move
        is_a = seat % 2 == a_side
        level = level_a if is_a else level_b
        view = game.view(seat)
        start = time.perf_counter()
        action = choose_action(view, level, bot_rng, budget_seconds=budget_seconds, worlds=worlds)
        elapsed = (time.perf_counter() - start) * 1000
        if tally is not None:
            (tally.ms_a if is_a else tally.ms_b).append(elapsed)
        game.apply(seat, action)  # a bot's illegal action is a bug: let it raise
    else:
        raise RuntimeError("the hand did not end")
    if tally is not None:
        played = {"deal": game.deal, "actions": game.actions}
        tally.digest.update(json.dumps(played, sort_keys=True).encode())
    score = game.score()
    return score[a_side]["total"] - score[1 - a_side]["total"]


def run(level_a: str, level_b: str, *, games: int, seed: int, preset: str = "classico", players: int = 2,
        budget_seconds: float | None = None, worlds: int | None = None) -> dict[str, Any]:
    """Play `games` hands and summarise them (one JSON-ready dict)."""
    rng = random.Random(seed)
    tally = Tally()
    for i in range(games):
        diff = play_hand(level_a, level_b, a_side=i % 2, rng=rng, preset=preset, players=players,
                         tally=tally, budget_seconds=budget_seconds, worlds=worlds)
        tally.games += 1
        tally.diffs.append(diff)
        if diff > 0:
            tally.wins_a += 1
        elif diff < 0:
            tally.wins_b += 1
        else:
            tally.draws += 1
    return tally.summary(level_a, level_b, seed=seed, preset=preset, players=players)
