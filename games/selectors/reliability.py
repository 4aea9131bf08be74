"""Reliability: the share of a player's matches they finished themselves.

What counts (the profile says it in words, games/templates history_profile.html):

- the matches counted are the **finished** matches (`Game.finished`) the player sat in with at
  least one other person at the table (leaving a table of computers lets nobody down). Matches
  still in play, and tables that never started, are not counted;
- a counted match is **not finished by the player** when
  (a) they abandoned it (`Game.abandoned_by` is them: "Abbandona"), or
  (b) the computer was playing their seat when the match ended (`Seat.covered_by_computer`: two
      turns in a row ran out of time, or they were away past the table's grace, and they did not
      come back, by playing or with "Sono tornato", before the end), or
  (c) the timer and the computer made more of their moves than they did (`covered_moves >
      own_moves`, counted from the move log when the match ends: the same test that keeps such a
      match out of the ratings);
- reliability = finished by the player / counted, shown with the count ("Affidabilità 92 %
  (25 partite)"). With no counted match there is no figure.

Matchmaking reads it when a person joins the queue (games/services/matchmaking.py): with at least
`MIN_MATCHES` counted matches and a share below `RELIABLE_SHARE`, a person is *unreliable* and is
grouped with people like them first; everyone else (newcomers included) is *reliable*.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Exists, F, OuterRef, Q

from ..models import Seat

RELIABLE_SHARE = 0.8  # below this share (with enough matches) a person counts as unreliable
MIN_MATCHES = 5  # fewer counted matches than this: not enough to judge, counted as reliable


@dataclass(frozen=True, slots=True)
class Reliability:
    matches: int  # counted matches
    completed: int  # of which finished by the player

    @property
    def share(self) -> float | None:
        """0..1, or None with no counted match."""
        return self.completed / self.matches if self.matches else None

    @property
    def percent(self) -> int | None:
        share = self.share
        return None if share is None else int(share * 100 + 0.5)

    @property
    def judged(self) -> bool:
        """Enough matches for matchmaking to act on the figure."""
        return self.matches >= MIN_MATCHES

    @property
    def reliable(self) -> bool:
        """What matchmaking uses: unreliable only with enough matches and a low share.

        >>> Reliability(4, 0).reliable, Reliability(5, 3).reliable, Reliability(5, 4).reliable
        (True, False, True)
        """
        return not self.judged or self.completed >= RELIABLE_SHARE * self.matches

    def queue_value(self) -> float | None:
        """What a queue entry stores: the share once judged, else None (not judged)."""
        return self.share if self.judged else None


def _counted_seats():
    other_person = Seat.objects.filter(table_id=OuterRef("table_id"), user__isnull=False).exclude(
        user_id=OuterRef("user_id"))
    return Seat.objects.filter(table__game__finished=True).filter(Exists(other_person))


def not_completed() -> Q:
    """The seat's match was not finished by its player (cases a, b, c of the module docstring)."""
    return (Q(table__game__abandoned_by_id=F("user_id")) | Q(covered_by_computer=True)
            | Q(covered_moves__gt=F("own_moves")))


def reliability_of_users(user_ids: Iterable[int]) -> dict[int, Reliability]:
    """Every given person's reliability, in one query (people with no counted match get 0/0)."""
    ids = sorted(set(user_ids))
    result = {uid: Reliability(0, 0) for uid in ids}
    if not ids:
        return result
    rows = (_counted_seats().filter(user_id__in=ids).values("user_id")
            .annotate(matches=Count("id"), failed=Count("id", filter=not_completed())))
    for row in rows:
        result[row["user_id"]] = Reliability(row["matches"], row["matches"] - row["failed"])
    return result


def reliability(user) -> Reliability:
    """One person's reliability (one query)."""
    return reliability_of_users([user.pk])[user.pk]
