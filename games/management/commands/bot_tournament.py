"""`python manage.py bot_tournament --a medio --b principiante --games 200 --seed 1 --json`

Computer against computer over whole hands, seats alternating; prints the tally: first the
point margin per hand with its 95 % interval (over duplicate pairs with `--duplicate`), then
hands won, the per-hand record (piles taken, burraco, closes, points conceded when not closing),
stuck hands and decision times per side. `--matches N` also plays N real matches to 2005 to the
end (match win rate with its Wilson interval). `--duplicate` plays every deal
twice with the seats swapped; `--audit` counts the mistakes of issue 13 per 100 hands and per
level. The play, the audit and the report are `games.bots.lab.tournament` and `games.bots.lab.audit`.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from games.bots import LAB_LEVELS
from games.bots.lab.tournament import MEMORY, report_text, run
from games.engine import PRESETS


class Command(BaseCommand):
    help = "Plays computer players against each other and reports wins, mistakes and decision times."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--a", default="medio", choices=LAB_LEVELS, help="level of side A")
        parser.add_argument("--b", default="principiante", choices=LAB_LEVELS, help="level of side B")
        parser.add_argument("--games", type=int, default=200, help="single hands to play (0: matches only)")
        parser.add_argument("--matches", type=int, default=0,
                            help="also play this many real matches to 2005 to the end (even with --duplicate)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--preset", default="classico", choices=sorted(PRESETS))
        parser.add_argument("--players", type=int, default=2, choices=(2, 4))
        parser.add_argument("--budget", type=float, default=None,
                            help="seconds per decision for esperto (default: its own)")
        parser.add_argument("--worlds", type=int, default=None,
                            help="esperto samples exactly this many worlds per decision, ignoring "
                                 "the clock (a repeatable run)")
        parser.add_argument("--duplicate", action="store_true",
                            help="play every deal twice, seats swapped (--games must be even)")
        parser.add_argument("--audit", action="store_true",
                            help="count each mistake category per 100 hands and per level")
        parser.add_argument("--memory", default="both", choices=MEMORY,
                            help="which sides' esperto gets the hand's public record beside its view "
                                 "(default both, as at the site; 'a' pits esperto with memory "
                                 "against esperto without)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options) -> None:
        if options["games"] < 0 or options["matches"] < 0 or options["games"] + options["matches"] < 1:
            raise CommandError("give --games or --matches, at least 1")
        if options["duplicate"] and (options["games"] % 2 or options["matches"] % 2):
            raise CommandError("--duplicate plays each deal twice: --games and --matches must be even")
        if options["worlds"] is not None and options["worlds"] < 1:
            raise CommandError("--worlds must be at least 1")
        result = run(options["a"], options["b"], games=options["games"], seed=options["seed"],
                     preset=options["preset"], players=options["players"],
                     budget_seconds=options["budget"], worlds=options["worlds"],
                     duplicate=options["duplicate"], audit=options["audit"], memory=options["memory"],
                     matches=options["matches"])
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(report_text(result))
