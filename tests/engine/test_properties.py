"""Seeded random play over every preset and both player counts, checking invariants."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots.random_player import random_action
from games.engine import (
    ALL_CARDS,
    MESSAGES,
    PRESETS,
    Game,
    IllegalMove,
    Ruleset,
    check_meld,
    lay_off,
    replay,
)

FULL = Counter({c.text: (4 if c.text == "JK" else 2) for c in ALL_CARDS})
REALE_FULL = FULL - Counter({"JK": 4})  # Burraco Reale: 104 cards, no jokers (RULES §15)
CARD_TEXTS = {c.text for c in ALL_CARDS}
CONFIGS = [(name, players) for name in PRESETS for players in (2, 4)]


def all_cards(g: Game) -> Counter:
    count: Counter = Counter()
    for h in g.hands:
        count.update(c.text for c in h)
    count.update(c.text for c in g.stock)
    count.update(c.text for c in g.discard_pile)
    for side in g.table:
        for m in side:
            count.update(c.text for c in m.cards)
    for p in g.pozzetti:
        if p is not None:
            count.update(c.text for c in p)
    return count


def cards_in(obj, found: Counter) -> Counter:
    if isinstance(obj, str):
        if obj in CARD_TEXTS:
            found[obj] += 1
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "ruleset":
                cards_in(v, found)
    elif isinstance(obj, list):
        for v in obj:
            cards_in(v, found)
    return found


def check_views(g: Game) -> None:
    table: Counter = Counter(c.text for c in g.discard_pile)
    for side in g.table:
        for m in side:
            table.update(c.text for c in m.cards)
    if g.picked is not None:
        table[g.picked.text] += 1  # named again as the picked card
    public = g.public_view()
    assert "hand" not in public
    assert not cards_in(public, Counter()) - table
    for seat in range(g.players):
        view = g.view(seat)
        visible = table + Counter(c.text for c in g.hands[seat])
        assert not cards_in(view, Counter()) - visible, "a view shows a hidden card"
        json.dumps(view)


def check_score(g: Game) -> None:
    for s in g.score():
        assert s["total"] == s["melds"] + s["burraco"] + s["closing"] + s["hand"] + s["pozzetto"]
        assert s["hand"] <= 0 and s["pozzetto"] <= 0 and s["melds"] >= 0


def try_illegal(g: Game, rng: random.Random) -> None:
    """Random refused actions must leave the game exactly as it was."""
    seat = g.to_move
    hand = g.hands[seat]
    absent = [c.text for c in ALL_CARDS if c not in hand]
    candidates = [
        ((seat + 1) % g.players, {"type": "draw"}),
        ((seat + 1) % g.players, {"type": "discard", "card": hand[0].text}),
        (seat, {"type": "discard", "card": rng.choice(absent)}),
        (seat, {"type": "lay_off", "meld": 999, "cards": [hand[0].text]}),
        (seat, {"type": "meld", "cards": [rng.choice(absent), hand[0].text, hand[-1].text]}),
        (seat, {"type": "nonsense"}),
        (seat, {"type": "draw" if g.phase == "play" else "discard", "card": hand[0].text}),
    ]
    if len(hand) >= 3 and g.phase == "play":
        trio = [c.text for c in rng.sample(hand, 3)]
        candidates.append((seat, {"type": "meld", "cards": trio}))
    for s, action in rng.sample(candidates, 3):
        before = g.to_dict()
        try:
            g.apply(s, action)
        except IllegalMove as err:
            assert err.message == MESSAGES[err.code]
            assert g.to_dict() == before
        else:  # a random meld may happen to be legal: the game just goes on
            assert action["type"] == "meld"
            return


def check_all_legal(g: Game) -> None:
    """Every action legal_actions offers is accepted by apply."""
    snapshot = g.to_dict()
    for action in g.legal_actions(g.to_move):
        copy = Game.from_dict(snapshot)
        copy.apply(copy.to_move, action)


def natural_places(meld) -> dict[int, str]:
    """Where each natural card of a sequence stands (1 low ace … 14 high ace)."""
    return {meld.low + i: c.text for i, c in enumerate(meld.cards) if i != meld.wild}


def check_lay_off_places(before, after) -> None:
    """A lay-off moves no natural card of a sequence (an ace keeps its end); the wild stays or
    slides to an end, where a 2 of the suit in its own place turns natural (RULES §4)."""
    if before.kind != "sequence":
        return
    old, new = natural_places(before), natural_places(after)
    assert old.items() <= new.items(), (before.texts(), after.texts())
    if before.wild is None:
        return
    if after.wild is None:  # the wild 2 slid into its own place
        assert before.wild_card.rank == 2 and new[2] == before.wild_card.text and after.low == 2
        return
    place = after.low + after.wild
    assert place == before.low + before.wild or place in (after.low, after.high)


def play_checked(name: str, players: int, seed: int, thorough: bool) -> Game:
    g = Game.new(Ruleset.preset(name, players=players), rng=random.Random(seed))
    rng = random.Random(seed * 7919 + players)
    gone: set[int] = set()
    steps = 0
    while not g.hand_over:
        if thorough and steps % 17 == 3:
            check_all_legal(g)
        if thorough and rng.random() < 0.1:
            try_illegal(g, rng)
            if g.hand_over:  # a random meld that happened to be legal closed the hand
                continue
        action = random_action(g, g.to_move, rng)
        side = g.to_move % 2
        before = {m.id: m for m in g.table[side]}
        g.apply(g.to_move, action)
        if action["type"] == "lay_off":
            after = next(m for m in g.table[side] if m.id == action["meld"])
            check_lay_off_places(before[action["meld"]], after)
        steps += 1
        assert all_cards(g) == (REALE_FULL if name == "reale" else FULL)
        for side, state in enumerate(g.pozzetto_state):
            if state != "available":
                gone.add(side)
                assert g.pozzetti[side] is None
            else:
                assert side not in gone and len(g.pozzetti[side]) == 11
        if thorough:
            check_views(g)
        if thorough and steps % 25 == 0:
            assert Game.from_dict(json.loads(json.dumps(g.to_dict()))) == g
    check_score(g)
    check_views(g)
    assert replay(g.deal, g.actions) == g
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))) == g
    assert g.match.totals == tuple(t + s["total"] for t, s in zip(g.totals, g.score(), strict=True))
    return g


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_one_random_hand(name, players):
    """The default run's smoke version of test_random_hands (slow): one seed, every check on."""
    g = play_checked(name, players, 0, thorough=True)
    assert g.hand_over and g.end_reason


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_random_hands(name, players):
    ends = Counter()
    for seed in range(50):
        ends[play_checked(name, players, seed, thorough=True).end_reason] += 1
    assert set(ends) <= {"closed", "stock_exhausted"} and sum(ends.values()) == 50
    if name != "reale":
        assert ends["closed"] > 0  # the random player does finish hands by closing
    # In Burraco Reale closing needs a clean burraco, which random play almost never builds (3 of
    # 200 two-player hands, 0 of 200 four-player ones from these seeds): test_reale.py's run of 300
    # hands checks that some close, and that every close had its clean burraco.


