"""Duplicate Burraco scoring as plain data: every table of a round plays the same deals from the
same seats, so each result is measured against the others who held the same cards. No Django
here: the tournament services (games/services/tournaments.py) store the raw results of each deal,
and this module turns them into scores and standings (the rules page says the same in words).

A *result* is one deal at one table: the entrant at seats 0 (and 2), `a`, and the one at seats 1
(and 3), `b`, with each side's points in that hand. The *difference* of a side is its points minus
its opponents'. A side's difference is compared only with the differences of the same seats at the
other tables of the round for the same deal (the same cards):

- *match points* (``MATCH_POINTS``): 2 for every such result it beat, 1 for every tie, 0 for a
  result it lost to; the deal's score is that as a percentage of the most it could have made
  (two for each other table). A deal played at one table only scores 50;
- *victory points* (``VICTORY_POINTS``): the difference minus the average difference of those
  seats over all tables of the deal, turned into 0-20 victory points on the Swiss scale
  (`swiss.match_points`: within 100 of the average 11-9, more than 1500 above it 20-0, exactly
  on it 10-10). The two sides of a table always make 20.

A bye (an odd number of entrants) scores an average result on each deal of the round: 50 (match
points) or 10 (victory points). A side that abandons its table scores 0 on every deal of that
round and its opponents the most there is (100 or 20); that table's hands are left out of the
comparison for the others.

Standings: the sum of the deal scores, then the rating at registration, then the entrant id
(earlier registration first). The Swiss pairing of the next round orders entrants by that sum.

>>> results = [DealResult(1, 1, 10, a=1, b=2, score_a=400, score_b=100),
...            DealResult(1, 1, 11, a=3, b=4, score_a=250, score_b=150)]
>>> [(s.entrant, s.score) for s in deal_scores(results)]
[(1, Fraction(100, 1)), (2, Fraction(0, 1)), (3, Fraction(0, 1)), (4, Fraction(100, 1))]
>>> [(s.entrant, s.score) for s in deal_scores(results, VICTORY_POINTS)]
[(1, Fraction(11, 1)), (2, Fraction(9, 1)), (3, Fraction(9, 1)), (4, Fraction(11, 1))]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from .swiss import TABLE_POINTS, Entrant, match_points

MATCH_POINTS = "mp"
VICTORY_POINTS = "vp"
SCORINGS = (MATCH_POINTS, VICTORY_POINTS)
DEALS = (1, 2, 3, 4)  # the deals a round may have (each a single hand)
PER_BEATEN = 2  # match points for each result beaten
PER_TIE = 1
TOP = {MATCH_POINTS: Fraction(100), VICTORY_POINTS: Fraction(TABLE_POINTS)}
AVERAGE = {MATCH_POINTS: Fraction(50), VICTORY_POINTS: Fraction(TABLE_POINTS, 2)}


@dataclass(frozen=True, slots=True)
class DealResult:
    """Deal `deal` of round `round` at table `table`: `a` held seats 0 (and 2), `b` seats 1 (and
    3); `b` None is a bye of `a`. `forfeit` names the entrant who abandoned that table."""

    round: int
    deal: int
    table: int
    a: int
    b: int | None = None
    score_a: int = 0
    score_b: int = 0
    forfeit: int | None = None


@dataclass(frozen=True, slots=True)
class DealScore:
    """One entrant's score on one deal: its `difference` (its points minus its opponents'; 0 for
    a bye or a forfeit), the `score` (percentage or victory points) and, for match points, the
    match points made out of `top`."""

    round: int
    deal: int
    table: int
    entrant: int
    seats: int  # 0: seats 0 and 2; 1: seats 1 and 3
    difference: int
    score: Fraction
    match_points: int | None = None
    top: int | None = None


@dataclass(frozen=True, slots=True)
class DuplicateStanding:
    entrant: int
    rank: int
    total: Fraction
    deals: int  # deal scores counted (a bye's included)
    rating: float


def _compared(scoring: str, mine: int, others: list[int]) -> tuple[Fraction, int | None, int | None]:
    """The score of a difference `mine` against the `others` of the same seats and deal.

    >>> _compared(MATCH_POINTS, 300, [100, 300, 500])
    (Fraction(50, 1), 3, 6)
    >>> _compared(VICTORY_POINTS, 300, [100, 300, 500])  # on the average: 10
    (Fraction(10, 1), None, None)
    """
    if scoring == MATCH_POINTS:
        top = PER_BEATEN * len(others)
        if top == 0:
            return AVERAGE[MATCH_POINTS], 0, 0
        made = sum(PER_BEATEN if mine > other else PER_TIE if mine == other else 0 for other in others)
        return Fraction(100 * made, top), made, top
    average = Fraction(mine + sum(others), len(others) + 1)
    return Fraction(match_points(mine - average)[0]), None, None


def deal_scores(results: Iterable[DealResult], scoring: str = MATCH_POINTS) -> list[DealScore]:
    """Every entrant's score on every deal of `results`, in the order of the results (side `a`
    before side `b`). Raises ValueError for an unknown `scoring`.

    >>> r = [DealResult(1, 1, 10, 1, 2, 300, 300), DealResult(1, 1, 11, 3, 4, 90, 0), DealResult(1, 1, 0, 5)]
    >>> for s in deal_scores(r):
    ...     print(s.entrant, s.seats, s.difference, s.match_points, s.top, s.score)
    1 0 0 0 2 0
    2 1 0 2 2 100
    3 0 90 2 2 100
    4 1 -90 0 2 0
    5 0 0 None None 50
    """
    if scoring not in SCORINGS:
        raise ValueError(f"unknown scoring {scoring!r}")
    results = list(results)
    played: dict[tuple[int, int], list[DealResult]] = {}
    for r in results:
        if r.b is not None and r.forfeit is None:
            played.setdefault((r.round, r.deal), []).append(r)
    out: list[DealScore] = []
    for r in results:
        if r.b is None:
            out.append(DealScore(r.round, r.deal, r.table, r.a, 0, 0, AVERAGE[scoring]))
            continue
        if r.forfeit is not None:
            for entrant, seats in ((r.a, 0), (r.b, 1)):
                out.append(DealScore(r.round, r.deal, r.table, entrant, seats, 0,
                                     Fraction(0) if entrant == r.forfeit else TOP[scoring]))
            continue
        others = [o for o in played[(r.round, r.deal)] if o is not r]
        mine = r.score_a - r.score_b
        for entrant, seats, sign in ((r.a, 0, 1), (r.b, 1, -1)):
            score, made, top = _compared(scoring, sign * mine, [sign * (o.score_a - o.score_b) for o in others])
            out.append(DealScore(r.round, r.deal, r.table, entrant, seats, sign * mine, score, made, top))
    return out


def totals(scores: Iterable[DealScore]) -> dict[int, Fraction]:
    """Each entrant's sum of deal scores (what the standings and the next pairing read)."""
    out: dict[int, Fraction] = {}
    for s in scores:
        out[s.entrant] = out.get(s.entrant, Fraction(0)) + s.score
    return out


