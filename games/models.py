"""Tables, seats, games, hands, the move log and ratings.

The engine state of the hand in play is kept on `Game.state` (the engine's `to_dict()`), but it
is never the only record: every hand's deal is stored on `Hand` and every action on `Move`, so
`engine.replay(deal, actions)` rebuilds any position (history, replays, audits, crash recovery).
`Game.version` counts applied events; the row lock on `Game` plus this number make one writer
per game.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class BotLevel(models.TextChoices):
    PRINCIPIANTE = "principiante", _("Principiante")
    MEDIO = "medio", _("Medio")
    ESPERTO = "esperto", _("Esperto")


class Table(models.Model):
    """A table in the lobby: who may sit, with which rules, and where it stands."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("In attesa")
        PLAYING = "playing", _("In corso")
        FINISHED = "finished", _("Finita")
        ABANDONED = "abandoned", _("Abbandonata")

    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tables_created")
    players = models.PositiveSmallIntegerField(choices=[(2, "2"), (4, "4")], default=2)
    preset = models.CharField(max_length=20, default="classico")
    # The engine's Ruleset.to_dict(): the single source of the rules this table plays.
    options = models.JSONField(default=dict)
    draw_seconds = models.PositiveSmallIntegerField(default=30)
    play_seconds = models.PositiveSmallIntegerField(default=60)
    disconnect_grace_seconds = models.PositiveSmallIntegerField(default=45)
    rated = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=32, default=new_invite_token, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "private", "-created_at"], name="table_lobby_idx")]

    def __str__(self) -> str:
        return f"Tavolo {self.pk} ({self.players} giocatori, {self.get_status_display()})"


class Seat(models.Model):
    """One place at a table: a person, a computer player, or empty (neither)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot_level = models.CharField(max_length=12, choices=BotLevel.choices, blank=True, default="")
    # Live cover: the computer plays for a person who timed out twice or dropped ("Sono tornato"
    # gives the seat back). Counted per match for rating fairness.
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    covered_by_computer = models.BooleanField(default=False)
    covered_moves = models.PositiveIntegerField(default=0)
    own_moves = models.PositiveIntegerField(default=0)
    # The player's own entropy for the next deal (sent with `hello`, docs/fairness.md): public,
    # recorded in each deal it went into; "" when none was given.
    client_seed = models.CharField(max_length=64, blank=True, default="", db_default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position"),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot_level="")),
                name="seat_person_or_computer",
            ),
        ]
        ordering = ["position"]

    def __str__(self) -> str:
        who = self.user.username if self.user_id else (self.bot_level or "—")
        return f"Posto {self.position} del tavolo {self.table_id}: {who}"

    @property
    def side(self) -> int:
        """Seats 0 and 2 are side 0, seats 1 and 3 side 1."""
        return self.position % 2

    @property
    def is_computer(self) -> bool:
        return bool(self.bot_level)

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and not self.bot_level


class Game(models.Model):
    """The match played at a table: the hand in play, the running totals, the clock."""

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="game")
    hand_number = models.PositiveSmallIntegerField(default=1)
    state = models.JSONField(default=dict)  # engine Game.to_dict() of the hand in play
    totals = models.JSONField(default=list)  # match totals per side, before the hand in play
    version = models.PositiveIntegerField(default=0)
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # When the scheduler must next look at this game (a turn deadline, a computer's move that is
    # overdue, a player away past the grace); null when nothing is due. Deadlines are data: one
    # scheduler scans this index instead of a countdown task per action (games/services/scheduler.py).
    due_at = models.DateTimeField(null=True, blank=True)
    finished = models.BooleanField(default=False, db_index=True)
    winner_side = models.SmallIntegerField(null=True, blank=True)  # None with finished = a draw
    result = models.JSONField(default=dict, blank=True)
    abandoned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["due_at"], condition=models.Q(finished=False, due_at__isnull=False),
                         name="game_due_idx"),
        ]

    def __str__(self) -> str:
        return f"Partita del tavolo {self.table_id}, mano {self.hand_number}"


class SchedulerState(models.Model):
    """The scheduler's own clock: when a tick last found PostgreSQL and Redis serving. A gap
    longer than a few ticks means the site could not serve, and the turn deadlines that fell in
    it are moved on by its length instead of being enforced (games/services/scheduler.py)."""

    name = models.CharField(max_length=20, primary_key=True)
    last_tick = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name}: {self.last_tick:%Y-%m-%d %H:%M:%S}"


class Hand(models.Model):
    """One hand of a match: its deal (to replay it) and, once over, its scoring."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    deal = models.JSONField()  # engine Game.deal: hands, stock order, discard, pozzetti, first player
    # The secret seed the deal was shuffled from (64 hex digits; "" for a hand dealt before fair
    # deals). Its hash is in `deal["commitment"]`; the seed itself is read only once the hand is
    # over (games/selectors/fairness.py), never while it is played (docs/fairness.md).
    seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    # The seed already drawn for the next hand, its hash announced in this deal's commitment
    # (`next_hash`): it becomes the next Hand's `seed`, and is as secret as that one.
    next_seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    score = models.JSONField(null=True, blank=True)  # engine score() per side, once the hand is over
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="hand_unique_number")]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"Mano {self.number} della partita {self.game_id}"


