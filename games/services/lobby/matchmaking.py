"""Play people now ("Gioca con persone"): a queue per mode and preset, and one matcher.

The queue is rows in PostgreSQL (`QueueEntry`), never a process's memory, so it survives a
Daphne or worker restart and any process may serve any person in it:

- `join_queue` adds a person (refused, with nothing changed, when they already wait, already
  have a queue-made table in play, or ask for a mode or preset that does not exist) and then
  tries to match at once, so two people who queue one after the other sit at one table within
  the time of a request;
- `run_matcher` is the matcher. It runs from every scheduler tick (games/services/scheduler.py,
  about once a second in every Celery worker) and after every join. It claims the waiting rows
  with `SELECT ... FOR UPDATE SKIP LOCKED`: two matchers running at once take disjoint sets, and
  an entry leaves the waiting state in the same transaction that seats its person, so nobody is
  matched twice. Within a claim it pairs people oldest first, each with the nearest ratings
  within either person's window (±100, widening with every second waited, anyone after 30 s:
  `selectors.matchmaking.rating_window`); pairs take four people and seat them so that the two
  sides' ratings are as even as can be. A matched group gets a rated public table through the
  table services (create, sit; the last seat starts the game) and each person a `matched`
  frame on their lobby sockets (`lobby.user.<id>`);
- reliability (games/selectors/reliability.py, stored on the entry at join): for their first
  RELIABILITY_MIX_SECONDS reliable people are grouped only with reliable ones and unreliable with
  unreliable; later they may meet, but one's own kind within the window still comes first;
- pairs queued together: an entry may name a partner; once the partner's entry names it back the
  two are one unit (rated at their mean) matched against another ready pair or two singles, and
  seated as partners (`table_groups`); a pair leaves the queue together, and an invitation not
  answered within PAIR_INVITE_SECONDS lapses;
- who opted in and waited `QUEUE_COMPUTER_AFTER_SECONDS` without a match gets an unrated table
  against the computer (medio) instead;
- a person's lobby sockets keep their entry alive (`heartbeat`, every `QUEUE_HEARTBEAT_SECONDS`
  from each Daphne process); when the last one closes (`socket_closed`) the entry is not matched,
  and after `QUEUE_LEAVE_GRACE_SECONDS` it is dropped unless a socket came back (a reload). An
  entry not heard of for `QUEUE_STALE_SECONDS` (its Daphne process died and the page did not
  come back) is dropped too.

Refusals raise `ServiceError` (games/services/errors.py), as the other table services do.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from games.engine import PRESETS, Ruleset
from games.live import clock, transport
from games.models import BotLevel, QueueEntry, RatingMode
from games.selectors import matchmaking as queue_selectors
from games.selectors import social as social_selectors
from games.selectors.matchmaking import MODE_PLAYERS, rating_window
from games.selectors.reliability import RELIABILITY_MIX_SECONDS, RELIABLE_SHARE, seats_summary
from games.services.errors import ServiceError
from games.services.table.seating import (
    batched_announcements,
    check_capacity,
    check_players,
    create_table,
    fill_with_computer,
    sit,
)

log = logging.getLogger(__name__)

CLAIM_LIMIT = 2000  # waiting entries one matcher pass takes at most
COMPUTER_LEVEL = BotLevel.MEDIO
PURGE_EVERY_SECONDS = 600  # how often a process deletes matched entries older than KEEP_MATCHED
KEEP_MATCHED = timedelta(days=1)

Messages = list[tuple[str, dict[str, Any]]]


def _computer_after_seconds() -> float:
    return float(settings.QUEUE_COMPUTER_AFTER_SECONDS)


def _ruleset(mode: Any, preset: Any) -> Ruleset:
    """The rules of a queue, or a refusal saying what was wrong."""
    if not isinstance(mode, str) or mode not in MODE_PLAYERS:
        raise ServiceError("bad_mode")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ServiceError("bad_preset")
    ruleset = Ruleset.preset(preset, players=MODE_PLAYERS[mode])
    check_players(ruleset)  # mano_unica and testa_a_testa are for two
    return ruleset


def _deliver_after_commit(messages: Messages) -> None:
    if messages:
        transaction.on_commit(lambda: transport.deliver(messages))


# ----------------------------------------------------------------------------- the person's side


def join_queue(*, user, mode: Any, preset: Any, computer_after: Any = False, partner: Any = None,
               now: datetime | None = None, match_now: bool = True) -> QueueEntry:
    """Queue `user` for `mode` ("2p" or "4p") and `preset`; then try to match at once.

    With `partner` (a username, pairs only) the person queues as a pair with that player: the
    entry is an invitation until the partner queues naming them back (their lobby page offers
    it: `pair_invite`), and the two are then matched together, as partners.

    Refused (ServiceError, nothing written) when not signed in, for an unknown mode or preset or a
    preset not played in that mode, when the site is full, when the person already waits in a
    queue (`already_queued`), when a table the queue gave them is still in play
    (`already_matched`), when they sit at another table in play (`playing_elsewhere`), and for a
    partner who does not exist, is themselves, is not for pairs, already waits in a queue of
    their own or plays at a table (`no_player`, `self_partner`, `partner_pairs_only`,
    `partner_queued`, `partner_playing`)."""
    _require_login(user)
    _ruleset(mode, preset)
    if not isinstance(computer_after, bool):
        raise ServiceError("bad_frame")
    mate = _partner(user, mode, partner)
    check_capacity()
    entry = _join(user, mode, preset, computer_after and mate is None, mate, now or clock.now())
    if match_now:
        match_soon((mode, preset), now)
    return entry


def _partner(user, mode: str, partner: Any):
    """The partner named in a join, checked (None: the person queues alone)."""
    if partner is None or partner == "":
        return None
    if not isinstance(partner, str):
        raise ServiceError("bad_frame")
    if mode != "4p":
        raise ServiceError("partner_pairs_only")
    mate = get_user_model().objects.filter(username=partner, is_active=True).first()
    if mate is None:
        raise ServiceError("no_player")
    if mate.pk == user.pk:
        raise ServiceError("self_partner")
    return mate


def _join(user, mode: str, preset: str, computer_after: bool, mate, now: datetime) -> QueueEntry:
    with transaction.atomic():
        status, table_id = queue_selectors.queue_status(user)
        if status == QueueEntry.Status.WAITING:
            raise ServiceError("already_queued")
        if status == QueueEntry.Status.MATCHED:
            raise ServiceError("already_matched", n=table_id)
        reliability, playing = seats_summary(user)
        if playing is not None:
            raise ServiceError("playing_elsewhere", n=playing)
        invited_by = None
        if mate is not None:
            invited_by = _check_partner(user, mate, mode, preset)
        rating = queue_selectors.rating_of(user, RatingMode.of(MODE_PLAYERS[mode], preset))  # Reale's own
        try:
            with transaction.atomic():
                entry = QueueEntry.objects.create(
                    user=user, mode=mode, preset=preset, rating=rating,
                    reliability=reliability.queue_value(), computer_after=computer_after,
                    partner=mate, joined_at=now, seen_at=now,
                )
        except IntegrityError:  # the same person queued from another tab at the same instant
            raise ServiceError("already_queued") from None
        seconds = _computer_after_seconds()
        messages = [(transport.user_group(user.pk),
                     queue_selectors.waiting_frame(entry, now, seconds, partner_ready=invited_by is not None))]
        if invited_by is not None:  # the pair is complete: the partner's page says so too
            messages.append((transport.user_group(mate.pk),
                             queue_selectors.waiting_frame(invited_by, now, seconds, partner_ready=True)))
        elif mate is not None:  # an invitation: the partner's lobby page offers it
            messages.append((transport.user_group(mate.pk), queue_selectors.pair_invite_frame(entry, "pending")))
        # Who else invited this person to a pair hears no: they now search otherwise.
        others = QueueEntry.objects.filter(partner=user, status=QueueEntry.Status.WAITING)
        if invited_by is not None:
            others = others.exclude(pk=invited_by.pk)
        for other in others.select_related("user"):
            messages.append((transport.user_group(other.user_id), queue_selectors.idle_frame("partner_declined")))
            messages.append((transport.user_group(user.pk), queue_selectors.pair_invite_frame(other, "declined")))
            other.delete()
        _deliver_after_commit(messages)
    return entry


def _check_partner(user, mate, mode: str, preset: str) -> QueueEntry | None:
    """Whether `mate` can be `user`'s partner: their waiting entry, when it names `user` for the
    same queue (this join completes the pair), or None (this join invites them). Refused when
    they wait for something else or play at a table."""
    theirs = QueueEntry.objects.filter(user=mate, status=QueueEntry.Status.WAITING).first()
    if theirs is not None:
        if theirs.partner_id == user.pk and (theirs.mode, theirs.preset) == (mode, preset):
            return theirs
        raise ServiceError("partner_queued", name=mate.username)
    status, table_id = queue_selectors.queue_status(mate)
    playing = table_id if status == QueueEntry.Status.MATCHED else queue_selectors.table_in_play(mate)
    if playing is not None:
        raise ServiceError("partner_playing", name=mate.username, n=playing)
    return None


_passes_lock = threading.Lock()
_passes: dict[tuple[str, str], bool] = {}  # queues with a pass running in this process: go again?


def match_soon(queue: tuple[str, str], now: datetime | None = None) -> None:
    """A matcher pass over `queue` now, after a join has committed. When this process already
    runs one for that queue, that pass goes once more when it ends instead (its claim may have
    come before this join's commit): a burst of joins makes a few passes that each seat many
    people, not one pass per join, and no join is left for the scheduler's tick."""
    with _passes_lock:
        if queue in _passes:
            _passes[queue] = True
            return
        _passes[queue] = False
    try:
        while True:
            run_matcher(now, queue=queue, lobby_now=False)
            now = None  # a pass again: at the time it runs
            with _passes_lock:
                if not _passes[queue]:
                    del _passes[queue]
                    return
                _passes[queue] = False
    except Exception:  # noqa: BLE001 - the entries are stored; the scheduler's next tick matches them
        with _passes_lock:
            _passes.pop(queue, None)
        log.warning("matchmaking: matching at once after a join failed", exc_info=True)


def _require_login(user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("login_required:queue")


def leave_queue(*, user) -> None:
    """The person cancels their search. Refused (`not_queued`) when they wait in no queue, for
    instance because the matcher has just given them a table (its `matched` frame follows). A
    pair leaves together: the partner's entry goes too, and their page says why."""
    _require_login(user)
    with transaction.atomic():
        # A matcher holding the row makes this wait for its commit, then finds it matched.
        entry = (QueueEntry.objects.select_for_update().select_related("user")
                 .filter(user=user, status=QueueEntry.Status.WAITING).first())
        if entry is None:
            raise ServiceError("not_queued")
        messages: Messages = [(transport.user_group(user.pk), queue_selectors.idle_frame("cancelled"))]
        messages += _break_pairs([entry], "partner_left")
        entry.delete()
        _deliver_after_commit(messages)


def decline_pair(*, user, username: Any) -> None:
    """`user` says no to the pair `username` offered: that person's entry (the invitation) goes,
    and their page says so. Refused (`no_invitation`) when there is no such invitation."""
    _require_login(user)
    with transaction.atomic():
        entry = (QueueEntry.objects.select_for_update().select_related("user", "partner")
                 .filter(status=QueueEntry.Status.WAITING, partner=user,
                         user__username=username if isinstance(username, str) else None).first())
        named_back = entry is not None and QueueEntry.objects.filter(
            user=user, partner_id=entry.user_id, status=QueueEntry.Status.WAITING).exists()
        if entry is None or named_back:
            raise ServiceError("no_invitation")
        entry.delete()
        _deliver_after_commit([
            (transport.user_group(entry.user_id), queue_selectors.idle_frame("partner_declined")),
            (transport.user_group(user.pk), queue_selectors.pair_invite_frame(entry, "declined")),
        ])


def _break_pairs(gone: list[QueueEntry], reason: str, dropped: set[int] | None = None) -> Messages:
    """These entries leave the queue: the partners who named them go too (a pair queues and
    leaves together), with an idle frame saying why; a partner only invited (who never named
    them back) has the invitation taken off their page. Returns the frames; deletes the partners'
    entries (their ids are added to `dropped`)."""
    messages: Messages = []
    named = [e for e in gone if e.partner_id is not None]
    if not named:
        return messages
    gone_ids = {e.pk for e in gone}
    mates = {(m.user_id, m.partner_id): m for m in QueueEntry.objects.filter(
        status=QueueEntry.Status.WAITING, user_id__in=[e.partner_id for e in named],
        partner_id__in=[e.user_id for e in named]).exclude(pk__in=gone_ids)}
    mate_ids = []
    for entry in named:
        mate = mates.get((entry.partner_id, entry.user_id))
        if mate is not None:
            mate_ids.append(mate.pk)
            messages.append((transport.user_group(mate.user_id), queue_selectors.idle_frame(reason)))
        else:
            messages.append((transport.user_group(entry.partner_id),
                             queue_selectors.pair_invite_frame(entry, "cancelled")))
    if mate_ids:
        QueueEntry.objects.filter(pk__in=mate_ids, status=QueueEntry.Status.WAITING).delete()
        if dropped is not None:
            dropped.update(mate_ids)
    return messages


def socket_opened(user, now: datetime | None = None) -> dict[str, Any]:
    """A lobby socket of `user` opened: their entry, if any, is theirs again (a reload within the
    grace keeps the place); returns the frame that tells the page where they stand."""
    now = now or clock.now()
    QueueEntry.objects.filter(user=user, status=QueueEntry.Status.WAITING).update(seen_at=now, left_at=None)
    return queue_selectors.state_frame(user, now, _computer_after_seconds())


def socket_opened_frames(user, now: datetime | None = None) -> list[dict[str, Any]]:
    """`socket_opened`'s frame, then the pair invitations waiting for this person's answer."""
    frames = [socket_opened(user, now)]
    frames += [queue_selectors.pair_invite_frame(e, "pending") for e in queue_selectors.pair_invitations(user)]
    return frames


def socket_closed(user_id: int, now: datetime | None = None) -> None:
    """The last lobby socket of this person in this process closed: not matched from now on, and
    dropped after the grace unless a socket of theirs (here or in another process) says otherwise."""
    QueueEntry.objects.filter(user_id=user_id, status=QueueEntry.Status.WAITING, left_at__isnull=True).update(
        left_at=now or clock.now())


def heartbeat(user_ids: list[int], now: datetime | None = None) -> int:
    """The people with a lobby socket open in this process are still there (one statement)."""
    if not user_ids:
        return 0
    return QueueEntry.objects.filter(user_id__in=user_ids, status=QueueEntry.Status.WAITING).update(
        seen_at=now or clock.now(), left_at=None)


# ----------------------------------------------------------------------------- the matcher


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the grouping needs to know of one entry (or of a pair queued together: one unit)."""

    id: int
    rating: float
    waited: float  # seconds
    reliable: bool = True  # games/selectors/reliability.py: unreliable only when judged so


def fits(gap: float, a: Waiting, b: Waiting) -> bool:
    """Two people may play when their ratings' gap lies within the window of either of them (who
    has waited long accepts a wider gap, and a newcomer is not kept from a person already there),
    and, while both waited less than RELIABILITY_MIX_SECONDS, when both are reliable or neither is.

    >>> fits(150, Waiting(1, 1500, 0), Waiting(2, 1650, 0)), fits(150, Waiting(1, 1500, 5), Waiting(2, 1650, 0))
    (False, True)
    >>> quitter = Waiting(2, 1510, 0, reliable=False)
    >>> fits(10, Waiting(1, 1500, 0), quitter), fits(10, Waiting(1, 1500, 15), quitter)
    (False, True)
    """
    if gap > max(rating_window(a.waited), rating_window(b.waited)):
        return False
    return a.reliable == b.reliable or max(a.waited, b.waited) >= RELIABILITY_MIX_SECONDS


def is_reliable(reliability: float | None) -> bool:
    return reliability is None or reliability >= RELIABLE_SHARE


Apart = set[frozenset[int]]  # pairs of ids never put in one group (one of them blocks the other)


def _pick(anchor: Waiting, pool: list[Waiting], lo: int, hi: int, taken: set[int], count: int,
          widest: float, apart: Apart | None = None) -> list[Waiting]:
    """The `count` people of `pool` (sorted by rating) not in `taken` who fit `anchor`, searched
    outwards from positions `lo` (down) and `hi` (up) by rating gap: the nearest of the anchor's
    kind (reliable or not) first, then the nearest of the other kind; never one kept `apart`
    from the anchor or from one already picked. Fewer when there are not enough."""
    same: list[Waiting] = []
    other: list[Waiting] = []
    while len(same) < count:
        while lo >= 0 and pool[lo].id in taken:
            lo -= 1
        while hi < len(pool) and pool[hi].id in taken:
            hi += 1
        left = anchor.rating - pool[lo].rating if lo >= 0 else None
        right = pool[hi].rating - anchor.rating if hi < len(pool) else None
        if left is None and right is None:
            break
        if right is None or (left is not None and left <= right):
            candidate, gap = pool[lo], left
            lo -= 1
        else:
            candidate, gap = pool[hi], right
            hi += 1
        if gap > widest:
            break  # the nearest one left is too far for anybody: so is everyone beyond
        if fits(gap, anchor, candidate) and not (apart and any(
                frozenset((candidate.id, w.id)) in apart for w in (anchor, *same, *other))):
            (same if candidate.reliable == anchor.reliable else other).append(candidate)
    return (same + other)[:count]


def make_groups(waiting: list[Waiting], size: int, apart: Apart | None = None) -> list[list[Waiting]]:
    """Groups of `size` people, nobody in two: oldest first, each person not yet taken takes the
    `size - 1` nearest ratings among those not yet taken that `fits` them, people of their own
    kind (reliable or not) first. Who fits no group waits for the next pass.

    >>> a, b, c = Waiting(1, 1500, 0), Waiting(2, 1550, 0), Waiting(3, 1900, 0)
    >>> [[w.id for w in g] for g in make_groups([a, b, c], 2)]
    [[1, 2]]
    >>> make_groups([a, c], 2)
    []
    >>> [[w.id for w in g] for g in make_groups([a, Waiting(3, 1900, 40)], 2)]
    [[3, 1]]
    >>> quitter = Waiting(4, 1510, 20, reliable=False)  # nearer, but a reliable one is in the window
    >>> [[w.id for w in g] for g in make_groups([Waiting(1, 1500, 20), quitter, Waiting(2, 1560, 0)], 2)]
    [[1, 2]]

    `apart` holds pairs of ids never put in one group (one of the two blocks the other):

    >>> [[w.id for w in g] for g in make_groups([a, b, Waiting(4, 1560, 0)], 2, apart={frozenset((1, 2))})]
    [[1, 4]]
    """
    if not waiting:
        return []
    pool = sorted(waiting, key=lambda w: (w.rating, w.id))
    index = {w.id: i for i, w in enumerate(pool)}
    widest = max(rating_window(w.waited) for w in waiting)  # nobody accepts a wider gap than this
    taken: set[int] = set()
    groups: list[list[Waiting]] = []
    for anchor in sorted(waiting, key=lambda w: (-w.waited, w.id)):
        if anchor.id in taken:
            continue
        picked = _pick(anchor, pool, index[anchor.id] - 1, index[anchor.id] + 1, taken, size - 1, widest, apart)
        if len(picked) == size - 1:
            group = [anchor, *picked]
            taken.update(w.id for w in group)
            groups.append(group)
    return groups


def pairs_against_singles(pairs: list[Waiting], singles: list[Waiting],
                          apart: Apart | None = None) -> list[tuple[Waiting, list[Waiting]]]:
    """Each ready pair (a unit rated at its two players' mean), oldest first, against the two
    singles nearest that rating who fit it; the singles taken are no longer available.

    >>> pair = Waiting(10, 1500, 0)
    >>> [(p.id, [s.id for s in two]) for p, two in pairs_against_singles([pair], [
    ...     Waiting(1, 1480, 0), Waiting(2, 1900, 0), Waiting(3, 1530, 0)])]
    [(10, [1, 3])]
    """
    if not pairs or not singles:
        return []
    pool = sorted(singles, key=lambda w: (w.rating, w.id))
    ratings = [w.rating for w in pool]
    widest = max(rating_window(w.waited) for w in [*pairs, *singles])
    taken: set[int] = set()
    found = []
    for pair in sorted(pairs, key=lambda w: (-w.waited, w.id)):
        at = bisect.bisect_left(ratings, pair.rating)
        two = _pick(pair, pool, at - 1, at, taken, 2, widest, apart)
        if len(two) == 2:
            taken.update(w.id for w in two)
            found.append((pair, two))
    return found


def seating(entries: list[QueueEntry]) -> list[QueueEntry]:
    """Seat order: two people as they come; four with the strongest and the weakest together
    (seats 0 and 2 against 1 and 3), the split with the most even sides' ratings.

    >>> order = seating([QueueEntry(id=i, rating=r) for i, r in enumerate([1500, 1800, 1400, 1600])])
    >>> [e.rating for e in order]
    [1400, 1500, 1800, 1600]
    """
    if len(entries) != 4:
        return list(entries)
    low, second, third, high = sorted(entries, key=lambda e: (e.rating, e.id))
    return [low, second, high, third]


PAIR_INVITE_SECONDS = 120  # an invitation to queue as a pair not answered this long lapses


def _lapsed_invitations(entries: list[QueueEntry], now: datetime) -> list[QueueEntry]:
    """Entries that invited a partner more than PAIR_INVITE_SECONDS ago who never named them back."""
    due = now - timedelta(seconds=PAIR_INVITE_SECONDS)
    old = [e for e in entries if e.partner_id is not None and e.joined_at <= due]
    if not old:
        return []
    answered = set(QueueEntry.objects.filter(
        status=QueueEntry.Status.WAITING, user_id__in=[e.partner_id for e in old],
        partner_id__in=[e.user_id for e in old]).values_list("user_id", "partner_id"))
    return [e for e in old if (e.partner_id, e.user_id) not in answered]


def _unit(entry: QueueEntry, now: datetime) -> Waiting:
    return Waiting(entry.pk, entry.rating, (now - entry.joined_at).total_seconds(), is_reliable(entry.reliability))


def table_groups(members: list[QueueEntry], players: int, now: datetime,
                 blocked: set[frozenset[int]] = frozenset()) -> list[list[QueueEntry]]:
    """The tables one queue's present entries make, each as its people in seat order; two people
    of a `blocked` pair of user ids (one blocks the other) are never at one table.

    Singles are grouped by `make_groups`. In pairs, a pair is two entries that name each other
    (an entry whose partner has not named it back is an invitation and waits): ready pairs meet
    another ready pair first, then two singles, and the singles left make tables of four.
    Partners sit as partners (seats 0 and 2, or 1 and 3). A pair counts as one person rated at
    its two players' mean who has waited since the later of the two joined.
    """
    singles = [e for e in members if e.partner_id is None]
    by_id = {e.pk: e for e in singles}
    unit_of = {e.user_id: e.pk for e in singles}  # a pair's two people map to the pair's unit below

    def apart() -> Apart:
        return {frozenset((unit_of[x], unit_of[y])) for x, y in map(tuple, blocked)
                if x in unit_of and y in unit_of and unit_of[x] != unit_of[y]}

    if players == 2:
        return [[by_id[w.id] for w in group] for group in make_groups([_unit(e, now) for e in singles], 2, apart())]
    named = {(e.user_id, e.partner_id): e for e in members if e.partner_id is not None}
    pair_of: dict[int, tuple[QueueEntry, QueueEntry]] = {}
    units: list[Waiting] = []
    for (user_id, partner_id), first in named.items():
        second = named.get((partner_id, user_id))
        if second is None or first.pk > second.pk:
            continue  # an invitation, or the pair seen from its other entry
        a, b = _unit(first, now), _unit(second, now)
        pair_of[first.pk] = (first, second)
        unit_of[first.user_id] = unit_of[second.user_id] = first.pk
        units.append(Waiting(first.pk, (a.rating + b.rating) / 2, min(a.waited, b.waited), a.reliable and b.reliable))
    kept_apart = apart()
    tables: list[list[QueueEntry]] = []
    matched_pairs: set[int] = set()
    for one, other in make_groups(units, 2, kept_apart):
        (a1, b1), (a2, b2) = pair_of[one.id], pair_of[other.id]
        tables.append([a1, a2, b1, b2])
        matched_pairs.update((one.id, other.id))
    single_units = [_unit(e, now) for e in singles]
    taken: set[int] = set()
    for pair, two in pairs_against_singles([u for u in units if u.id not in matched_pairs], single_units, kept_apart):
        a, b = pair_of[pair.id]
        tables.append([a, by_id[two[0].id], b, by_id[two[1].id]])
        taken.update(w.id for w in two)
    rest = [u for u in single_units if u.id not in taken]
    tables += [seating([by_id[w.id] for w in group]) for group in make_groups(rest, 4, kept_apart)]
    return tables


_last_purge = 0.0


def run_matcher(now: datetime | None = None, *, queue: tuple[str, str] | None = None,
                lobby_now: bool = True) -> dict[str, int]:
    """One pass of the matcher over every queue (or one `queue`): drop who left, match who fits,
    give the computer to who opted in and waited long enough. Returns what it did. The tables
    it starts reach the lobby's list at once, or with `lobby_now` false at the next scheduler
    tick (a join's pass: the people matched hear of it at once either way)."""
    now = now or clock.now()
    done = {"claimed": 0, "dropped": 0, "tables": 0, "matched": 0, "computer": 0}
    messages: Messages = []
    with transport.delivered_together(), batched_announcements(lobby_now=lobby_now), transaction.atomic():
        claim = (QueueEntry.objects.select_for_update(skip_locked=True, of=("self",)).select_related("user")
                 .filter(status=QueueEntry.Status.WAITING))
        if queue is not None:
            claim = claim.filter(mode=queue[0], preset=queue[1])
        entries = list(claim.order_by("joined_at")[:CLAIM_LIMIT])
        done["claimed"] = len(entries)
        if not entries:
            return done
        grace = timedelta(seconds=settings.QUEUE_LEAVE_GRACE_SECONDS)
        stale = now - timedelta(seconds=settings.QUEUE_STALE_SECONDS)
        gone = [e for e in entries if (e.left_at is not None and e.left_at <= now - grace) or e.seen_at < stale]
        lapsed = _lapsed_invitations([e for e in entries if e not in gone], now)
        if gone or lapsed:
            QueueEntry.objects.filter(pk__in=[e.pk for e in gone + lapsed]).delete()
            messages += [(transport.user_group(e.user_id), queue_selectors.idle_frame("left")) for e in gone]
            messages += [(transport.user_group(e.user_id), queue_selectors.idle_frame("partner_timeout"))
                         for e in lapsed]
        dropped = {e.pk for e in gone + lapsed}
        if dropped:
            messages += _break_pairs(gone + lapsed, "partner_left", dropped)
            done["dropped"] = len(dropped)
        present = [e for e in entries if e.pk not in dropped and e.left_at is None and e.seen_at >= stale]
        queues: dict[tuple[str, str], list[QueueEntry]] = defaultdict(list)
        for entry in present:
            queues[(entry.mode, entry.preset)].append(entry)
        placed: set[int] = set()
        # People where one blocks the other are never put at one table (one query per pass).
        blocked = social_selectors.blocked_pairs([e.user_id for e in present])
        for (mode, preset), members in queues.items():
            for people in table_groups(members, MODE_PLAYERS[mode], now, blocked):
                outcome = _seat_group(people, mode, preset, now, messages)
                if outcome == "full":
                    break  # the site is full: the rest wait for the next pass
                if outcome == "seated":
                    placed.update(e.pk for e in people)
                    done["tables"] += 1
                    done["matched"] += len(people)
        due = now - timedelta(seconds=_computer_after_seconds())
        for entry in present:
            if entry.pk not in placed and entry.computer_after and entry.joined_at <= due:
                outcome = _seat_with_computer(entry, now, messages)
                if outcome == "full":
                    break
                done["computer"] += outcome == "seated"
        _deliver_after_commit(messages)
    _purge_now_and_then(now)
    return done


def _seat_group(people: list[QueueEntry], mode: str, preset: str, now: datetime, messages: Messages) -> str:
    """A rated public table for these people, started: "seated"; "full" when the site refused a
    table; "failed" when something else went wrong (logged; they wait, the others go on)."""
    def open_table() -> None:
        table = create_table(creator=people[0].user, ruleset=_ruleset(mode, preset), rated=True)
        for position, entry in enumerate(people[1:], start=1):
            sit(table_id=table.pk, user=entry.user, position=position)
        _matched(people, table, now, messages,
                 [{"position": p, "username": e.user.username, "bot_level": None} for p, e in enumerate(people)])

    return _in_savepoint(open_table, f"{len(people)} people in {mode}/{preset}")


def _seat_with_computer(entry: QueueEntry, now: datetime, messages: Messages) -> str:
    """Nobody came: an unrated table against the computer (medio), started (as `_seat_group`)."""
    players = MODE_PLAYERS[entry.mode]

    def open_table() -> None:
        table = create_table(creator=entry.user, ruleset=_ruleset(entry.mode, entry.preset), rated=False)
        for position in range(1, players):
            fill_with_computer(table_id=table.pk, user=entry.user, position=position, level=COMPUTER_LEVEL)
        seats = [{"position": 0, "username": entry.user.username, "bot_level": None}]
        seats += [{"position": p, "username": None, "bot_level": COMPUTER_LEVEL.value} for p in range(1, players)]
        _matched([entry], table, now, messages, seats)

    return _in_savepoint(open_table, f"person {entry.user_id} against the computer")


def _in_savepoint(open_table, what: str) -> str:
    """Run one table's opening in a savepoint: a refusal or a failure undoes that table only."""
    try:
        with transaction.atomic():
            open_table()
    except ServiceError as exc:
        log.warning("matchmaking: no table for %s: %s", what, exc.code)
        return "full" if exc.code == "site_full" else "failed"
    except Exception:  # noqa: BLE001 - one broken table must not keep the whole queue waiting
        log.exception("matchmaking: opening a table for %s failed", what)
        return "failed"
    return "seated"


def _matched(people: list[QueueEntry], table, now: datetime, messages: Messages, seats: list[dict[str, Any]]) -> None:
    updated = QueueEntry.objects.filter(pk__in=[e.pk for e in people], status=QueueEntry.Status.WAITING).update(
        status=QueueEntry.Status.MATCHED, table=table, matched_at=now)
    if updated != len(people):  # cannot happen under the row locks; never seat anyone twice
        raise RuntimeError("matchmaking: an entry changed under its lock")
    frame = queue_selectors.matched_frame(table, seats)
    messages.extend((transport.user_group(e.user_id), frame) for e in people)


def _purge_now_and_then(now: datetime) -> None:
    """Matched entries are kept a day (a reload right after a match is told again; figures);
    each process deletes the older ones every PURGE_EVERY_SECONDS."""
    global _last_purge
    if time.monotonic() - _last_purge < PURGE_EVERY_SECONDS:
        return
    _last_purge = time.monotonic()
    QueueEntry.objects.filter(status=QueueEntry.Status.MATCHED, matched_at__lt=now - KEEP_MATCHED).delete()
