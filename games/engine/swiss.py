"""Swiss tournaments as plain data: match points, standings with tie-breaks, and the pairing of
a round. No Django here: the tournament services (games/services/tournaments.py) store what this
module computes, and the tests check it against a computation of their own.

An *entrant* is whatever plays one side of a table: one person (one against one) or a pair of
partners (four at the table). This module only sees an id and a rating (a pair's rating is the
mean of its two players', chosen by the caller).

Scoring (also shown on the rules page, in other words):

- every table is worth 20 match points, split by the point difference between the two sides
  (`SCALE`): a draw is 10-10, a win by 1-100 points 11-9, ... a win by more than 1500 20-0;
- a bye (an odd number of entrants: the one left out) counts `BYE_POINTS` match points and no
  point difference;
- a side that abandons its table forfeits it: 0 match points to it, 20 to the other side (the
  point difference is counted as it stood).

Standings (`standings`): match points, then Buchholz (the sum of the match points of the
opponents met, byes adding nothing), then the total point difference, then the rating at
registration, then the entrant id (earlier registration first).

Pairing (`pair_round`), Monrad style as in bridge and burraco clubs: entrants in order of match
points then rating; the first one not yet paired meets the next one down the list that it has
not met; when that leaves someone who cannot be paired, the search goes back and tries the next
opponent, so no two entrants meet twice whenever any pairing allows it. With an odd number the
bye goes to the lowest-placed entrant who has not had one (and, if the others cannot then be
paired, to the next one up).

>>> entrants = [Entrant(1, 1600), Entrant(2, 1500), Entrant(3, 1550), Entrant(4, 1400)]
>>> pair_round(entrants, [])
Pairing(tables=((1, 3), (2, 4)), bye=None)
>>> results = [Result(1, 1, 3, 820, 300), Result(1, 2, 4, 150, 150)]
>>> [(s.entrant, s.match_points) for s in standings(entrants, results)]
[(1, 15), (2, 10), (4, 10), (3, 5)]
>>> pair_round(entrants, results)
Pairing(tables=((1, 2), (4, 3)), bye=None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# (largest point difference of the band, the winner's match points); the loser has 20 minus that.
SCALE: tuple[tuple[int, int], ...] = (
    (0, 10), (100, 11), (200, 12), (300, 13), (450, 14), (600, 15), (800, 16), (1000, 17),
    (1250, 18), (1500, 19),
)
TABLE_POINTS = 20  # match points of one table, shared by its two sides
BYE_POINTS = 12


class NoPairing(ValueError):
    """No pairing of the round meets the rules (everybody left has met everybody, or the only
    entrants who could sit out have had their bye): the tournament ends before its last round."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One side of a table: `id` (a registration's id) and the rating it is paired by."""

    id: int
    rating: float = 1500.0


@dataclass(frozen=True, slots=True)
class Result:
    """One table of a round (`b` None: `a` had the bye). `forfeit` names the entrant who
    abandoned, if one did."""

    round: int
    a: int
    b: int | None
    score_a: int = 0
    score_b: int = 0
    forfeit: int | None = None


@dataclass(frozen=True, slots=True)
class Pairing:
    """The tables of a round, the higher-placed entrant first, and who sits out (or None)."""

    tables: tuple[tuple[int, int], ...]
    bye: int | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    entrant: int
    rank: int
    match_points: int
    buchholz: int
    difference: int
    rating: float
    played: int
    byes: int
    opponents: tuple[int, ...] = field(default=())


def match_points(difference: int) -> tuple[int, int]:
    """The match points of the two sides of a table whose scores differ by `difference` (the
    first side's score minus the second's).

    >>> match_points(0), match_points(100), match_points(101), match_points(-640)
    ((10, 10), (11, 9), (12, 8), (4, 16))
    >>> match_points(1500), match_points(1501)
    ((19, 1), (20, 0))
    """
    gap = abs(difference)
    winner = TABLE_POINTS
    for upper, points in SCALE:
        if gap <= upper:
            winner = points
            break
    return (winner, TABLE_POINTS - winner) if difference >= 0 else (TABLE_POINTS - winner, winner)


def result_points(result: Result) -> dict[int, int]:
    """Match points of each entrant of one result (a bye, a forfeit, or a table played out).

    >>> result_points(Result(1, 7, None)), result_points(Result(1, 7, 8, 900, 40, forfeit=7))
    ({7: 12}, {7: 0, 8: 20})
    """
    if result.b is None:
        return {result.a: BYE_POINTS}
    if result.forfeit is not None:
        loser = result.forfeit
        winner = result.b if loser == result.a else result.a
        return {loser: 0, winner: TABLE_POINTS}
    a, b = match_points(result.score_a - result.score_b)
    return {result.a: a, result.b: b}