class Move(models.Model):
    """The append-only move log: one row per action the engine accepted."""

    class Actor(models.TextChoices):
        PERSON = "person", _("Giocatore")
        COMPUTER = "computer", _("Computer")
        TIMEOUT = "timeout", _("Tempo scaduto")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()  # the game version this move produced
    hand_number = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    actor = models.CharField(max_length=10, choices=Actor.choices, default=Actor.PERSON)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq")]
        indexes = [models.Index(fields=["game", "hand_number", "seq"], name="move_hand_idx")]
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"Mossa {self.seq} della partita {self.game_id}"


class Rematch(models.Model):
    """A finished table's offer of another match: the seats whose people said yes, and the new
    table once every person did, or how the offer ended without one (games/services/lobby/rematch.py)."""

    class Ended(models.TextChoices):
        OPEN = "", _("Aperta")
        DECLINED = "declined", _("Rifiutata")
        LEFT = "left", _("Qualcuno ha lasciato il tavolo")

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="rematch")
    accepted = models.JSONField(default=list)  # seat positions, in the order they accepted
    ended = models.CharField(max_length=10, choices=Ended.choices, default=Ended.OPEN, blank=True)
    ended_by = models.PositiveSmallIntegerField(null=True, blank=True)  # the seat that said no or left
    new_table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Rematch of table {self.table_id}"


class RatingMode(models.TextChoices):
    SINGLES = "2p", _("2 giocatori")
    PAIRS = "4p", _("Coppie")
    # Burraco Reale (RULES §15) is another game: its ratings are kept apart.
    REALE_SINGLES = "r2", _("Burraco Reale, 2 giocatori")
    REALE_PAIRS = "r4", _("Burraco Reale, coppie")

    @classmethod
    def of(cls, players: int, preset: str) -> RatingMode:
        """The ratings a match of `preset` with `players` players counts for.

        >>> RatingMode.of(4, "classico").value, RatingMode.of(2, "reale").value
        ('4p', 'r2')
        """
        if preset == "reale":
            return cls.REALE_PAIRS if players == 4 else cls.REALE_SINGLES
        return cls.PAIRS if players == 4 else cls.SINGLES


