"""esperto's memory of the hand: the public record read into known cards and likelier worlds."""

from __future__ import annotations

import random

import pytest

from games.bots import choose_action, expert, knowledge
from games.bots.lab import tournament
from games.engine import Card, Game, Ruleset, parse_cards

from ..engine.helpers import POZZETTO, POZZETTO2, hidden_twin

CLASSICO = Ruleset.preset("classico")


def table(hands, stock="QC TS 4C 5C 6C 9S 9D KH", discard="QD", to_move=0) -> Game:
    return Game.setup(CLASSICO, hands=hands, stock=stock, discard=discard,
                      pozzetti=[POZZETTO, POZZETTO2], to_move=to_move)


def step(game: Game, *actions: dict) -> Game:
    for action in actions:
        game.apply(game.to_move, action)
    return game


def test_cards_taken_from_the_pile_are_pinned_in_every_world():
    game = table(["7H 8H 9H KD 3C", "QS QH 5D 6D JC"])
    step(game, {"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "take_discards"},
         {"type": "discard", "card": "JC"}, {"type": "draw"})
    memory = knowledge.memory_of(game.view(0), game.public_record())
    assert [c.text for c in memory.known[1]] == ["QD", "KD"]
    for seed in range(20):
        world = memory.deal(game.view(0), random.Random(seed))
        hand = [c.text for c in world.hand(1)]
        assert "QD" in hand and "KD" in hand and len(hand) == len(game.hand(1))
        assert {k: v for k, v in world.view(0).items() if k != "version"} == \
            {k: v for k, v in game.view(0).items() if k != "version"}
    plain = [knowledge.determinize(game.view(0), random.Random(s)).hand(1) for s in range(20)]
    assert sum(Card.parse("QD") in h and Card.parse("KD") in h for h in plain) < 20  # chance alone does not


def test_a_card_shown_again_is_forgotten():
    game = table(["7H 8H 9H KD 3C", "QS QH 5D 6D JC"])
    step(game, {"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "take_discards"},
         {"type": "meld", "cards": ["QD", "QH", "QS"]}, {"type": "discard", "card": "KD"}, {"type": "draw"})
    memory = knowledge.memory_of(game.view(0), game.public_record())
    assert memory.known == {}  # QD melded, KD thrown back
    assert [c.text for c in memory.clues[0].played] == ["QD", "QH", "QS", "KD"]


def test_a_stale_or_missing_record_gives_no_memory():
    game = table(["7H 8H 9H KD 3C", "QS QH 5D 6D JC"])
    step(game, {"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "take_discards"})
    record = game.public_record()
    step(game, {"type": "discard", "card": "JC"}, {"type": "draw"})
    assert knowledge.memory_of(game.view(0), None) is None
    assert knowledge.memory_of(game.view(0), record) is None  # the record of an earlier moment


def test_a_world_where_the_declined_pile_fitted_counts_less():
    # Seat 1 draws from the stock although the pile's 7S lies there; then discards the 4S.
    game = table(["7H 8H 9H KD 3C", "QS QH 5D 6D 4S"], discard="7S")
    step(game, {"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "draw"},
         {"type": "discard", "card": "4S"}, {"type": "draw"})
    view = game.view(0)
    memory = knowledge.memory_of(view, game.public_record())
    clue = memory.clues[0]
    assert [c.text for c in clue.declined] == ["7S", "KD"] and clue.discarded == Card.parse("4S")
    weights = {}
    for seed in range(300):
        world = memory.deal(view, random.Random(seed))
        hand = world.hand(1)
        fitted = knowledge.fits(Card.parse("7S"), hand + [Card.parse("4S"), Card.parse("KD")]) or \
            knowledge.fits(Card.parse("KD"), hand + [Card.parse("4S"), Card.parse("7S")])
        weights.setdefault(fitted, set()).add(memory.weight(world) < 1 and
                                              memory.weight(world) <= knowledge.DECLINED_FIT + 1e-9)
    assert weights[True] == {True}  # every world where the pile fitted is marked down
    assert False in weights[False]  # and some where it did not keep their full weight


def test_fits_counts_natural_melds_only():
    assert knowledge.fits(Card.parse("AS"), parse_cards("KS QS"))  # the ace above the king
    assert knowledge.fits(Card.parse("AS"), parse_cards("2S 3S")) is False  # the 2 is a wild here
    assert not knowledge.fits(Card.parse("JK"), parse_cards("5S 5D"))


def hidden_twins(seed: int, moves: int) -> tuple[Game, Game] | None:
    """Two hands with the same public history that differ in a card the seat to move cannot
    see: one the other seat held from the deal and never showed, swapped in the deal with a
    card that stayed in the stock."""
    rng = random.Random(seed)
    game = Game.new(CLASSICO, rng=rng)
    for _ in range(moves):
        if game.hand_over:
            return None
        seat = game.to_move
        actions = list(game.legal_actions(seat))
        takes = [a for a in actions if a["type"] in ("take_discards", "meld", "lay_off")]
        game.apply(seat, rng.choice(takes) if takes and rng.random() < 0.6 else rng.choice(actions))
    if game.hand_over:
        return None
    other = 1 - game.to_move
    twin = hidden_twin(game, other)
    return None if twin is None else (game, twin)


def test_hands_differing_only_in_hidden_cards_give_the_same_record_and_decision():
    checked = 0
    for seed in range(40):
        pair = hidden_twins(seed, moves=12 + seed % 7)
        if pair is None:
            continue
        game, twin = pair
        seat = game.to_move
        assert game.position()["hands"] != twin.position()["hands"]
        assert twin.public_record() == game.public_record() and twin.view(seat) == game.view(seat)
        first = choose_action(game.view(seat), "esperto", random.Random(seed), worlds=3,
                              record=game.public_record())
        second = choose_action(twin.view(seat), "esperto", random.Random(seed), worlds=3,
                               record=twin.public_record())
        assert first == second
        checked += 1
        if checked >= 6:
            break
    assert checked >= 6


def test_candidate_values_weigh_the_worlds_by_the_memory():
    game = table(["7H 8H 9H KD 3C", "QS QH 5D 6D 4S"], discard="7S")
    step(game, {"type": "draw"}, {"type": "discard", "card": "KD"}, {"type": "draw"},
         {"type": "discard", "card": "4S"}, {"type": "draw"})
    view = game.view(0)
    candidates = [{"type": "discard", "card": t} for t in ("3C", "KH") if t in view["hand"]] or \
        [{"type": "discard", "card": view["hand"][0]}, {"type": "discard", "card": view["hand"][1]}]
    plain = expert.candidate_values(view, candidates, random.Random(5), worlds=12)
    remembered = expert.candidate_values(view, candidates, random.Random(5), worlds=12,
                                         record=game.public_record())
    again = expert.candidate_values(view, candidates, random.Random(5), worlds=12, record=game.public_record())
    assert remembered == again  # repeatable
    assert remembered != plain  # the record changes the worlds' weights


@pytest.mark.parametrize("memory", ["a", "none"])
def test_tournament_lets_only_the_sides_that_remember_use_the_record(monkeypatch, memory):
    seen: list[tuple[str, bool]] = []
    real = tournament.choose_action

    def spy(view, level, rng, **kwargs):
        # every level gets the record (the guard against endless hands reads it); esperto
        # remembers with it only where `memory` says
        assert kwargs.get("record") is not None
        seen.append((level, kwargs.get("remember", True)))
        return real(view, level, rng, **kwargs)

    monkeypatch.setattr(tournament, "choose_action", spy)
    result = tournament.run("esperto", "medio", games=2, seed=7, worlds=2, duplicate=True, memory=memory)
    assert result["memory"] == memory
    with_record = {level for level, has in seen if has}
    assert with_record == ({"esperto"} if memory == "a" else set())
    with pytest.raises(ValueError):
        tournament.run("esperto", "medio", games=2, seed=7, worlds=2, memory="sometimes")


@pytest.mark.parametrize("players,seed", [(2, 1), (2, 2), (4, 3), (4, 4)])
def test_what_the_memory_knows_is_really_in_those_hands(players, seed):
    rng = random.Random(seed)
    game = Game.new(Ruleset.preset("classico", players=players), rng=rng)
    pinned = 0
    while not game.hand_over and len(game.actions) < 400:
        record = game.public_record()
        for viewer in range(players):
            memory = knowledge.memory_of(game.view(viewer), record)
            for s, cards in memory.known.items():
                assert s != viewer
                rest = list(game.hand(s))
                for c in cards:  # every known card is there (each copy once)
                    rest.remove(c)
                pinned += len(cards)
        seat = game.to_move
        game.apply(seat, choose_action(game.view(seat), "medio", rng))
    assert pinned > 0