def standings(entrants: Iterable[Entrant], results: Iterable[Result]) -> list[Standing]:
    """Everyone's standing after `results`, best first (see the module docstring for the order).
    Entrants with the same match points, Buchholz, difference and rating keep registration order
    (lower id first); `rank` counts from 1 and is the position in this list.

    >>> s = standings([Entrant(1), Entrant(2), Entrant(3)], [Result(1, 1, 2, 300, 0), Result(1, 3, None)])
    >>> [(x.entrant, x.match_points, x.buchholz, x.difference) for x in s]
    [(1, 13, 7, 300), (3, 12, 0, 0), (2, 7, 13, -300)]
    """
    entrants = list(entrants)
    points = {e.id: 0 for e in entrants}
    difference = {e.id: 0 for e in entrants}
    opponents: dict[int, list[int]] = {e.id: [] for e in entrants}
    byes = {e.id: 0 for e in entrants}
    results = list(results)
    for result in results:
        for entrant, value in result_points(result).items():
            points[entrant] += value
        if result.b is None:
            byes[result.a] += 1
            continue
        difference[result.a] += result.score_a - result.score_b
        difference[result.b] += result.score_b - result.score_a
        opponents[result.a].append(result.b)
        opponents[result.b].append(result.a)
    buchholz = {e.id: sum(points[o] for o in opponents[e.id]) for e in entrants}
    order = sorted(entrants, key=lambda e: (-points[e.id], -buchholz[e.id], -difference[e.id], -e.rating, e.id))
    return [
        Standing(entrant=e.id, rank=rank, match_points=points[e.id], buchholz=buchholz[e.id],
                 difference=difference[e.id], rating=e.rating, played=len(opponents[e.id]), byes=byes[e.id],
                 opponents=tuple(opponents[e.id]))
        for rank, e in enumerate(order, start=1)
    ]


def met(results: Iterable[Result]) -> set[frozenset[int]]:
    """Every pair of entrants that has already shared a table."""
    return {frozenset((r.a, r.b)) for r in results if r.b is not None}


def pairing_order(entrants: Iterable[Entrant], results: Iterable[Result],
                  points: Mapping[int, Any] | None = None) -> list[Entrant]:
    """The order entrants are paired in: match points (or `points`, a total per entrant of the
    caller's: a duplicate event's, games/engine/duplicate.py), then rating, then id (a standing,
    with the rating rather than the tie-breaks: early rounds are decided by strength, not luck).

    >>> [e.id for e in pairing_order([Entrant(1, 1400), Entrant(2, 1700)], [])]
    [2, 1]
    >>> [e.id for e in pairing_order([Entrant(1, 1400), Entrant(2, 1700)], [], points={1: 75.5, 2: 24.5})]
    [1, 2]
    """
    if points is None:
        points = {}
        for result in results:
            for entrant, value in result_points(result).items():
                points[entrant] = points.get(entrant, 0) + value
    return sorted(entrants, key=lambda e: (-points.get(e.id, 0), -e.rating, e.id))


def pair_round(entrants: Sequence[Entrant], results: Iterable[Result],
               points: Mapping[int, Any] | None = None) -> Pairing:
    """The next round for the entrants still playing (`entrants`; withdrawn ones left out by the
    caller), given every earlier result (withdrawn entrants' included); `points` as in
    `pairing_order`.

    Raises `NoPairing` when no pairing avoids a repeat (or a second bye).

    >>> pair_round([Entrant(1), Entrant(2), Entrant(3)], [Result(1, 1, 2, 10, 0), Result(1, 3, None)])
    Pairing(tables=((3, 1),), bye=2)
    >>> pair_round([Entrant(1), Entrant(2)], [Result(1, 1, 2)])
    Traceback (most recent call last):
    ...
    games.engine.swiss.NoPairing: no pairing without a repeat
    """
    results = list(results)
    order = [e.id for e in pairing_order(entrants, results, points)]
    if len(set(order)) != len(order):
        raise ValueError("an entrant is listed twice")
    seen = met(results)
    had_bye = {r.a for r in results if r.b is None}
    if len(order) < 2:
        raise NoPairing("fewer than two entrants")
    if len(order) % 2 == 0:
        tables = _pair(order, seen)
        if tables is None:
            raise NoPairing("no pairing without a repeat")
        return Pairing(tuple(tables), None)
    for candidate in reversed(order):
        if candidate in had_bye:
            continue
        tables = _pair([e for e in order if e != candidate], seen)
        if tables is not None:
            return Pairing(tuple(tables), candidate)
    raise NoPairing("no pairing without a repeat or a second bye")


def _pair(order: list[int], seen: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pairs of `order` (even length) with no pair in `seen`, top-down with backtracking, or None.
    Sets of entrants already proved unpairable are remembered, so the search stays small."""
    failed: set[frozenset[int]] = set()

    def search(left: tuple[int, ...]) -> list[tuple[int, int]] | None:
        if not left:
            return []
        key = frozenset(left)
        if key in failed:
            return None
        first, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            if frozenset((first, other)) in seen:
                continue
            found = search(rest[:i] + rest[i + 1:])
            if found is not None:
                return [(first, other), *found]
        failed.add(key)
        return None

    return search(tuple(order))