# 1,667 seeds in four parts, so a parallel run (CI's `-m slow`) spreads the six minutes they take.
SEED_PARTS = [range(start, min(1667, start + 417)) for start in range(0, 1667, 417)]


@pytest.mark.slow
@pytest.mark.parametrize("seeds", SEED_PARTS, ids=lambda part: f"seeds-{part.start}-{part.stop - 1}")
def test_ten_thousand_random_hands(seeds):
    hands = 0
    for seed in seeds:
        for name, players in CONFIGS:
            play_checked(name, players, 10_000 + seed, thorough=seed % 10 == 0)
            hands += 1
    assert hands == len(seeds) * len(CONFIGS)
    assert sum(len(part) for part in SEED_PARTS) * len(CONFIGS) >= 10_000  # the parts, together


def test_a_whole_match_to_505():
    g = Game.new(Ruleset.preset("classico", target=505), rng=random.Random(11))
    rng = random.Random(12)
    hands = 0
    while True:
        while not g.hand_over:
            g.apply(g.to_move, random_action(g, g.to_move, rng))
        hands += 1
        if g.match.finished:
            break
        nxt = g.next_hand(rng=random.Random(hands))
        assert nxt.to_move == (g.match_first + hands) % 2 and nxt.totals == g.match.totals
        g = nxt
    m = g.match
    assert m.winner is not None and max(m.totals) >= 505 and hands == g.hand_number + 1


