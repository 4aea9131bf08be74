"""Reliability: the share of a player's matches they finished themselves.

What counts (the profile and the rules page say it in words: templates/games/history_profile.html,
templates/rules/rules.html):

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
- only the player's **last `RECENT_MATCHES` (100) counted matches** count, newest finish first
  (`Game.finished_at`, then the game's id): a bad run fades as good matches follow it;
- reliability = finished by the player / counted, shown with the count ("Affidabilità 92 %
  (25 partite)"; at most 100). With no counted match there is no figure.

Matchmaking reads it when a person joins the queue (games/services/lobby/matchmaking.py): with at least
`MIN_MATCHES` counted matches and a share below `RELIABLE_SHARE`, a person is *unreliable* and is
grouped with people like them first; everyone else (newcomers included) is *reliable*.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from ..models import Game, Seat, Table

# For this long a reliable person and an unreliable one are not put at one table: each waits for
# people like them first. Past it (either of the two waited longer) they may meet, but within the
# rating window a person of one's own kind still comes before a nearer rating of the other.
# (The matcher, games/services/lobby/matchmaking.py, uses it; the rules page shows it.)
RELIABILITY_MIX_SECONDS = 15.0

RELIABLE_SHARE = 0.8  # below this share (with enough matches) a person counts as unreliable
MIN_MATCHES = 5  # fewer counted matches than this: not enough to judge, counted as reliable
RECENT_MATCHES = 100  # only the last this many counted matches count: a bad week fades


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
    def window(self) -> int:
        """How many of the latest counted matches the figure looks at (the profile says it)."""
        return RECENT_MATCHES

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


# One definition of what counts, in one statement over the given people's seats (prepared SQL:
# it runs on every join of the queue, where building the same query through the ORM cost about
# 4 ms of Python per join against 0.1 ms in PostgreSQL). Per person: the counted matches among
# their last RECENT_MATCHES (newest finish first), those not finished by them (cases a, b and c
# above), and the latest table they sit at in play.
_SUMMARY_SQL = """
SELECT user_id,
       COALESCE(SUM(CASE WHEN counted = 1 AND recent <= %s THEN 1 ELSE 0 END), 0),
       COALESCE(SUM(CASE WHEN counted = 1 AND recent <= %s THEN failed ELSE 0 END), 0),
       MAX(playing) FROM (
  SELECT user_id, counted, failed, playing,
         ROW_NUMBER() OVER (PARTITION BY user_id, counted ORDER BY finished_at DESC NULLS LAST, game_id DESC)
           AS recent
  FROM (
    SELECT s.user_id AS user_id,
           CASE WHEN g.finished AND EXISTS (
                  SELECT 1 FROM {seat} o
                  WHERE o.table_id = s.table_id AND o.user_id IS NOT NULL AND o.user_id <> s.user_id)
                THEN 1 ELSE 0 END AS counted,
           CASE WHEN g.abandoned_by_id = s.user_id OR s.covered_by_computer OR s.covered_moves > s.own_moves
                THEN 1 ELSE 0 END AS failed,
           CASE WHEN t.status = %s THEN t.id END AS playing,
           g.finished_at AS finished_at, g.id AS game_id
    FROM {seat} s
    JOIN {table} t ON t.id = s.table_id
    LEFT JOIN {game} g ON g.table_id = t.id
    WHERE s.user_id IN ({ids})
  ) per_seat
) ranked GROUP BY user_id
"""


def _summaries(user_ids: Iterable[int]) -> dict[int, tuple[Reliability, int | None]]:
    ids = sorted(set(user_ids))
    result: dict[int, tuple[Reliability, int | None]] = {uid: (Reliability(0, 0), None) for uid in ids}
    if not ids:
        return result
    sql = _SUMMARY_SQL.format(seat=Seat._meta.db_table, table=Table._meta.db_table, game=Game._meta.db_table,
                              ids=", ".join(["%s"] * len(ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [RECENT_MATCHES, RECENT_MATCHES, Table.Status.PLAYING.value, *ids])
        for user_id, matches, failed, playing in cursor.fetchall():
            result[user_id] = (Reliability(int(matches), int(matches) - int(failed)), playing)
    return result


def reliability_of_users(user_ids: Iterable[int]) -> dict[int, Reliability]:
    """Every given person's reliability, in one query (people with no counted match get 0/0)."""
    return {uid: summary[0] for uid, summary in _summaries(user_ids).items()}


def reliability(user) -> Reliability:
    """One person's reliability (one query)."""
    return _summaries([user.pk])[user.pk][0]


def seats_summary(user) -> tuple[Reliability, int | None]:
    """In one query over the person's seats: their reliability, and the table they sit at whose
    match is in play (the latest, or None). What joining the queue needs to know of them."""
    return _summaries([user.pk])[user.pk]
