"""A diagnostic, never part of the site: how often could esperto win if it saw more than its view?

esperto plays as usual, except for what its sampled worlds hold (`--sees`):

- ``everything``: each world is a copy of the real game (only the look-ahead's dice differ from
  world to world): it knows the stock, the pozzetti and the other hands;
- ``hands``: each world holds the other seats' real hands, and the stock and the pozzetti dealt
  at random from the rest (`knowledge.determinize` with every other hand reserved). What it could
  learn, at best, by reading the others' play; never the order of the stock;
- ``view``: esperto as at the site (its view and the hand's public record), for a baseline on the
  same deals and the same number of worlds.

Against a level, on the same duplicate deals as `bot_tournament`, the three win rates split what
information could add to esperto's way of playing into the part a perfect reading of the others
could give and the part only knowing the stock would. It patches the tournament and the expert
from outside, so nothing in `games/` can reach the real game from a view.

    PYTHONHASHSEED=0 .venv/bin/python docs/bench/scripts/sees_every_card.py principiante 7007 200 8
    PYTHONHASHSEED=0 .venv/bin/python docs/bench/scripts/sees_every_card.py medio 7171 100 16 --sees hands

prints one JSON object, like `bot_tournament --json` (arguments: the other level, the seed, the
hands, the worlds per decision; 0 worlds: esperto's own budget of CPU time, as at the site).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")

import django  # noqa: E402

django.setup()

from games.bots import expert  # noqa: E402
from games.bots.knowledge import determinize  # noqa: E402
from games.bots.lab import tournament  # noqa: E402

real_choose = tournament.choose_action
current: dict[str, object] = {}


def choose_seeing_more(view, level, rng=None, **kwargs):
    if level == "esperto":
        game = sys._getframe(1).f_locals["game"]  # tournament.play_hand's real game
        assert game.view(view["seat"]) == view
        current["game"] = game
    return real_choose(view, level, rng, **kwargs)


def deal_everything(view, rng, memory):
    return current["game"].copy()


def deal_with_the_hands(view, rng, memory):
    """The other hands as they are; the stock and the pozzetti shuffled from the rest."""
    game = current["game"]
    others = {s: list(game.hands[s]) for s in range(game.players) if s != view["seat"]}
    return determinize(view, rng, reserved=others)


DEALS = {"everything": deal_everything, "hands": deal_with_the_hands, "view": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("level")
    parser.add_argument("seed", type=int)
    parser.add_argument("hands", type=int)
    parser.add_argument("worlds", type=int, help="worlds per decision (0: the real budget)")
    parser.add_argument("--sees", choices=sorted(DEALS), default="everything")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    args = parser.parse_args()
    if DEALS[args.sees] is not None:  # `view` patches nothing: esperto as at the site
        expert._deal = DEALS[args.sees]
        tournament.choose_action = choose_seeing_more
    result = tournament.run("esperto", args.level, games=args.hands, seed=args.seed, duplicate=True,
                            worlds=args.worlds or None, players=args.players)
    result["note"] = f"esperto sees {args.sees} (docs/bench/scripts/sees_every_card.py)"
    result["worlds"] = args.worlds or "real budget"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