class PlayerRating(models.Model):
    """A player's current ELO in one mode, with the counts the leaderboard shows."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    mode = models.CharField(max_length=2, choices=RatingMode.choices)
    rating = models.FloatField(default=1500.0)
    peak = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "mode"], name="rating_unique_user_mode")]
        indexes = [models.Index(fields=["mode", "-rating", "user"], name="rating_board_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.mode}: {self.rating:.0f}"


class RatingChange(models.Model):
    """Every change of a rating, kept so that the history can be recomputed."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    mode = models.CharField(max_length=2, choices=RatingMode.choices)
    before = models.FloatField()
    after = models.FloatField()
    score = models.FloatField()  # 1 won, 0.5 drawn, 0 lost
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # Exactly once per finished match, even if the finish is retried.
            models.UniqueConstraint(fields=["user", "game"], name="rating_change_once_per_game"),
        ]
        indexes = [models.Index(fields=["user", "mode", "created_at"], name="rating_change_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.mode}: {self.before:.0f} → {self.after:.0f}"


class QueueEntry(models.Model):
    """One person waiting in "Gioca con persone" for a mode (RatingMode) and a preset, and, once
    matched, the table they were given (games/services/lobby/matchmaking.py). At most one waiting entry
    per person; the matcher claims entries with FOR UPDATE SKIP LOCKED, so none is matched twice.

    `seen_at` is refreshed by the person's lobby sockets (a heartbeat of every Daphne process);
    `left_at` is set when their last lobby socket closed: past a short grace the entry is dropped,
    within it (a reload) the next socket clears it."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("In coda")
        MATCHED = "matched", _("Abbinato")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entries")
    mode = models.CharField(max_length=2, choices=RatingMode.choices)
    preset = models.CharField(max_length=20)
    rating = models.FloatField()  # the person's rating in `mode` when they joined
    computer_after = models.BooleanField(default=False)  # opted in: the computer if nobody comes
    # The person's reliability when they joined (games/selectors/reliability.py): the share of
    # their matches they finished, or None with too few matches to judge.
    reliability = models.FloatField(null=True, blank=True)
    # Pairs queued together: each of the two names the other. An entry whose partner has not
    # (yet) named it back is an invitation and is not matched; once both name each other the
    # pair is matched as one side, against another pair or two singles.
    partner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    joined_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user"], condition=models.Q(status="waiting"),
                                    name="queue_one_waiting_entry_per_user"),
        ]
        indexes = [
            models.Index(fields=["joined_at"], condition=models.Q(status="waiting"), name="queue_waiting_idx"),
            models.Index(fields=["user", "-matched_at"], condition=models.Q(status="matched"),
                         name="queue_matched_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.mode} {self.preset}: {self.status}"


class Challenge(models.Model):
    """One person's invitation of another to a game for two (games/services/lobby/challenges.py). A
    pending invitation past `expires_at` counts as expired whether or not a write marked it so;
    accepting makes a private, unrated table with both seated and started (`table`)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("In attesa")
        ACCEPTED = "accepted", _("Accettata")
        DECLINED = "declined", _("Rifiutata")
        EXPIRED = "expired", _("Scaduta")
        CANCELLED = "cancelled", _("Annullata")

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent")
    invitee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="challenges_received")
    preset = models.CharField(max_length=20)
    options = models.JSONField(default=dict)  # the engine's Ruleset.to_dict() the table will play
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["challenger", "invitee"], condition=models.Q(status="pending"),
                                    name="challenge_one_pending_per_pair"),
        ]
        indexes = [
            models.Index(fields=["invitee", "expires_at"], condition=models.Q(status="pending"),
                         name="challenge_pending_invitee_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger_id} → {self.invitee_id}: {self.status}"


class Tournament(models.Model):
    """A Swiss event (games/services/tournaments.py): a sit-and-go starts the moment its last
    place is taken, a scheduled one at `starts_at`. Every table of a round plays `options` (the
    engine's Ruleset.to_dict(): preset, players, target None = single hands or 505, timers)."""

    class Kind(models.TextChoices):
        SIT_AND_GO = "sitgo", _("Sit and go")
        SCHEDULED = "scheduled", _("Programmato")

    class Status(models.TextChoices):
        REGISTERING = "registering", _("Iscrizioni aperte")
        RUNNING = "running", _("In corso")
        FINISHED = "finished", _("Concluso")
        CANCELLED = "cancelled", _("Annullato")

    name = models.CharField(max_length=80)
    description = models.TextField(blank=True, default="")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    players = models.PositiveSmallIntegerField(choices=[(2, "2"), (4, "4")], default=2)  # at each table
    capacity = models.PositiveSmallIntegerField()  # entrants (people, or pairs with 4 at a table)
    preset = models.CharField(max_length=20)
    options = models.JSONField(default=dict)
    rounds = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField(null=True, blank=True)  # scheduled events
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERING)
    current_round = models.PositiveSmallIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="tournaments_created")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, default="")  # why it ended early, if it did
    # Duplicate Burraco (games/engine/duplicate.py): every table of a round plays the same
    # `duplicate_deals` deals (single hands) from the same seats; 0 = an ordinary Swiss event.
    duplicate_deals = models.PositiveSmallIntegerField(default=0, db_default=0)
    # How a duplicate deal is scored: "mp" match points (a percentage), "vp" victory points.
    duplicate_scoring = models.CharField(max_length=2, blank=True, default="", db_default="")

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_status_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_status_display()})"

    @property
    def pairs(self) -> bool:
        return self.players == 4

    @property
    def duplicate(self) -> bool:
        return self.duplicate_deals > 0


