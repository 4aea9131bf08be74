"""Positions for the computer players' tests, and the bench scripts they load."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from games.bots import strategy
from games.engine import Game, Ruleset


def medio_positions(hands: int, seed: int) -> Iterator[tuple[Game, int]]:
    """Every position of a few hands of the greedy player against itself with esperto's weights
    (`strategy.DEFAULT`, medio's before issue 31: the positions esperto's tests were built on;
    the game before each action, and the seat to move); the game is played on after each
    yield, so copy it to keep it."""
    rng = random.Random(seed)
    for _ in range(hands):
        game = Game.new(Ruleset.preset("classico"), rng=random.Random(rng.getrandbits(64)))
        for _ in range(3000):
            if game.hand_over:
                break
            seat = game.to_move
            yield game, seat
            game.apply(seat, strategy.greedy_action(game, seat, rng, strategy.DEFAULT))


BENCH_SCRIPTS = Path(__file__).resolve().parents[2] / "docs" / "bench" / "scripts"


def load_bench_script(name: str) -> ModuleType:
    """A script of docs/bench/scripts (outside any package), imported fresh."""
    spec = importlib.util.spec_from_file_location(name, BENCH_SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same_on_a_twin(level: str, other: str, *, deal_seed: int, rng_seed: int) -> list[dict]:
    """Play a hand of `level` (seat 0) against `other`, every seat with the public record; at
    each of seat 0's decisions a twin game that deals every hidden card differently (the others'
    hands, the stock, the pozzetti) but shows the same view and the same record must get the
    same action (asserted here). Seat 0's actions, in order (at most 400 actions played)."""
    from games.bots import choose_action, knowledge

    game = Game.new(Ruleset.preset("classico", target=None), rng=random.Random(deal_seed))
    rng = random.Random(rng_seed)
    mine: list[dict] = []
    while not game.hand_over and len(game.actions) < 400:
        seat = game.to_move
        view = game.view(seat)
        record = game.public_record()
        if seat == 0:
            twin_view = knowledge.determinize(view, random.Random(len(game.actions))).view(seat)
            twin_view["version"] = view["version"]  # the twin has no history of its own
            assert twin_view == view
            seed = rng.getrandbits(32)
            action = choose_action(view, level, random.Random(seed), record=record)
            assert choose_action(twin_view, level, random.Random(seed), record=record) == action
            mine.append(action)
        else:
            action = choose_action(view, other, rng, record=record)
        game.apply(seat, action)
    return mine
