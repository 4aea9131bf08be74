"""Counting the mistakes an experienced player would never make (issue 13), hand by hand.

The auditor watches a whole game with every card face up (it is a referee, not a player: no
decision ever reads it). Each detector is a plain function of the game *before* an action, the
seat and the action, so it can be tried on a position built by hand; :class:`Auditor` runs them
all while a tournament plays and keeps the counts per level.

Categories (each counted for the level of the seat that made the move):

- ``dirty_3_early``: a new 3-card meld with a wild while the stock is still long (more than 45
  cards in a 2-player hand, i.e. the first 18 drawn; the 4-player stock starts at 41, so there it
  is more than 23: the same 18 cards);
- ``run_beside_own_run``: a new run of a suit whose cards could all have been laid off on a run
  of that suit the side already had (the engine says whether that lay-off was legal);
- ``lone_wild``: a discard after the side's pozzetto that leaves one card in hand, a wild (it
  cannot be discarded to close, nor left alone by a meld or lay-off);
- ``wild_discarded``: a wild thrown on the pile when a natural card could have been;
- ``unsafe_discard``: a discard that lays off on an opponent meld when a legal natural discard
  that fits none of their melds existed;
- ``gift_burraco``: a discard that would complete an opponent burraco when another legal discard
  would not;
- ``pile_taken_after``: a discard after which the next player took the pile;
- ``missed_close``: a turn in which the seat could have closed (found by searching the turn
  with the engine: every single-card lay-off and three-card meld it lists, several cards laid on
  one meld, the whole hand or all but one card melded at once, then the discard) and did not;
  ``missed_winning_close`` counts those where that close would have left its side ahead;
- ``missed_pozzetto``: a turn in which the same search reached the pozzetto (in diretta or with
  the discard) and the seat ended it without.

The turn search runs when the hand after the draw holds at most :data:`SEARCH_MAX_HAND` cards
(a close or a pozzetto from a longer hand in one turn is rare) and stops after
:data:`SEARCH_MAX_NODES` positions; how often it stopped is reported (``search_truncated``).
Besides the mistakes it counts, per level, the discards, the turns searched, the chances to
close and to take the pozzetto, and the clean and dirty burraco on the table at the end.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from games.engine import Card, Game, IllegalMove, Meld, check_meld, lay_off

Action = dict[str, Any]

CATEGORIES = (
    "dirty_3_early", "run_beside_own_run", "lone_wild", "wild_discarded", "unsafe_discard",
    "gift_burraco", "pile_taken_after", "missed_close", "missed_winning_close", "missed_pozzetto",
)
INFO = ("discards", "turns_searched", "search_truncated", "close_chances", "pozzetto_chances",
        "burraco_pulito", "burraco_dirty")

EARLY_DRAWS = 18  # "early" = the first 18 cards drawn from the stock (45 left of 63 with 2 players)
SEARCH_MAX_HAND = 9
SEARCH_MAX_NODES = 3000
AVAILABLE = "available"


# ----------------------------------------------------------------------------- reading


def _side(seat: int) -> int:
    return seat % 2


def _cards(action: Action) -> list[Card]:
    cards = action.get("cards")
    if cards is None and "card" in action:
        cards = [action["card"]]
    return [Card.parse(t) for t in cards or ()]


def early_stock(game: Game) -> int:
    """Stock counts above this are 'early' in this hand (45 with 2 players, 23 with 4)."""
    return len(game.deal["stock"]) - EARLY_DRAWS


def fits_melds(melds: list[Meld], card: Card, ruleset) -> tuple[bool, bool]:
    """Would `card` lay off on one of `melds`; would it complete a burraco there?"""
    fits = burraco = False
    for meld in melds:
        if not meld.could_take(card):
            continue
        try:
            new = lay_off(meld, [card], ruleset)
        except IllegalMove:
            continue
        fits = True
        if new.burraco and not meld.burraco:
            burraco = True
    return fits, burraco


def _legal_discards(game: Game, seat: int) -> list[Card]:
    return [Card.parse(a["card"]) for a in game.legal_actions(seat, kinds=("discard",))]


# ----------------------------------------------------------------------------- detectors
# Each takes the game before `action` is applied by `seat`.


def dirty_3_early(game: Game, seat: int, action: Action, early: int | None = None) -> bool:
    if action.get("type") != "meld":
        return False
    cards = _cards(action)
    if len(cards) != 3:
        return False
    try:
        meld = check_meld(cards, game.ruleset)
    except IllegalMove:
        return False
    early = early_stock(game) if early is None else early
    return meld.wild is not None and len(game.stock) > early


def run_beside_own_run(game: Game, seat: int, action: Action) -> bool:
    if action.get("type") != "meld":
        return False
    cards = _cards(action)
    try:
        meld = check_meld(cards, game.ruleset)
    except IllegalMove:
        return False
    if meld.kind != "sequence":
        return False
    texts = [c.text for c in cards]
    for own in game.table[_side(seat)]:
        if own.kind == "sequence" and own.suit == meld.suit and game.is_legal(
                seat, {"type": "lay_off", "meld": own.id, "cards": texts}):
            return True
    return False


def lone_wild(game: Game, seat: int, action: Action) -> bool:
    if action.get("type") != "discard":
        return False
    hand = list(game.hands[seat])
    if len(hand) != 2 or game.pozzetto_state[_side(seat)] == AVAILABLE:
        return False
    try:
        hand.remove(Card.parse(action["card"]))
    except ValueError:
        return False
    return hand[0].is_wild


def wild_discarded(game: Game, seat: int, action: Action) -> bool:
    if action.get("type") != "discard" or not Card.parse(action["card"]).is_wild:
        return False
    return any(not c.is_wild for c in _legal_discards(game, seat))


def _avoidable_help(game: Game, seat: int, action: Action, burraco: bool, natural_only: bool) -> bool:
    """A discard the opponents could lay off (`burraco`: one that completes a burraco of theirs)
    while another legal discard (`natural_only`: a natural card) would not have."""
    if action.get("type") != "discard":
        return False
    theirs = game.table[1 - _side(seat)]
    card = Card.parse(action["card"])
    if not fits_melds(theirs, card, game.ruleset)[burraco]:
        return False
    return any(not (natural_only and c.is_wild) and not fits_melds(theirs, c, game.ruleset)[burraco]
               for c in _legal_discards(game, seat))


def unsafe_discard(game: Game, seat: int, action: Action) -> bool:
    return _avoidable_help(game, seat, action, burraco=False, natural_only=True)


def gift_burraco(game: Game, seat: int, action: Action) -> bool:
    return _avoidable_help(game, seat, action, burraco=True, natural_only=False)


ACTION_DETECTORS = {
    "run_beside_own_run": run_beside_own_run,
    "lone_wild": lone_wild,
    "wild_discarded": wild_discarded,
    "unsafe_discard": unsafe_discard,
    "gift_burraco": gift_burraco,
}


def action_mistakes(game: Game, seat: int, action: Action, early: int | None = None) -> list[str]:
    """The categories `action` falls in (the game is the one before it)."""
    found = [name for name, detect in ACTION_DETECTORS.items() if detect(game, seat, action)]
    if dirty_3_early(game, seat, action, early):
        found.insert(0, "dirty_3_early")
    return found


# ----------------------------------------------------------------------------- the turn search


def _plays(game: Game, seat: int) -> list[Action]:
    """Plays to try from this position: what `legal_actions` lists, plus several cards laid on
    one meld and the whole hand (or all of it but one card) melded at once."""
    plays = list(game.legal_actions(seat, kinds=("lay_off", "meld")))
    hand = game.hands[seat]
    texts = [c.text for c in hand]
    n = len(hand)
    seen: set[tuple[Any, ...]] = set()
    if n <= 5:
        for meld in game.table[_side(seat)]:
            for k in range(2, n + 1):
                for combo in combinations(range(n), k):
                    cards = tuple(sorted(texts[i] for i in combo))
                    if (meld.id, cards) in seen:
                        continue
                    seen.add((meld.id, cards))
                    try:
                        lay_off(meld, [hand[i] for i in combo], game.ruleset)
                    except IllegalMove:
                        continue
                    plays.append({"type": "lay_off", "meld": meld.id, "cards": list(cards)})
    if n >= 4:
        groups = [texts] + [texts[:i] + texts[i + 1:] for i in range(n)]
        for group in groups:
            if len(group) < 4 or tuple(sorted(group)) in seen:
                continue
            seen.add(tuple(sorted(group)))
            try:
                check_meld(group, game.ruleset)
            except IllegalMove:
                continue
            plays.append({"type": "meld", "cards": list(group)})
    return plays


def turn_reach(game: Game, seat: int, max_nodes: int = SEARCH_MAX_NODES) -> dict[str, Any]:
    """What `seat` could still reach this turn from `game` (its play phase): whether it could
    take its pozzetto, and the best score difference for its side of a close (None: no close).
    """
    side = _side(seat)
    want_pozzetto = game.pozzetto_state[side] == AVAILABLE
    out: dict[str, Any] = {"pozzetto": False, "close": None, "truncated": False, "nodes": 0,
                           "line": None}

    def closed(g: Game, line: list[Action]) -> None:
        s = g.score()
        diff = s[side]["total"] - s[1 - side]["total"]
        if out["close"] is None or diff > out["close"]:
            out["close"] = diff
            out["line"] = line

    stack: list[tuple[Game, list[Action]]] = [(game, [])]
    seen: set[tuple[Any, ...]] = set()
    while stack:
        g, path = stack.pop()
        key = (tuple(sorted(c.text for c in g.hands[seat])),
               tuple(sorted(tuple(m.texts()) for m in g.table[side])))
        if key in seen:
            continue
        seen.add(key)
        out["nodes"] += 1
        if out["nodes"] > max_nodes:
            out["truncated"] = True
            break
        if len(g.hands[seat]) == 1:
            for a in g.legal_actions(seat, kinds=("discard",)):
                after = g.copy()
                after.apply(seat, a)
                if want_pozzetto:
                    out["pozzetto"] = True
                    out["line"] = path + [a]
                elif after.hand_over and after.closed_by == seat:
                    closed(after, path + [a])
        if want_pozzetto and out["pozzetto"]:
            break
        for a in _plays(g, seat):
            after = g.copy()
            try:
                after.apply(seat, a)
            except IllegalMove:
                continue
            if after.hand_over:
                if after.closed_by == seat:
                    closed(after, path + [a])
                continue
            if want_pozzetto and after.pozzetto_state[side] != AVAILABLE:
                out["pozzetto"] = True
                out["line"] = path + [a]
                break
            stack.append((after, path + [a]))
        if want_pozzetto and out["pozzetto"]:
            break
    return out


# ----------------------------------------------------------------------------- the auditor


class Auditor:
    """Counts per level over whole hands. Call :meth:`start` with each new hand and the level of
    each seat, then :meth:`step` for every action instead of `game.apply`."""

    def __init__(self, keep_examples: int = 0) -> None:
        self.counts: dict[str, Counter] = {}
        self.keep_examples = keep_examples
        self.examples: dict[str, list[dict[str, Any]]] = {}  # a few positions per category, to read
        self.side_hands: Counter = Counter()
        self._levels: list[str] = []
        self._early = 0
        self._pending: dict[str, Any] | None = None
        self._last_discard: tuple[int, str] | None = None

    def _count(self, level: str, name: str, k: int = 1, game: Game | None = None,
               **detail: Any) -> None:
        self.counts.setdefault(level, Counter())[name] += k
        if game is not None and len(self.examples.setdefault(name, [])) < self.keep_examples:
            self.examples[name].append({"level": level, "position": game.position(), **detail})

    def start(self, game: Game, levels: list[str]) -> None:
        self._levels = list(levels)
        self._early = early_stock(game)
        self._pending = None
        self._last_discard = None
        for side in range(2):
            self.side_hands[levels[side]] += 1
            self.counts.setdefault(levels[side], Counter())

    def step(self, game: Game, seat: int, action: Action) -> None:
        """Audit `action`, apply it to `game` (an illegal one raises, as with `apply`)."""
        level = self._levels[seat]
        if action.get("type") == "take_discards" and self._last_discard is not None:
            by = self._last_discard[0]
            if _side(by) != _side(seat):
                self._count(self._levels[by], "pile_taken_after")
        if action.get("type") in ("draw", "take_discards"):
            self._last_discard = None
        for name in action_mistakes(game, seat, action, self._early):
            self._count(level, name, game=game, seat=seat, action=action)
        if action.get("type") == "discard":
            self._count(level, "discards")
        side = _side(seat)
        game.apply(seat, action)
        if action["type"] in ("draw", "take_discards") and len(game.hands[seat]) <= SEARCH_MAX_HAND:
            reach = turn_reach(game, seat)
            self._count(level, "turns_searched")
            if reach["truncated"]:
                self._count(level, "search_truncated")
            self._pending = {"seat": seat, "before": game.copy() if self.keep_examples else None, **reach}
        turn_over = game.hand_over or action["type"] == "discard"
        if action["type"] == "discard":
            self._last_discard = (seat, action["card"])
        if turn_over and self._pending is not None and self._pending["seat"] == seat:
            pending, self._pending = self._pending, None
            if pending["close"] is not None:
                self._count(level, "close_chances")
                if not (game.hand_over and game.closed_by == seat):
                    self._count(level, "missed_close", game=pending["before"], seat=seat,
                                line=pending["line"],
                                actions=game.actions[len(pending["before"].actions):]
                                if pending["before"] else None)
                    if pending["close"] > 0:
                        self._count(level, "missed_winning_close")
            if pending["pozzetto"]:
                self._count(level, "pozzetto_chances")
                if game.pozzetto_state[side] == AVAILABLE:
                    self._count(level, "missed_pozzetto", game=pending["before"], seat=seat,
                                line=pending["line"],
                                actions=game.actions[len(pending["before"].actions):]
                                if pending["before"] else None)
        if game.hand_over:
            for s in range(2):
                for meld in game.table[s]:
                    if meld.burraco == "pulito":
                        self._count(self._levels[s], "burraco_pulito")
                    elif meld.burraco:
                        self._count(self._levels[s], "burraco_dirty")

    def summary(self) -> dict[str, Any]:
        """Per level: hands played by a side at that level, each count, and each mistake per 100
        of those hands."""
        out: dict[str, Any] = {}
        for level, counts in sorted(self.counts.items()):
            hands = self.side_hands[level]
            out[level] = {
                "side_hands": hands,
                "counts": {name: counts.get(name, 0) for name in CATEGORIES + INFO},
                "per_100_hands": {name: round(100 * counts.get(name, 0) / hands, 2) if hands else None
                                  for name in CATEGORIES},
            }
        return out