class TournamentEntry(models.Model):
    """One entrant: a person, or a pair (`partner` set) when four sit at each table. `rating`
    is the entrant's rating at registration (a pair's: the mean), the pairing's second key."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries")
    partner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="tournament_partner_entries")
    rating = models.FloatField()
    registered_at = models.DateTimeField()
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_round = models.PositiveSmallIntegerField(null=True, blank=True)  # left after this round
    final_rank = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_entry_once"),
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.tournament_id}"


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # A duplicate round's deals: one secret seed per deal (64 hex digits, from `secrets`, drawn
    # when the round starts) and the seat that plays first in deal 1 (later deals rotate), the
    # same at every table. Secret until the round ends (`finished_at`): never sent, never shown
    # before (`TournamentPairing.held_tables`, docs/fairness.md).
    seeds = models.JSONField(default=list, blank=True, db_default=[])
    first_player = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="tournament_round_once")]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"Turno {self.number} del torneo {self.tournament_id}"


class TournamentPairing(models.Model):
    """One table of a round (`entry_b` None: `entry_a` has the bye). Scores and match points are
    written in the transaction that finishes the table's match (games/services/tournaments.py)."""

    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="pairings")
    entry_a = models.ForeignKey(TournamentEntry, on_delete=models.CASCADE, related_name="+")
    entry_b = models.ForeignKey(TournamentEntry, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    table = models.OneToOneField(Table, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="tournament_pairing")
    score_a = models.IntegerField(null=True, blank=True)
    score_b = models.IntegerField(null=True, blank=True)
    points_a = models.PositiveSmallIntegerField(null=True, blank=True)
    points_b = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit = models.ForeignKey(TournamentEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    finished_at = models.DateTimeField(null=True, blank=True)
    # A duplicate table's points per deal, in deal order: [[side A, side B], ...] (its hands'
    # totals), written with the result; the scores against the other tables are computed on read.
    deals = models.JSONField(default=list, blank=True, db_default=[])

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.entry_a_id} - {self.entry_b_id} ({self.round_id})"

    @staticmethod
    def held_tables(table_ids) -> set[int]:
        """Of `table_ids`, the tables of a duplicate round still in play: their cards, seeds and
        hands are shown to nobody (spectators, replays, verification) until the round ends."""
        return set(TournamentPairing.objects.filter(
            table_id__in=list(table_ids), round__finished_at__isnull=True,
            round__tournament__duplicate_deals__gt=0).values_list("table_id", flat=True))


class Follow(models.Model):
    """One person follows another ("Amici", games/services/lobby/social.py): the follower sees whether
    the followed player is online and at which table. Never oneself; once per pair."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once_per_pair"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")), name="follow_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    """One person blocks another: the blocked player cannot challenge or follow them, and the
    queue does not pair the two. Never oneself; once per pair."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocking")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once_per_pair"),
            models.CheckConstraint(condition=~models.Q(blocker=models.F("blocked")), name="block_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Notification(models.Model):
    """One line of the header's bell (games/services/notifications.py): an invitation, a rematch
    offer, or "your turn" at a table the person was not looking at. Stored, so it survives a
    reload; `read_at` is set when the person opens the bell. The text is made when shown (in the
    reader's language) from `kind` and the rows it points at."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", _("Invito")
        REMATCH = "rematch", _("Rivincita")
        TURN = "turn", _("Tocca a te")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+")
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    challenge = models.ForeignKey(Challenge, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_idx"),
            models.Index(fields=["user"], condition=models.Q(read_at__isnull=True), name="notification_unread_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} {'read' if self.read_at else 'unread'}"
class Analysis(models.Model):
    """esperto's review of a finished game ("Analisi della partita", games/services/history/analysis.py):
    the costliest draws and discards of each person, judged from what that seat could see then.

    `notes` holds one dict per marked decision: hand, step (the move's index in the hand, i.e.
    its replay frame), seat, kind ("draw" or "discard"), chosen and best (engine actions), gain
    (the mean points the best action was worth over the chosen one). Texts are written when the
    page is shown, in its language."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("In coda")
        RUNNING = "running", _("In corso")
        DONE = "done", _("Pronta")
        FAILED = "failed", _("Non riuscita")
        SKIPPED = "skipped", _("Saltata")  # not done: too many automatic reviews waiting, or it waited too long

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    # A person asked for it from the replay (its own queue, ahead of the automatic backlog, never
    # capped nor expired); False: queued by itself when the match ended.
    asked = models.BooleanField(default=False)
    notes = models.JSONField(default=list, blank=True)
    reviewed = models.PositiveIntegerField(default=0)  # decisions evaluated
    worlds = models.PositiveSmallIntegerField(default=0)  # sampled worlds per decision
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        # The cap counts the automatic reviews waiting (games/services/history/analysis.py): a
        # small index of the queued rows alone, however many reviews are kept.
        indexes = [models.Index(fields=["requested_at"], name="analysis_queued",
                                condition=models.Q(status="queued", asked=False))]

    def __str__(self) -> str:
        return f"Analisi della partita {self.game_id}: {self.status}"
