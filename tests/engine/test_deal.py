"""Provably fair deals (games/engine/deal.py): the shuffle is a permutation of the deck, it is the
same everywhere (fixed vectors, and the outsider's script of docs/fairness.md agrees), and the
check of a deal refuses every kind of tampering with its own code."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import FairSeed, Game, IllegalMove, Ruleset, cards_text, check_deal, full_deck, replay
from games.engine.deal import below, stream

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"
ZERO = "00" * 32
# The published vector (docs/fairness.md): seed of 32 zero bytes, client seeds "ciao" and "".
VECTOR_HASH = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
VECTOR_FIRST_10 = ["JH", "JC", "9S", "TH", "3D", "2D", "5C", "KC", "6D", "QH"]
# The whole order of that deck, pinned by its SHA-256: a change to any card in any Python shows.
VECTOR_DECK_SHA = "838be690c927e103ff883b25a62fe161fa86e6fa89d306e49b4eb7724f740d35"

seeds = st.binary(min_size=32, max_size=32)
client_texts = st.lists(st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=8),
                        max_size=4)


def test_the_published_vector():
    fair = FairSeed.from_hex(ZERO, ["ciao", ""])
    assert fair.hash == VECTOR_HASH == hashlib.sha256(bytes(32)).hexdigest()
    deck = cards_text(fair.deck())
    assert deck[:10] == VECTOR_FIRST_10
    assert hashlib.sha256(" ".join(deck).encode()).hexdigest() == VECTOR_DECK_SHA


def test_the_doc_shows_the_vector_and_its_script_agrees(tmp_path):
    """The 20-line script in docs/fairness.md, run as an outsider would, prints the vector."""
    text = DOC.read_text(encoding="utf-8")
    assert VECTOR_HASH in text and " ".join(VECTOR_FIRST_10) in text
    script = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(script.strip().splitlines()) <= 22
    path = tmp_path / "check.py"
    path.write_text(script, encoding="utf-8")
    out = subprocess.run([sys.executable, str(path), ZERO, "ciao", ""], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == VECTOR_HASH and out[1].split() == VECTOR_FIRST_10


@settings(max_examples=60, deadline=None)
@given(seeds, client_texts)
def test_a_seeded_deal_is_a_permutation_of_the_deck(seed, clients):
    fair = FairSeed(seed, tuple(clients))
    deck = fair.deck()
    assert len(deck) == 108 and Counter(cards_text(deck)) == Counter(cards_text(full_deck()))
    assert cards_text(FairSeed(seed, tuple(clients)).deck()) == cards_text(deck)  # deterministic


def test_client_seeds_change_the_order():
    a = cards_text(FairSeed.from_hex(ZERO, ["", ""]).deck())
    b = cards_text(FairSeed.from_hex(ZERO, ["x", ""]).deck())
    c = cards_text(FairSeed.from_hex(ZERO, ["", "x"]).deck())  # the same text from the other seat
    assert a != b and b != c and a != c


def test_rejection_sampling_is_unbiased_on_a_small_range():
    """Every integer below m comes from the same number of 32-bit words."""
    m = 3
    limit = 2**32 - 2**32 % m
    assert limit % m == 0
    assert below(iter([limit, limit + 1, 5]), m) == 2
    words = stream(bytes(32), b"")
    counts = Counter(below(words, 6) for _ in range(6000))
    assert set(counts) == set(range(6)) and min(counts.values()) > 850


def test_a_fair_game_records_the_hash_and_never_the_seed():
    fair = FairSeed.draw(["mio", ""])
    game = Game.new(Ruleset.preset("classico"), fair=fair)
    assert game.deal["commitment"] == {"version": 1, "hash": fair.hash, "client_seeds": ["mio", ""]}
    assert game.view(0)["commitment"] == game.public_view()["commitment"] == fair.hash
    stored = json.dumps(game.to_dict())
    assert fair.seed_hex not in stored and fair.seed_hex not in json.dumps(game.view(1))
    assert replay(game.deal, []) == game
    after = Game.from_dict(json.loads(stored))
    assert after.commitment == fair.hash


def test_the_next_hands_hash_is_announced_and_checked():
    upcoming = FairSeed.draw()
    fair = FairSeed.draw(["", ""], next_hash=upcoming.hash)
    game = Game.new(Ruleset.preset("classico"), fair=fair)
    assert game.view(1)["next_commitment"] == game.deal["commitment"]["next_hash"] == upcoming.hash
    following = Game.new(Ruleset.preset("classico"), fair=FairSeed.draw(["", ""], seed=upcoming.seed)).deal
    assert check_deal(following, upcoming.seed_hex, announced_before=upcoming.hash).ok
    assert check_deal(following, upcoming.seed_hex, announced_before=fair.hash).code == "chain_mismatch"


def test_an_unseeded_game_has_no_commitment():
    game = Game.new(Ruleset.preset("classico", players=4))
    assert game.commitment is None and game.view(0)["commitment"] is None
    assert check_deal(game.deal, ZERO).code == "no_commitment"


def test_bad_seeds_are_refused():
    for bad in ("", "zz" * 32, "00" * 31, None, 7):
        with pytest.raises(IllegalMove) as info:
            FairSeed.from_hex(bad)
        assert info.value.code == "bad_seed"
    for bad in (["due parole"], ["x" * 65], "ciao", [3]):
        with pytest.raises(IllegalMove) as info:
            FairSeed.from_hex(ZERO, bad)
        assert info.value.code == "bad_client_seed"


@pytest.mark.parametrize("players", [2, 4])
def test_check_deal_accepts_the_deal_and_refuses_each_tampering(players):
    fair = FairSeed.draw([""] * players)
    deal = Game.new(Ruleset.preset("classico", players=players), fair=fair).deal
    good = check_deal(deal, fair.seed_hex)
    assert good.ok and good.compared == 108 and not good.mismatches and good.computed_hash == fair.hash

    card = json.loads(json.dumps(deal))
    a, b = card["hands"][1][3], card["stock"][5]
    card["hands"][1][3], card["stock"][5] = b, a
    verdict = check_deal(card, fair.seed_hex)
    if a != b:
        assert verdict.code == "card_mismatch"
        assert {(m.pile, m.owner, m.index) for m in verdict.mismatches} == {("hands", 1, 3), ("stock", None, 5)}

    other = FairSeed.draw()
    assert check_deal(deal, other.seed_hex).code == "seed_mismatch"  # a different seed
    hashed = json.loads(json.dumps(deal))
    hashed["commitment"]["hash"] = other.hash
    assert check_deal(hashed, fair.seed_hex).code == "hash_mismatch"  # a different hash
    assert check_deal(deal, fair.seed_hex, ["x"] * players).code == "card_mismatch"  # other client seeds
    assert check_deal(deal, "nope").code == "bad_seed"
    assert check_deal(deal, fair.seed_hex, announced_hash="123").code == "bad_hash"
    assert check_deal(deal, fair.seed_hex.upper()).ok  # hex in capitals reads the same
