"""Computer against computer: whole hands, seats alternating, with decision times.

Used by `python manage.py bot_tournament` and by the tests. Each game is one hand of the chosen
preset (a single-hand match); in game *i* side A sits at the even seats when *i* is even and at
the odd seats otherwise, and the first player is drawn from the seeded rng, so a run is exactly
repeatable for a seed: the same games in every process, whatever PYTHONHASHSEED (the expert too
when it samples a fixed number of `worlds` instead of watching the clock). The summary's
`digest` fingerprints every deal and action played, so two runs can be compared at a glance.
Every action goes through `Game.apply`, like anyone's.

``duplicate=True`` plays every deal twice: the same cards, the same first player and the same
dice for the players, once with side A at the even seats and once at the odd seats, so the luck
of the deal falls on both sides alike and what is left is the difference between the players.
``audit=True`` has :class:`games.bots.lab.audit.Auditor` referee every action and count, per level,
the mistakes of issue 13. ``memory`` says which sides receive the hand's public record
(`Game.public_record`) beside their view: ``both`` (as at the site), ``a``, ``b`` or ``none``, so
that esperto with its memory can meet esperto without.

Each side's lost hands are counted by how far it had got and who closed (:func:`lost_hand`):
whether a level is too slow to its pozzetto, to its burraco or to its close.

Win rates come with a 95 % Wilson interval (a draw counts half); the mean score difference
with a 95 % normal interval, over pairs when the deals are duplicated (a pair's two hands are
not independent, the pairs are).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from games.bots import choose_action
from games.bots.lab.audit import CATEGORIES, INFO, Auditor
from games.engine import Game, Ruleset

MAX_ACTIONS = 3000
MEMORY = ("both", "a", "b", "none")


@dataclass
class Tally:
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    stuck: int = 0  # hands still running after MAX_ACTIONS: stopped and scored as they stood
    diffs: list[int] = field(default_factory=list)
    ms_a: list[float] = field(default_factory=list)
    ms_b: list[float] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)
    # How the hands each side lost ended: its standing and who closed (`lost_hand`), counted.
    lost: dict[str, Counter[str]] = field(default_factory=lambda: {"a": Counter(), "b": Counter()})

    def add(self, diff: int, hand: HandResult | None = None) -> None:
        self.games += 1
        self.diffs.append(diff)
        if diff > 0:
            self.wins_a += 1
        elif diff < 0:
            self.wins_b += 1
        else:
            self.draws += 1
        if hand is not None and diff:
            loser = "b" if diff > 0 else "a"
            side = hand.a_side if loser == "a" else 1 - hand.a_side
            self.lost[loser][lost_hand(hand.game, side)] += 1

    def summary(self, level_a: str, level_b: str, *, duplicate: bool = False, **extra: Any) -> dict[str, Any]:
        won = self.wins_a + self.draws / 2
        pairs = None
        if duplicate:
            both = [(self.diffs[i], self.diffs[i + 1]) for i in range(0, len(self.diffs) - 1, 2)]
            per_pair = [(x + y) / 2 for x, y in both]
            pairs = {"pairs": len(both),
                     "a_won_both": sum(1 for x, y in both if x > 0 and y > 0),
                     "b_won_both": sum(1 for x, y in both if x < 0 and y < 0)}
            pairs["split"] = len(both) - pairs["a_won_both"] - pairs["b_won_both"]
            diff_ci = mean_interval(per_pair)
        else:
            diff_ci = mean_interval([float(d) for d in self.diffs])
        return {
            "a": level_a,
            "b": level_b,
            "games": self.games,
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "draws": self.draws,
            "stuck": self.stuck,
            "win_rate_a": round(self.wins_a / self.games, 4) if self.games else None,
            "win_rate_a_ci95": wilson(won, self.games),
            "mean_score_diff": round(statistics.fmean(self.diffs), 1) if self.diffs else None,
            "mean_score_diff_ci95": diff_ci,
            "duplicate": duplicate,
            "duplicate_pairs": pairs,
            "decision_ms_a": _quantiles(self.ms_a),
            "decision_ms_b": _quantiles(self.ms_b),
            "digest": self.digest.hexdigest()[:16],
            "lost_hands": {who: dict(counts.most_common()) for who, counts in self.lost.items()},
            **extra,
        }


def wilson(successes: float, n: int, z: float = 1.96) -> list[float] | None:
    """The 95 % Wilson score interval of a proportion (successes may be fractional: a draw is a
    half).

    >>> wilson(90, 100)
    [0.8256, 0.9448]
    """
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def mean_interval(samples: list[float], z: float = 1.96) -> list[float] | None:
    """A normal 95 % interval of the mean of independent samples."""
    if len(samples) < 2:
        return None
    mean = statistics.fmean(samples)
    half = z * statistics.stdev(samples) / math.sqrt(len(samples))
    return [round(mean - half, 1), round(mean + half, 1)]


def _quantiles(samples: list[float]) -> dict[str, float | int | None]:
    if not samples:
        return {"median": None, "p99": None, "max": None, "decisions": 0}
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"median": round(statistics.median(ordered), 3), "p99": round(p99, 3),
            "max": round(ordered[-1], 3), "decisions": len(ordered)}


def lost_hand(game: Game, side: int) -> str:
    """How a hand that `side` lost ended, as "<standing>, <ending>": how far the side had got
    (``ready``: pozzetto taken and a burraco down, free to close; ``pozzetto``: taken, no
    burraco; ``burraco``: a burraco, the pozzetto still waiting; ``neither``) and who ended it
    (``they closed``, ``we closed`` (and still lost), ``no close``: the stock ran out, or a stuck
    hand was stopped).

    The losses of a strong level are mostly ``..., they closed``: which standing they caught it
    in says whether it was too slow to its pozzetto, to its burraco, or to its close.
    """
    pozzetto = game.pozzetto_state[side] != "available"
    burraco = game.has_burraco(side)
    standing = ("ready" if pozzetto and burraco else "pozzetto" if pozzetto
                else "burraco" if burraco else "neither")
    if game.closed_by is None:
        ending = "no close"
    else:
        ending = "we closed" if game.closed_by % 2 == side else "they closed"
    return f"{standing}, {ending}"


@dataclass
class HandResult:
    """One hand played: side A's score minus side B's, where A sat, the level at each seat, and
    the finished game."""

    diff: int
    a_side: int
    levels: list[str]
    game: Game
    stuck: bool = False


def play_hand(level_a: str, level_b: str, *, a_side: int, rng: random.Random, preset: str = "classico",
              players: int = 2, tally: Tally | None = None, budget_seconds: float | None = None,
              worlds: int | None = None, auditor: Auditor | None = None, memory: str = "both") -> HandResult:
    """Play one hand. Decision times and the hand's deal and actions (for the digest) go into
    `tally`; `auditor` referees every action. The deal and the players' dice come from `rng`
    (two hands given equal rngs get the same deal and the same dice). A hand still running
    after MAX_ACTIONS actions (the players pass the same cards round for ever) is stopped,
    scored as it stands and marked `stuck`: a bug of the players, counted, not hidden."""
    ruleset = Ruleset.preset(preset, players=players, target=None)
    game = Game.new(ruleset, rng=random.Random(rng.getrandbits(64)))
    bot_rng = random.Random(rng.getrandbits(64))
    levels = [level_a if seat % 2 == a_side else level_b for seat in range(players)]
    if memory not in MEMORY:
        raise ValueError(f"memory must be one of {MEMORY}")
    remembers = [memory in ("both", "a" if seat % 2 == a_side else "b") for seat in range(players)]
    if auditor is not None:
        auditor.start(game, levels)
    for _ in range(MAX_ACTIONS):
        if game.hand_over:
            break
        seat = game.to_move
        is_a = seat % 2 == a_side
        view = game.view(seat)
        start = time.perf_counter()
        record = game.public_record() if remembers[seat] and levels[seat] == "esperto" else None
        action = choose_action(view, levels[seat], bot_rng, budget_seconds=budget_seconds, worlds=worlds,
                               record=record)
        elapsed = (time.perf_counter() - start) * 1000
        if tally is not None:
            (tally.ms_a if is_a else tally.ms_b).append(elapsed)
        if auditor is not None:
            auditor.step(game, seat, action)  # applies it; a bot's illegal action raises
        else:
            game.apply(seat, action)  # a bot's illegal action is a bug: let it raise
    stuck = not game.hand_over
    if tally is not None:
        tally.stuck += stuck
        played = {"deal": game.deal, "actions": game.actions}
        tally.digest.update(json.dumps(played, sort_keys=True).encode())
    score = game.score()
    return HandResult(score[a_side]["total"] - score[1 - a_side]["total"], a_side, levels, game, stuck)


def hands(level_a: str, level_b: str, *, games: int, seed: int, preset: str = "classico",
          players: int = 2, duplicate: bool = False, tally: Tally | None = None,
          auditor: Auditor | None = None, budget_seconds: float | None = None,
          worlds: int | None = None, memory: str = "both") -> Iterator[HandResult]:
    """The hands of a run, one by one. With `duplicate`, `games` must be even: hands 2k and
    2k+1 are the same deal with side A at the even seats, then at the odd ones."""
    if duplicate and games % 2:
        raise ValueError("a duplicate run plays each deal twice: give an even number of games")
    rng = random.Random(seed)
    common: dict[str, Any] = dict(preset=preset, players=players, tally=tally, auditor=auditor,
                                  budget_seconds=budget_seconds, worlds=worlds, memory=memory)
    if not duplicate:
        for i in range(games):
            yield play_hand(level_a, level_b, a_side=i % 2, rng=rng, **common)
        return
    for _ in range(games // 2):
        deal_seed = rng.getrandbits(64)
        for a_side in (0, 1):
            yield play_hand(level_a, level_b, a_side=a_side, rng=random.Random(deal_seed), **common)


def run(level_a: str, level_b: str, *, games: int, seed: int, preset: str = "classico", players: int = 2,
        budget_seconds: float | None = None, worlds: int | None = None, duplicate: bool = False,
        audit: bool = False, memory: str = "both") -> dict[str, Any]:
    """Play `games` hands and summarise them (one JSON-ready dict)."""
    tally = Tally()
    auditor = Auditor() if audit else None
    for hand in hands(level_a, level_b, games=games, seed=seed, preset=preset, players=players,
                      duplicate=duplicate, tally=tally, auditor=auditor,
                      budget_seconds=budget_seconds, worlds=worlds, memory=memory):
        tally.add(hand.diff, hand)
    extra: dict[str, Any] = {"seed": seed, "preset": preset, "players": players, "memory": memory}
    if auditor is not None:
        extra["audit"] = auditor.summary()
    return tally.summary(level_a, level_b, duplicate=duplicate, **extra)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def report_text(result: dict[str, Any]) -> str:
    """The summary as a few lines of text and, with an audit, a table (per 100 hands)."""
    a, b = result["a"], result["b"]
    ci = result["win_rate_a_ci95"] or [None, None]
    dci = result["mean_score_diff_ci95"] or [None, None]
    lines = [
        f"{a} vs {b}, {result['players']} players, {result['preset']}, seed {result['seed']}, "
        f"memory {result.get('memory', 'both')}: "
        f"{result['games']} hands{' (duplicate deals)' if result['duplicate'] else ''}",
        f"A won {result['wins_a']}, B won {result['wins_b']}, drawn {result['draws']}: "
        f"A win rate {_pct(result['win_rate_a'])} % [95 % {_pct(ci[0])}, {_pct(ci[1])}]",
        f"mean score difference (A-B) {result['mean_score_diff']} [95 % {dci[0]}, {dci[1]}]",
    ]
    if result.get("duplicate_pairs"):
        p = result["duplicate_pairs"]
        lines.append(f"pairs: {p['pairs']}, A won both {p['a_won_both']}, split {p['split']}, "
                     f"B won both {p['b_won_both']}")
    ma, mb = result["decision_ms_a"], result["decision_ms_b"]
    lines.append(f"decision ms A median {ma['median']} p99 {ma['p99']} max {ma['max']}; "
                 f"B median {mb['median']} p99 {mb['p99']} max {mb['max']}")
    if result.get("stuck"):
        lines.append(f"STUCK hands (stopped after {MAX_ACTIONS} actions, scored as they stood): "
                     f"{result['stuck']}")
    for who, level in (("a", a), ("b", b)):
        lost = result.get("lost_hands", {}).get(who)
        if lost:
            lines.append(f"{who.upper()} ({level}) lost: " + "; ".join(f"{k} {v}" for k, v in lost.items()))
    lines.append(f"games digest {result['digest']}")
    audit = result.get("audit")
    if audit:
        levels = list(audit)
        width = max(len(n) for n in CATEGORIES) + 2
        lines += ["", "audit, per 100 hands of a side at that level (count in brackets)",
                  "".ljust(width) + "".join(f"{lv:>22}" for lv in levels),
                  "side hands".ljust(width) + "".join(f"{audit[lv]['side_hands']:>22}" for lv in levels)]
        for name in CATEGORIES:
            lines.append(name.ljust(width) + "".join(
                f"{audit[lv]['per_100_hands'][name]:>14} ({audit[lv]['counts'][name]:>5})" for lv in levels))
        for name in INFO:
            lines.append(name.ljust(width) + "".join(f"{audit[lv]['counts'][name]:>22}" for lv in levels))
    return "\n".join(lines)
