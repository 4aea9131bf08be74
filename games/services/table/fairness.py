"""Fair deals at a table (docs/fairness.md): the secret seed each deal is shuffled from, and the
players' client seeds mixed into it.

The seed is drawn here, one hand ahead: each deal announces the hash of the next hand's seed, so
that seed is fixed before the players choose the client seeds mixed into it. The engine records
only hashes and client seeds in the deal; the seeds are stored by the caller on the `Hand` row
(`seed`, `next_seed`) and leave the server only once their hand is over
(games/selectors/fairness.py).

A duplicate tournament's table (games/engine/duplicate.py) takes its seeds from its round
instead (`planned`): one seed per deal, drawn when the round starts and the same at every table,
with no client seeds mixed in (every table must get the same order) and the first player fixed
by the round. Each deal still announces the hash of the next deal's seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from games.engine import FairSeed, IllegalMove
from games.engine.deal import clean_client_seed, commitment_of, new_seed
from games.models import Seat, TournamentRound


@dataclass(frozen=True, slots=True)
class Seeds:
    """The seeds of one deal: `fair` shuffles it; `next_seed` (hex) is drawn now for the hand after
    it, and only its hash goes out (in `fair.next_hash`, recorded in the deal's commitment)."""

    fair: FairSeed
    next_seed: str


def draw_for(seats: Iterable[Seat], committed: str = "") -> Seeds:
    """The seeds of the next deal at these seats: the seed `committed` by the hand before (its hash
    announced then, before the players chose their client seeds for this one), or a fresh one for
    a match's first hand; each person's client seed: the one their seat got with `hello`, else the
    one in their settings (a computer's or an empty seat's is ""). A text the construction would
    not take counts as none: a deal is never refused."""
    ordered = sorted(seats, key=lambda s: s.position)
    people = [s.user_id for s in ordered if s.user_id is not None and not s.client_seed]
    settings = dict(get_user_model().objects.filter(pk__in=people).values_list("pk", "client_seed")) if people else {}
    upcoming = new_seed()
    fair = FairSeed.draw([_usable(s.client_seed or settings.get(s.user_id, "")) if s.user_id is not None else ""
                          for s in ordered],
                         seed=bytes.fromhex(committed) if committed else None, next_hash=commitment_of(upcoming))
    return Seeds(fair, upcoming.hex())


@dataclass(frozen=True, slots=True)
class Plan:
    """A duplicate round's deals as a table plays them: the seeds (hex, deal order) and the seat
    that plays first in deal 1."""

    seeds: tuple[str, ...]
    first_player: int

    def seeds_for(self, number: int, players: int) -> Seeds:
        """Deal `number` (1-based): its seed, an empty client seed for each seat (as the verify
        page reads a deal without any), and the next deal's hash (none after the last deal)."""
        upcoming = self.seeds[number] if number < len(self.seeds) else ""
        fair = FairSeed.draw([""] * players, seed=bytes.fromhex(self.seeds[number - 1]),
                             next_hash=commitment_of(bytes.fromhex(upcoming)) if upcoming else None)
        return Seeds(fair, upcoming)


def planned(table_id: int) -> Plan | None:
    """The duplicate round's plan for this table, or None for any other table (one query; the
    callers ask only for a ruleset with a fixed number of hands)."""
    row = (TournamentRound.objects.filter(pairings__table_id=table_id, tournament__duplicate_deals__gt=0)
           .values_list("seeds", "first_player").first())
    if row is None or not row[0]:
        return None
    return Plan(tuple(row[0]), row[1] or 0)


def _usable(text: str) -> str:
    try:
        return clean_client_seed(text)
    except IllegalMove:
        return ""


def set_client_seed(*, table_id: int, position: int | None, user, text) -> bool:
    """A seated person's own entropy, mixed into the table's next deal (the hand in play was
    dealt already). Raises `IllegalMove("bad_client_seed")` for a text the construction does not
    take; True when a seat of `user` took it (a spectator's is ignored)."""
    seed = clean_client_seed(text)
    if position is None or user is None or not user.is_authenticated:
        return False
    return bool(Seat.objects.filter(table_id=table_id, position=position, user=user).update(client_seed=seed))
