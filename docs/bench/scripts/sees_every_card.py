"""A diagnostic, never part of the site: how often could a player win if it saw every card?

esperto plays as usual, except that each world it samples is a copy of the real game (only the
look-ahead's dice differ from world to world): it knows the stock, the pozzetti and the other
hands. Against a level, on the same duplicate deals as `bot_tournament`, its win rate bounds
what information alone could add to esperto's way of playing. It patches the tournament and the
expert from outside, so nothing in `games/` can reach the real game from a view.

    PYTHONHASHSEED=0 .venv/bin/python docs/bench/scripts/sees_every_card.py principiante 7007 200 8

prints one JSON object, like `bot_tournament --json` (arguments: the other level, the seed, the
hands, the worlds per decision).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")

import django  # noqa: E402

django.setup()

from games.bots import expert, tournament  # noqa: E402

real_choose = tournament.choose_action
current: dict[str, object] = {}


def choose_seeing_everything(view, level, rng=None, **kwargs):
    if level == "esperto":
        game = sys._getframe(1).f_locals["game"]  # tournament.play_hand's real game
        assert game.view(view["seat"]) == view
        current["game"] = game
    return real_choose(view, level, rng, **kwargs)


def main() -> None:
    level, seed, hands, worlds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    expert._deal = lambda view, rng, memory: current["game"].copy()
    tournament.choose_action = choose_seeing_everything
    result = tournament.run("esperto", level, games=hands, seed=seed, duplicate=True, worlds=worlds)
    result["note"] = "esperto sees every card (docs/bench/scripts/sees_every_card.py)"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
