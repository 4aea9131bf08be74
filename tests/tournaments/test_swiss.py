"""The pairing library against computations of the tests' own: brute force over every possible
pairing for the pairings, a separate tally for the standings, the scale written out by hand."""

from __future__ import annotations

from bisect import bisect_left

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import swiss
from games.engine.swiss import Entrant, NoPairing, Result, match_points, pair_round, standings

# The scale as the rules page states it: largest difference of the band -> the winner's points.
WRITTEN_SCALE = [(0, 10), (1, 11), (100, 11), (101, 12), (200, 12), (201, 13), (300, 13), (301, 14), (450, 14),
                 (451, 15), (600, 15), (601, 16), (800, 16), (801, 17), (1000, 17), (1001, 18), (1250, 18),
                 (1251, 19), (1500, 19), (1501, 20), (5000, 20)]
BOUNDS = [0, 100, 200, 300, 450, 600, 800, 1000, 1250, 1500]


def my_points(difference: int) -> tuple[int, int]:
    winner = 10 + bisect_left(BOUNDS, abs(difference))
    return (winner, 20 - winner) if difference >= 0 else (20 - winner, winner)


@pytest.mark.parametrize(("difference", "winner"), WRITTEN_SCALE)
def test_the_scale_band_by_band(difference, winner):
    assert match_points(difference) == (winner, 20 - winner)
    assert match_points(-difference) == (20 - winner, winner)


@given(st.integers(-4000, 4000))
def test_the_scale_is_always_twenty_and_monotone(difference):
    a, b = match_points(difference)
    assert a + b == 20 and (a, b) == my_points(difference)
    assert match_points(difference + 1)[0] >= a


# ----------------------------------------------------------------------------- independent pairing


def all_pairings(ids: list[int]):
    """Every way to split `ids` (even) into pairs, each pair and the list in `ids`' order."""
    if not ids:
        yield []
        return
    first = ids[0]
    for i in range(1, len(ids)):
        for rest in all_pairings(ids[1:i] + ids[i + 1:]):
            yield [(first, ids[i]), *rest]


def my_totals(results: list[Result]) -> dict[int, int]:
    totals: dict[int, int] = {}
    for r in results:
        if r.b is None:
            totals[r.a] = totals.get(r.a, 0) + 12
            continue
        if r.forfeit is not None:
            pa, pb = (0, 20) if r.forfeit == r.a else (20, 0)
        else:
            pa, pb = my_points(r.score_a - r.score_b)
        totals[r.a] = totals.get(r.a, 0) + pa
        totals[r.b] = totals.get(r.b, 0) + pb
    return totals


def expected_pairing(entrants: list[Entrant], results: list[Result]):
    """The pairing the documented rules call for, by brute force: the bye to the lowest-placed
    entrant without one for whom the others can be paired; among all pairings with no repeat,
    the one whose partners, read down the list, are placed highest (lexicographic first)."""
    totals = my_totals(results)
    order = [e.id for e in sorted(entrants, key=lambda e: (-totals.get(e.id, 0), -e.rating, e.id))]
    place = {e: i for i, e in enumerate(order)}
    seen = {frozenset((r.a, r.b)) for r in results if r.b is not None}
    byes = {r.a for r in results if r.b is None}

    def best(ids):
        valid = [p for p in all_pairings(ids) if all(frozenset(t) not in seen for t in p)]
        if not valid:
            return None
        return min(valid, key=lambda p: [place[x] for t in p for x in t])

    if len(order) % 2 == 0:
        return best(order), None
    for candidate in sorted(order, key=lambda e: -place[e]):
        if candidate in byes:
            continue
        found = best([e for e in order if e != candidate])
        if found is not None:
            return found, candidate
    return None, None


@st.composite
def tournaments(draw):
    n = draw(st.integers(2, 9))
    ratings = draw(st.lists(st.sampled_from([1400, 1450, 1500, 1550, 1600]), min_size=n, max_size=n))
    entrants = [Entrant(i + 1, float(r)) for i, r in enumerate(ratings)]
    rounds = draw(st.integers(1, n + 1))
    scores = draw(st.lists(st.tuples(st.integers(0, 2500), st.integers(0, 2500), st.integers(0, 12)),
                           min_size=rounds * n, max_size=rounds * n))
    return entrants, rounds, scores


