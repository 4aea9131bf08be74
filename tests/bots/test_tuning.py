"""medio's weights are all `strategy.Params` (so a tuning run can move them), and the tuning
script's regression recovers a known effect from noisy pairs."""

from __future__ import annotations

import dataclasses
import json
import random

from games.bots import strategy
from games.engine import Card, Game, Ruleset
from tests.bots.helpers import load_bench_script

RULES = Ruleset.preset("classico")


def test_the_hand_weights_are_params():
    game = Game.setup(RULES, hands=["7H 8H JK KD", "3C 4C 5C"], stock="QC QD 6S", to_move=0)
    hand = game.hands[0]
    base = strategy.hand_value(hand, game, 0)
    no_wild = strategy.hand_value(hand, game, 0, dataclasses.replace(strategy.DEFAULT, value_wild=0.0))
    assert base - no_wild == strategy.DEFAULT.value_wild  # one joker in hand
    loose = dataclasses.replace(strategy.DEFAULT, value_near1=10.0)
    assert strategy.hand_value(hand, game, 0, loose) - base == 10.0 - strategy.DEFAULT.value_near1  # 7H 8H


def test_a_play_weight_changes_the_choice():
    # 7S 8S 9S can go on 4S 5S 6S (three cards laid together) or open as a run of their own.
    game = Game.setup(RULES, hands=["7S 8S 9S 9D 9C 9H KD", "3C 4C 5C"], stock="QC QD 6S",
                      melds=[["4S 5S 6S"], []], to_move=0)
    game.apply(0, {"type": "draw"})
    assert strategy.best_play(game, 0)["type"] == "lay_off"
    # Make a new meld worth far more than any lay-off: a set of nines is opened first.
    melder = dataclasses.replace(strategy.DEFAULT, play_meld=500.0)
    play = strategy.best_play(game, 0, melder)
    assert play["type"] == "meld" and {Card.parse(t).rank for t in play["cards"]} == {9}


def test_every_tuned_name_is_a_weight_of_params():
    names = {f.name for f in dataclasses.fields(strategy.Params)}
    assert set(load_bench_script("tune_medio").SPACE) <= names


def test_the_regression_recovers_a_known_effect(tmp_path):
    tune = load_bench_script("tune_medio")
    rng = random.Random(5)
    truth = {"take_pile_min_gain": 0.8, "keep_pair": -0.5}
    log = tmp_path / "pairs.jsonl"
    with log.open("w") as f:
        for _ in range(300):
            step = {n: rng.gauss(0.0, 0.5) for n in tune.SPACE}
            half = sum(truth.get(n, 0.0) * v for n, v in step.items()) + rng.gauss(0.0, 0.3)
            # Half the difference of the pair's rates, in points: `half` / 100 either side of 0.9.
            f.write(json.dumps({"step": step, "plus": {"rate": 0.9 + half / 100},
                                "minus": {"rate": 0.9 - half / 100}}) + "\n")
    coef = tune.analyse(str(log))
    assert abs(coef["take_pile_min_gain"] - 0.8) < 0.1
    assert abs(coef["keep_pair"] + 0.5) < 0.1
    assert all(abs(c) < 0.15 for n, c in coef.items() if n not in truth)