def standings(entrants: Iterable[Entrant], results: Iterable[DealResult],
              scoring: str = MATCH_POINTS) -> list[DuplicateStanding]:
    """Everyone's standing after `results`, best first: total, then rating, then id.

    >>> results = [DealResult(1, d, t, a, b, sa, sb) for d, t, a, b, sa, sb in
    ...            [(1, 10, 1, 2, 500, 0), (1, 11, 3, 4, 100, 0), (2, 10, 1, 2, 0, 200), (2, 11, 3, 4, 0, 300)]]
    >>> [(s.entrant, s.rank, str(s.total)) for s in standings([Entrant(e) for e in (1, 2, 3, 4)], results)]
    [(1, 1, '200'), (4, 2, '200'), (2, 3, '0'), (3, 4, '0')]
    """
    entrants = list(entrants)
    scores = deal_scores(results, scoring)
    total = totals(scores)
    counted: dict[int, int] = {}
    for s in scores:
        counted[s.entrant] = counted.get(s.entrant, 0) + 1
    order = sorted(entrants, key=lambda e: (-total.get(e.id, 0), -e.rating, e.id))
    return [DuplicateStanding(e.id, rank, total.get(e.id, Fraction(0)), counted.get(e.id, 0), e.rating)
            for rank, e in enumerate(order, start=1)]


def shown(value: Fraction, places: int = 2) -> str:
    """A score for people: at most `places` decimals, no trailing zeros.

    >>> shown(Fraction(200, 3)), shown(Fraction(50)), shown(Fraction(25, 2))
    ('66.67', '50', '12.5')
    """
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return text