cards_strategy = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=15)


@settings(max_examples=400, deadline=None)
@given(cards_strategy, st.sampled_from([Ruleset(), Ruleset.preset("classico", semipulito=True),
                                       Ruleset.preset("reale")]))
def test_check_meld_reads_or_refuses(cards, ruleset):
    try:
        m = check_meld(cards, ruleset)
    except IllegalMove as err:
        assert err.code in MESSAGES
        return
    assert sorted(c.text for c in m.cards) == sorted(c.text for c in cards)
    assert 3 <= len(m.cards) <= 14
    assert sum(1 for c in m.cards if c.is_wild) - (m.wild is not None) <= 1  # at most a natural 2
    if ruleset.variant == "reale":
        assert m.kind == "sequence" and not any(c.is_joker for c in m.cards)
    again = check_meld(m.cards, ruleset)
    assert again.cards == m.cards and again.wild == m.wild  # laying it out again reads the same


@st.composite
def sequences(draw):
    """A run of one suit from ``low`` with at most one wild in it (read by check_meld)."""
    suit = draw(st.sampled_from("SHDC"))
    low = draw(st.integers(1, 12))
    size = draw(st.integers(3, 15 - low))
    ranks = [1 if p in (1, 14) else p for p in range(low, low + size)]
    cards = [ALL_CARDS["SHDC".index(suit) * 13 + r - 1] for r in ranks]
    spot = draw(st.one_of(st.none(), st.integers(0, size - 1)))
    if spot is not None:
        cards[spot] = draw(st.sampled_from([ALL_CARDS[-1], ALL_CARDS["SHDC".index(suit) * 13 + 1],
                                            ALL_CARDS[("SHDC".index(suit) + 1) % 4 * 13 + 1]]))
    return cards


@settings(max_examples=300, deadline=None)
@given(sequences())
def test_lay_off_moves_no_natural_card(cards):
    try:
        meld = check_meld(cards, Ruleset())
    except IllegalMove:
        return
    for c in ALL_CARDS:
        try:
            after = lay_off(meld, [c], Ruleset())
        except IllegalMove:
            continue
        check_lay_off_places(meld, after)


def _meld_key(meld) -> tuple:
    texts = [c.text for c in meld.cards]
    return tuple(sorted(texts)) if meld.kind == "set" else tuple(texts)  # a set has no order


def _brute_force_plays(g: Game) -> tuple[set, set]:
    """Every legal three-card meld (as laid) and single-card lay-off, found by trying them all."""
    seat = g.to_move
    snapshot = g.to_dict()
    hand = [c.text for c in g.hands[seat]]
    melds, lay_offs = set(), set()
    work = Game.from_dict(snapshot)  # a refused action leaves it unchanged: copy only after a success
    for trio in {tuple(t) for t in combinations(hand, 3)}:
        for order in set(permutations(trio)):
            try:
                work.apply(seat, {"type": "meld", "cards": list(order)})
            except IllegalMove:
                continue
            melds.add(_meld_key(work.melds(seat % 2)[-1]))
            work = Game.from_dict(snapshot)
    for m in g.table[seat % 2]:
        for text in set(hand):
            try:
                work.apply(seat, {"type": "lay_off", "meld": m.id, "cards": [text]})
            except IllegalMove:
                continue
            lay_offs.add((m.id, text))
            work = Game.from_dict(snapshot)
    return melds, lay_offs


def test_legal_actions_lists_every_meld_and_lay_off():
    checked = 0
    for seed in range(12):
        g = Game.new(Ruleset.preset("classico", players=2), rng=random.Random(seed))
        rng = random.Random(seed)
        while not g.hand_over:
            if g.phase == "play" and rng.random() < 0.2:
                listed = list(g.legal_actions(g.to_move))
                melds = {_meld_key(check_meld(a["cards"], g.ruleset)) for a in listed
                         if a["type"] == "meld"}
                lay_offs = {(a["meld"], a["cards"][0]) for a in listed if a["type"] == "lay_off"}
                assert (melds, lay_offs) == _brute_force_plays(g)
                checked += 1
            g.apply(g.to_move, random_action(g, g.to_move, rng))
    assert checked > 20
