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

What decides a match is points, not hands won: the summary leads with the margin, side A's
points minus side B's per hand, and ``matches=N`` also plays real matches to 2005 to the end
(:func:`run_matches`: A's match win rate). Each hand's record (:func:`hand_record`: piles and
cards taken, burraco, who closed, the points conceded when not closing) is summarised per side,
and stuck hands are counted in every run.

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
    records: list[dict[str, Any]] = field(default_factory=list)  # `hand_record` of each hand

    def add(self, diff: int, hand: HandResult | None = None) -> None:
        self.games += 1
        self.diffs.append(diff)
        if hand is not None:
            self.records.append(hand_record(hand.game, hand.a_side))
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
        margin = round(statistics.fmean(self.diffs), 1) if self.diffs else None
        return {
            # What decides a match first: side A's points minus side B's, per hand.
            "margin_per_hand": margin,
            "margin_per_hand_ci95": diff_ci,
            "margin_interval_over": "duplicate pairs" if duplicate else "hands",
            "a": level_a,
            "b": level_b,
            "games": self.games,
            "wins_a": self.wins_a,
            "wins_b": self.wins_b,
            "draws": self.draws,
            "stuck": self.stuck,
            "win_rate_a": round(self.wins_a / self.games, 4) if self.games else None,
            "win_rate_a_ci95": wilson(won, self.games),
            "mean_score_diff": margin,
            "mean_score_diff_ci95": diff_ci,
            "duplicate": duplicate,
            "duplicate_pairs": pairs,
            "decision_ms_a": _quantiles(self.ms_a),
            "decision_ms_b": _quantiles(self.ms_b),
            "digest": self.digest.hexdigest()[:16],
            "lost_hands": {who: dict(counts.most_common()) for who, counts in self.lost.items()},
            "per_hand": summarise_records(self.records),
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


def hand_record(game: Game, a_side: int) -> dict[str, Any]:
    """What happened in one hand, each figure as [side A, side B]: piles taken and the cards
    they held, burraco on the table, points; who closed ("a", "b" or None); whether it was stuck.

    >>> g = Game.setup(Ruleset.preset("classico"), hands=["7H 8H 9H KD", "5S 5D QS"],
    ...                stock="QC TS 4C 5C 6C", discard="QD", to_move=0)
    >>> for a in ({"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "take_discards"}):
    ...     g.apply(g.to_move, a)
    >>> r = hand_record(g, 1)
    >>> r["piles"], r["pile_cards"], r["closed"], r["stuck"]
    ([1, 0], [2, 0], None, True)
    """
    piles = [0, 0]
    cards = [0, 0]
    for entry in game.public_record():
        if entry["type"] == "take_discards":
            piles[entry["seat"] % 2] += 1
            cards[entry["seat"] % 2] += len(entry["cards"])
    score = game.score()
    order = (a_side, 1 - a_side)
    closed = None if game.closed_by is None else ("a" if game.closed_by % 2 == a_side else "b")
    return {"piles": [piles[s] for s in order], "pile_cards": [cards[s] for s in order],
            "burraco": [sum(1 for m in game.table[s] if m.burraco) for s in order],
            "points": [score[s]["total"] for s in order], "closed": closed,
            "stuck": not game.hand_over, "actions": len(game.actions)}


def summarise_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per side, means per hand of :func:`hand_record`: piles and pile cards taken, burraco made,
    the share of hands it closed, its points, and, over the hands it did not close, its points
    and the other side's (the points a side concedes when it is not first out).

    >>> one = {"piles": [2, 0], "pile_cards": [9, 0], "burraco": [1, 0], "points": [400, -50],
    ...        "closed": "a", "stuck": False, "actions": 80}
    >>> two = {"piles": [1, 3], "pile_cards": [1, 20], "burraco": [0, 2], "points": [-80, 700],
    ...        "closed": "b", "stuck": False, "actions": 120}
    >>> s = summarise_records([one, two])
    >>> s["a"]["piles"], s["a"]["pile_cards"], s["a"]["closed"], s["a"]["points_when_not_closing"]
    (1.5, 5.0, 0.5, -80.0)
    >>> s["a"]["their_points_when_not_closing"], s["hands"], s["stuck"], s["actions_max"]
    (700.0, 2, 0, 120)
    """
    def mean(values: list[float]) -> float | None:
        return round(statistics.fmean(values), 2) if values else None

    out: dict[str, Any] = {"hands": len(records), "stuck": sum(r["stuck"] for r in records),
                           "actions_max": max((r["actions"] for r in records), default=None)}
    for i, who in enumerate(("a", "b")):
        open_hands = [r for r in records if r["closed"] != who]
        out[who] = {
            "piles": mean([r["piles"][i] for r in records]),
            "pile_cards": mean([r["pile_cards"][i] for r in records]),
            "burraco": mean([r["burraco"][i] for r in records]),
            "closed": mean([r["closed"] == who for r in records]),
            "points": mean([r["points"][i] for r in records]),
            "points_when_not_closing": mean([r["points"][i] for r in open_hands]),
            "their_points_when_not_closing": mean([r["points"][1 - i] for r in open_hands]),
        }
    return out


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
    return _play_out(game, level_a, level_b, a_side=a_side, bot_rng=bot_rng, tally=tally,
                     budget_seconds=budget_seconds, worlds=worlds, auditor=auditor, memory=memory)


def _play_out(game: Game, level_a: str, level_b: str, *, a_side: int, bot_rng: random.Random,
              tally: Tally | None, budget_seconds: float | None, worlds: int | None,
              auditor: Auditor | None, memory: str) -> HandResult:
    """Play `game`'s hand to its end (or MAX_ACTIONS) with the levels at their seats."""
    players = game.players
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
        # Every level gets the public record, as at the site (the guard against endless hands
        # reads it); esperto remembers with it only where `memory` says so.
        action = choose_action(view, levels[seat], bot_rng, budget_seconds=budget_seconds, worlds=worlds,
                               record=game.public_record(), remember=remembers[seat])
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


MATCH_TARGET = 2005
MAX_MATCH_HANDS = 60  # a match to 2005 still running after this many hands is stopped, unfinished


@dataclass
class MatchResult:
    """One match to :data:`MATCH_TARGET`: side A's total minus side B's, the winner ("a", "b",
    or None when it was stopped: a stuck hand, or :data:`MAX_MATCH_HANDS`), the hands played."""

    margin: int
    winner: str | None
    hands: int


def play_match(level_a: str, level_b: str, *, a_side: int, deal_seed: int, bot_seed: int,
               preset: str = "classico", players: int = 2, tally: Tally | None = None,
               budget_seconds: float | None = None, worlds: int | None = None, memory: str = "both",
               target: int = MATCH_TARGET) -> MatchResult:
    """A real match, hand after hand until a side passes `target` (RULES §10). Hand k's deal
    comes from `deal_seed` alone, so the same seeds with the sides swapped deal the same cards
    hand for hand (as long as both matches last). Each hand goes into `tally`."""
    ruleset = Ruleset.preset(preset, players=players, target=target)
    deals = random.Random(deal_seed)
    bot_rng = random.Random(bot_seed)
    game = Game.new(ruleset, rng=random.Random(deals.getrandbits(64)))
    totals = (0, 0)
    for played in range(1, MAX_MATCH_HANDS + 1):
        hand = _play_out(game, level_a, level_b, a_side=a_side, bot_rng=bot_rng, tally=tally,
                         budget_seconds=budget_seconds, worlds=worlds, auditor=None, memory=memory)
        if tally is not None:
            tally.add(hand.diff, hand)
        if hand.stuck:
            break
        match = game.match
        totals = match.totals
        if match.finished:
            winner = None if match.winner is None else ("a" if match.winner == a_side else "b")
            return MatchResult(totals[a_side] - totals[1 - a_side], winner, played)
        game = game.next_hand(random.Random(deals.getrandbits(64)))
    return MatchResult(totals[a_side] - totals[1 - a_side], None, played)


def run_matches(level_a: str, level_b: str, *, matches: int, seed: int, preset: str = "classico",
                players: int = 2, duplicate: bool = False, budget_seconds: float | None = None,
                worlds: int | None = None, memory: str = "both") -> dict[str, Any]:
    """Play `matches` matches to 2005 to the end; with `duplicate` (an even number) each pair of
    matches has the same deals with the sides swapped. A's match win rate with its Wilson
    interval (an unfinished match counts half), the mean final margin (over pairs when
    duplicated), and the hands they were made of, summarised as in :func:`run`."""
    if duplicate and matches % 2:
        raise ValueError("duplicate matches come in pairs: give an even number")
    rng = random.Random(seed)
    tally = Tally()
    results: list[MatchResult] = []
    while len(results) < matches:
        deal_seed, bot_seed = rng.getrandbits(64), rng.getrandbits(64)
        for a_side in ((0, 1) if duplicate else (len(results) % 2,)):
            results.append(play_match(level_a, level_b, a_side=a_side, deal_seed=deal_seed,
                                      bot_seed=bot_seed, preset=preset, players=players, tally=tally,
                                      budget_seconds=budget_seconds, worlds=worlds, memory=memory))
    return summarise_matches(results, duplicate=duplicate) | {
        "hands": tally.summary(level_a, level_b, seed=seed, preset=preset, players=players, memory=memory)}


def summarise_matches(results: list[MatchResult], *, duplicate: bool) -> dict[str, Any]:
    """Matches won by each side, A's win rate (an unfinished match counts half) with its 95 %
    Wilson interval, and the mean margin with its 95 % interval (over pairs when duplicated).

    >>> r = summarise_matches([MatchResult(500, "a", 7), MatchResult(-100, "b", 9),
    ...                        MatchResult(300, "a", 8), MatchResult(900, "a", 6)], duplicate=True)
    >>> r["won_a"], r["won_b"], r["unfinished"], r["win_rate_a"], r["margin"], r["margin_ci95"]  # pairs: 200, 600
    (3, 1, 0, 0.75, 400.0, [8.0, 792.0])
    """
    n = len(results)
    won_a = sum(r.winner == "a" for r in results)
    won_b = sum(r.winner == "b" for r in results)
    unfinished = n - won_a - won_b
    margins = [float(r.margin) for r in results]
    samples = ([(x + y) / 2 for x, y in zip(margins[::2], margins[1::2], strict=True)]
               if duplicate else margins)
    return {"matches": n, "target": MATCH_TARGET, "won_a": won_a, "won_b": won_b,
            "unfinished": unfinished,
            "win_rate_a": round((won_a + unfinished / 2) / n, 4) if n else None,
            "win_rate_a_ci95": wilson(won_a + unfinished / 2, n),
            "margin": round(statistics.fmean(margins), 1) if margins else None,
            "margin_ci95": mean_interval(samples),
            "hands_per_match": round(statistics.fmean(r.hands for r in results), 2) if results else None,
            "duplicate": duplicate}


def run(level_a: str, level_b: str, *, games: int, seed: int, preset: str = "classico", players: int = 2,
        budget_seconds: float | None = None, worlds: int | None = None, duplicate: bool = False,
        audit: bool = False, memory: str = "both", matches: int = 0) -> dict[str, Any]:
    """Play `games` hands and summarise them (one JSON-ready dict); with `matches`, also that
    many real matches to 2005 (:func:`run_matches`, seats swapped in pairs when `duplicate`),
    under the key ``matches``."""
    tally = Tally()
    auditor = Auditor() if audit else None
    for hand in hands(level_a, level_b, games=games, seed=seed, preset=preset, players=players,
                      duplicate=duplicate, tally=tally, auditor=auditor,
                      budget_seconds=budget_seconds, worlds=worlds, memory=memory):
        tally.add(hand.diff, hand)
    extra: dict[str, Any] = {"seed": seed, "preset": preset, "players": players, "memory": memory}
    if auditor is not None:
        extra["audit"] = auditor.summary()
    if matches:
        extra["matches"] = run_matches(level_a, level_b, matches=matches, seed=seed, preset=preset,
                                       players=players, duplicate=duplicate,
                                       budget_seconds=budget_seconds, worlds=worlds, memory=memory)
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
        f"margin (A-B) per hand {result['mean_score_diff']} [95 % {dci[0]}, {dci[1]}] "
        f"(interval over {result.get('margin_interval_over', 'hands')})",
    ]
    m = result.get("matches")
    if m:
        mci = m["win_rate_a_ci95"] or [None, None]
        gci = m["margin_ci95"] or [None, None]
        lines.append(f"matches to {m['target']}: {m['matches']}, A won {m['won_a']}, B won {m['won_b']}, "
                     f"unfinished {m['unfinished']}: A match win rate {_pct(m['win_rate_a'])} % "
                     f"[95 % {_pct(mci[0])}, {_pct(mci[1])}], final margin {m['margin']} "
                     f"[95 % {gci[0]}, {gci[1]}], {m['hands_per_match']} hands a match, "
                     f"per hand {m['hands']['mean_score_diff']}, stuck hands {m['hands']['stuck']}")
    per = result.get("per_hand")
    if per and per["hands"]:
        for who, level in (("a", a), ("b", b)):
            r = per[who]
            lines.append(f"{who.upper()} ({level}) per hand: piles {r['piles']} ({r['pile_cards']} cards), "
                         f"burraco {r['burraco']}, closed {_pct(r['closed'])} %, points {r['points']}; "
                         f"not closing: {r['points_when_not_closing']} against "
                         f"{r['their_points_when_not_closing']}")
    lines += [
        f"A won {result['wins_a']}, B won {result['wins_b']}, drawn {result['draws']}: "
        f"A win rate {_pct(result['win_rate_a'])} % [95 % {_pct(ci[0])}, {_pct(ci[1])}]",
    ]
    if result.get("duplicate_pairs"):
        p = result["duplicate_pairs"]
        lines.append(f"pairs: {p['pairs']}, A won both {p['a_won_both']}, split {p['split']}, "
                     f"B won both {p['b_won_both']}")
    ma, mb = result["decision_ms_a"], result["decision_ms_b"]
    lines.append(f"decision ms A median {ma['median']} p99 {ma['p99']} max {ma['max']}; "
                 f"B median {mb['median']} p99 {mb['p99']} max {mb['max']}")
    lines.append(f"{'STUCK' if result['stuck'] else 'stuck'} hands (stopped after {MAX_ACTIONS} actions, "
                 f"scored as they stood): {result['stuck']}")
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
