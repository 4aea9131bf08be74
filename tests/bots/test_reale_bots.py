"""Computer players in Burraco Reale (RULES §15): legal play (sequences only, one wild, a clean
burraco to close) and medio ahead of principiante on duplicate deals."""

from __future__ import annotations

import random

import pytest

from games.bots.lab import tournament
from games.engine import Game, Ruleset

from .test_bots import play_out


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize(("level_a", "level_b"), [("medio", "principiante"), ("principiante", "medio"),
                                                  ("esperto", "medio")])
def test_the_levels_play_legal_reale(players, level_a, level_b):
    rng = random.Random(f"reale-{players}-{level_a}-{level_b}")
    hands = 1 if "esperto" in (level_a, level_b) else 4
    for _ in range(hands):
        game = Game.new(Ruleset.preset("reale", players=players, target=None), rng=random.Random(rng.random()))
        play_out(game, {0: level_a, 1: level_b}, rng)  # every action goes through apply
        assert game.end_reason in ("closed", "stock_exhausted")
        for side in (0, 1):
            for meld in game.melds(side):
                assert meld.kind == "sequence"
                assert sum(c.is_wild for c in meld.cards) - (meld.wild is not None) <= 1
        if game.closed_by is not None:
            assert any(m.burraco in ("pulito", "nobile", "reale") for m in game.melds(game.closed_by % 2))


def test_medio_beats_principiante_at_reale_on_duplicate_deals():
    result = tournament.run("medio", "principiante", games=20, seed=3, preset="reale", duplicate=True)
    assert result["stuck"] == 0 and result["win_rate_a"] > 0.6 and result["mean_score_diff"] > 0