@settings(max_examples=150, deadline=None)
@given(tournaments())
def test_pairing_and_standings_match_an_independent_computation(case):
    entrants, rounds, scores = case
    results: list[Result] = []
    score_iter = iter(scores)
    for number in range(1, rounds + 1):
        want_tables, want_bye = expected_pairing(entrants, results)
        try:
            pairing = pair_round(entrants, results)
        except NoPairing:
            assert want_tables is None, "the library found no pairing where one exists"
            break
        assert [tuple(t) for t in pairing.tables] == [tuple(t) for t in want_tables]
        assert pairing.bye == want_bye
        seated = [x for t in pairing.tables for x in t] + ([pairing.bye] if pairing.bye else [])
        assert sorted(seated) == [e.id for e in entrants]
        for a, b in pairing.tables:
            sa, sb, forfeit = next(score_iter)
            results.append(Result(number, a, b, sa, sb, forfeit=a if forfeit == 0 else b if forfeit == 1 else None))
        if pairing.bye is not None:
            results.append(Result(number, pairing.bye, None))

    pairs = [frozenset((r.a, r.b)) for r in results if r.b is not None]
    assert len(pairs) == len(set(pairs)), "two entrants met twice"
    byes = [r.a for r in results if r.b is None]
    assert len(byes) == len(set(byes)), "a second bye"

    # Standings, tallied separately.
    totals = my_totals(results)
    diff = {e.id: 0 for e in entrants}
    opps = {e.id: [] for e in entrants}
    for r in results:
        if r.b is not None:
            diff[r.a] += r.score_a - r.score_b
            diff[r.b] -= r.score_a - r.score_b
            opps[r.a].append(r.b)
            opps[r.b].append(r.a)
    buch = {e: sum(totals.get(o, 0) for o in opps[e]) for e in opps}
    rating = {e.id: e.rating for e in entrants}
    want = sorted(opps, key=lambda e: (-totals.get(e, 0), -buch[e], -diff[e], -rating[e], e))
    got = standings(entrants, results)
    assert [s.entrant for s in got] == want
    assert [s.rank for s in got] == list(range(1, len(entrants) + 1))
    for s in got:
        assert (s.match_points, s.buchholz, s.difference) == (totals.get(s.entrant, 0), buch[s.entrant],
                                                              diff[s.entrant])


def test_sixteen_entrants_four_rounds_pair_without_repeats():
    entrants = [Entrant(i, 1500 + 10 * i) for i in range(1, 17)]
    results: list[Result] = []
    for number in range(1, 5):
        pairing = pair_round(entrants, results)
        assert len(pairing.tables) == 8 and pairing.bye is None
        for a, b in pairing.tables:
            results.append(Result(number, a, b, (a * 37) % 900, (b * 53) % 900))
    assert len({frozenset((r.a, r.b)) for r in results}) == 32


def test_round_one_pairs_by_rating_down_the_list():
    entrants = [Entrant(1, 1500), Entrant(2, 1700), Entrant(3, 1600), Entrant(4, 1400), Entrant(5, 1550)]
    pairing = pair_round(entrants, [])
    assert pairing.tables == ((2, 3), (5, 1)) and pairing.bye == 4


def test_the_bye_moves_up_when_the_last_one_had_it():
    entrants = [Entrant(1, 1700), Entrant(2, 1600), Entrant(3, 1500)]
    results = [Result(1, 1, 2, 500, 0), Result(1, 3, None)]
    # 1: 15, 3: 12, 2: 5 -> 2 is last and has had no bye.
    assert pair_round(entrants, results) == swiss.Pairing(((1, 3),), 2)
    results += [Result(2, 1, 3, 0, 0), Result(2, 2, None)]
    # Everyone but 1 has had a bye; 1 is not last, but is the only one who may sit out.
    assert pair_round(entrants, results) == swiss.Pairing(((3, 2),), 1)


def test_ties_are_broken_by_buchholz_then_difference():
    entrants = [Entrant(i) for i in range(1, 5)]
    results = [Result(1, 1, 2, 50, 0), Result(1, 3, 4, 50, 0),  # 11-9 on both tables
               Result(2, 1, 3, 0, 900), Result(2, 2, 4, 900, 0)]  # 3-17 both
    # points: 1: 11+3, 2: 9+17, 3: 11+17, 4: 9+3 -> by points alone 3, 2, 1, 4.
    table = standings(entrants, results)
    assert [s.entrant for s in table] == [3, 2, 1, 4]
    equal = [Entrant(1), Entrant(2), Entrant(3), Entrant(4)]
    res = [Result(1, 1, 2, 100, 0), Result(1, 3, 4, 100, 0), Result(2, 1, 4, 0, 0), Result(2, 2, 3, 0, 0)]
    # 1: 11+10, 3: 11+10, 2: 9+10, 4: 9+10; Buchholz of 1 = 19+19, of 3 = 19+19; difference both 100
    got = standings(equal, res)
    assert [s.entrant for s in got] == [1, 3, 2, 4]
    assert got[0].buchholz == got[1].buchholz == 38 and got[0].difference == got[1].difference == 100


def test_withdrawn_entrants_stay_in_the_standings_only():
    entrants = [Entrant(i) for i in range(1, 5)]
    results = [Result(1, 1, 2, 300, 0), Result(1, 3, 4, 0, 300)]
    active = [e for e in entrants if e.id != 4]
    pairing = pair_round(active, results)
    assert 4 not in [x for t in pairing.tables for x in t] and pairing.bye is not None
    assert {s.entrant for s in standings(entrants, results)} == {1, 2, 3, 4}
