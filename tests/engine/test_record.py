"""Game.public_record: the hand's public history, the same for everybody, never a hidden card."""

from __future__ import annotations

import random

import pytest

from games.engine import Game, Ruleset, replay

from .helpers import CLASSICO, POZZETTO, POZZETTO2, draw, hidden_twin, play, take


def random_hand(seed: int, players: int = 2, preset: str = "classico", moves: int = 400, **options) -> Game:
    rng = random.Random(seed)
    game = Game.new(Ruleset.preset(preset, players=players, **options), rng=rng)
    for _ in range(moves):
        if game.hand_over:
            break
        seat = game.to_move
        actions = list(game.legal_actions(seat))
        plays = [a for a in actions if a["type"] in ("meld", "lay_off")]
        # Meld often, so that pozzetti are taken and hands close.
        game.apply(seat, rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(actions))
    return game


def from_the_stream(game: Game, viewer: int | None = None) -> list[dict]:
    """The record as somebody at the table would write it down: before each action their view
    (the pile they see; ``viewer`` None: a spectator's public view), the action as the event
    shows it, their view after."""
    watcher = replay(game.deal, [])
    look = watcher.public_view if viewer is None else (lambda: watcher.view(viewer))
    out: list[dict] = []
    before = look()
    for side, state in enumerate(before["pozzetti"]):
        if state == "became_stock":
            out.append({"seat": None, "type": "pozzetto_stock", "side": side})
    for action in game.actions:
        seat = watcher.to_move
        watcher.apply(seat, action)
        after = look()
        kind = action["type"]
        if kind == "draw":
            out.append({"seat": seat, "type": "draw"})
        elif kind == "take_discards":
            out.append({"seat": seat, "type": "take_discards", "cards": before["discard"]})
        elif kind == "discard":
            out.append({"seat": seat, "type": "discard", "card": action["card"]})
        else:
            ids_before = {m["id"] for m in before["melds"][seat % 2]}
            new = [m["id"] for m in after["melds"][seat % 2] if m["id"] not in ids_before]
            meld_id = new[0] if kind == "meld" else action["meld"]
            out.append({"seat": seat, "type": kind, "meld": meld_id, "cards": action["cards"]})
        for side in (0, 1):
            was, now = before["pozzetti"][side], after["pozzetti"][side]
            if was == "available" and now == "taken":
                how = "with_discard" if kind == "discard" else "in_play"
                out.append({"seat": seat, "type": "pozzetto", "side": side, "how": how})
        for side in (0, 1):  # the stock ran out and a pozzetto took its place
            if before["pozzetti"][side] == "available" and after["pozzetti"][side] == "became_stock":
                out.append({"seat": None, "type": "pozzetto_stock", "side": side})
        before = after
    return out


CASES = [(seed, players, preset, options) for seed in range(6) for players, preset, options in (
    (2, "classico", {}), (4, "classico", {}), (2, "mano_unica", {}),
    (2, "classico", {"stock_exhausted": "pozzetto_becomes_stock"}))]


@pytest.mark.parametrize("seed,players,preset,options", CASES)
def test_the_record_is_what_the_public_events_show(seed, players, preset, options):
    game = random_hand(seed, players, preset, **options)
    record = game.public_record()
    assert record == from_the_stream(game)
    for seat in range(players):  # what each seat saw adds up to the same record
        assert record == from_the_stream(game, viewer=seat)
    assert len([e for e in record if e["type"] != "pozzetto" and e["seat"] is not None]) == len(game.actions)


def test_the_cases_cover_pozzetti_both_ways_and_a_pozzetto_become_stock():
    kinds = set()
    for seed, players, preset, options in CASES:
        for e in random_hand(seed, players, preset, **options).public_record():
            kinds.add(e["type"] if e["type"] != "pozzetto" else e["how"])
    assert {"draw", "take_discards", "meld", "lay_off", "discard", "in_play", "with_discard"} <= kinds


def test_a_pozzetto_that_becomes_the_stock_is_recorded_and_its_cards_stay_hidden():
    rules = Ruleset.preset("classico", stock_exhausted="pozzetto_becomes_stock")
    game = Game.setup(rules, hands=["7H 8H KD QS", "5S 5D QC JD"], stock="4C", discard="QD",
                      pozzetti=[POZZETTO, POZZETTO2], to_move=0)
    play(game, draw(), {"type": "discard", "card": "KD"})  # the stock is empty: seat 1's turn
    assert game.public_view()["pozzetti"] == ["available", "became_stock"]
    record = game.public_record()
    assert record[-1] == {"seat": None, "type": "pozzetto_stock", "side": 1}
    assert record == from_the_stream(game)
    play(game, draw())
    assert game.public_record()[-1] == {"seat": 1, "type": "draw"}
    assert not set(POZZETTO2.split()) & set(str(game.public_record()).split("'"))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_record_survives_storage_replay_and_copy(seed):
    game = random_hand(seed, moves=70)
    record = game.public_record()
    assert record
    assert Game.from_dict(game.to_dict()).public_record() == record
    assert replay(game.deal, game.actions).public_record() == record
    assert game.copy().public_record() == record


def test_the_record_never_names_a_card_from_the_stock_or_a_pozzetto():
    game = Game.setup(CLASSICO, hands=["7H 8H 9H KD", "5S 5D QS"], stock="QC TS 4C 5C 6C",
                      discard="QD", pozzetti=[POZZETTO, POZZETTO2], to_move=0)
    play(game, draw(), {"type": "discard", "card": "QC"}, take(), {"type": "meld", "cards": ["QD", "QC", "QS"]})
    record = game.public_record()
    assert record[0] == {"seat": 0, "type": "draw"}  # no card
    assert record[2] == {"seat": 1, "type": "take_discards", "cards": ["QD", "QC"]}
    texts = str(record)
    for hidden in ("TS", "4C", "5C", "6C", "AS", "AD"):  # stock and pozzetti, never seen
        assert hidden not in texts


def test_a_pozzetto_taken_shows_no_card_until_played():
    game = Game.setup(CLASSICO, hands=["7H 8H", "5S 5D QS"], stock="9H TS 4C 5C 6C", discard="QD",
                      pozzetti=[POZZETTO, POZZETTO2], to_move=0)
    play(game, draw(), {"type": "meld", "cards": ["7H", "8H", "9H"]})  # in diretta
    record = game.public_record()
    assert record[-1] == {"seat": 0, "type": "pozzetto", "side": 0, "how": "in_play"}
    assert len(game.view(0)["hand"]) == 11  # seat 0 sees its pozzetto; the record does not
    for text in POZZETTO.split():
        assert text not in str(record)
    play(game, {"type": "discard", "card": "AS"})
    assert game.public_record()[-1] == {"seat": 0, "type": "discard", "card": "AS"}


def hidden_twins(seed: int) -> tuple[Game, Game] | None:
    """Two hands with the same public history whose hidden cards differ: a card seat 1 held from
    the deal and never showed is swapped, in the deal, with a card that stayed in the stock."""
    game = random_hand(seed, moves=30)
    if game.hand_over:
        return None
    twin = hidden_twin(game, 1)
    return None if twin is None else (game, twin)


def test_two_hands_differing_only_in_hidden_cards_have_the_same_record():
    found = 0
    for seed in range(12):
        pair = hidden_twins(seed)
        if pair is None:
            continue
        game, twin = pair
        assert game.position()["hands"][1] != twin.position()["hands"][1]  # they do differ
        assert twin.public_record() == game.public_record()
        assert twin.public_view() == game.public_view()
        found += 1
    assert found >= 5
