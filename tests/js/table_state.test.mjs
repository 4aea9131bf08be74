// The table page's state logic (static/js/table/state.js) with node's own test runner:
//   node --test tests/js/
// No DOM: frames go in, state and effects come out.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { cardLabel, shortCard, sortCards } from "../../static/js/lib/cards.js";
import { dropAllowed } from "../../static/js/table/drag.js";
import * as S from "../../static/js/table/state.js";

const LABELS = {
  you: "tu", us: "Noi", them: "Loro", yourTurn: "Tocca a te", turnOf: "Tocca a {name}", matchOver: "Partita finita.",
  handOver: "Mano finita.", byTimeout: "tempo scaduto", byComputer: "giocata dal computer",
  timeoutMe: "Tempo scaduto: il server ha scartato per te.",
  timeoutDrewMe: "Tempo scaduto: il server ha pescato e scartato per te.",
  timeoutOther: "Tempo scaduto per {name}: il server ha finito il turno.",
  coverMe: "Il computer gioca per te finché non torni.", coverOther: "Il computer gioca per {name} finché non torna.",
  computerFor: "Per {names} ha giocato il computer: non si è mai seduto al tavolo.",
  away: "{name} non è in linea.", awayMany: "{names} e {last} non sono in linea.", awayTurn: "{name} non è in linea: tra {time} il computer gioca al suo posto.",
  log: {
    draw: "{name} pesca dal tallone", take: "{name} raccoglie gli scarti ({cards})", meld: "{name} cala {cards}",
    layOff: "{name} lega {cards}", discard: "{name} scarta {card}", pozzetto: "prende il pozzetto",
    closes: "chiude la mano", exhausted: "la mano finisce: il tallone è esaurito",
  },
};
const SEATS = [
  { position: 0, side: 0, name: "anna", computer: false },
  { position: 1, side: 1, name: "bruno", computer: false },
];
const T0 = Date.parse("2026-05-04T18:00:00Z");

function view(over = {}) {
  return {
    players: 2, to_move: 0, phase: "draw", hand_counts: [3, 3], stock_count: 20, discard: ["QD"],
    melds: [[], []], pozzetti: ["available", "available"], picked_single_card: null, hand_over: false,
    end_reason: null, score: null, hand_number: 0, totals: [0, 0], match: null, seat: 0, side: 0,
    hand: ["7H", "3S", "KD"], my_turn: true, allowed: ["draw", "take_discards"], ...over,
  };
}

function snapshot(over = {}) {
  return {
    type: "snapshot", version: 0, seat: 0, view: view(), deadline: "2026-05-04T18:00:30Z",
    server_time: "2026-05-04T18:00:00Z", hand_number: 1, totals: [0, 0], finished: false, result: null,
    table: null, presence: null, ...over,
  };
}

function event(version, seat, action, v, over = {}) {
  return { type: "event", version, hand_number: 1, seat, actor: "person", action, view: v,
    to_move: v.to_move, deadline: "2026-05-04T18:01:00Z", server_time: "2026-05-04T18:00:05Z", ...over };
}

function fresh(over = {}) {
  return S.createState({ seat: 0, players: 2, seats: SEATS, labels: LABELS, tableId: 7, ...over });
}

const cards = (s) => s.hand.map((i) => i.card);

describe("cards", () => {
  test("sort by suit (spades, hearts, clubs, diamonds; aces high) or by rank; 2s then jokers last", () => {
    const hand = ["JK", "2H", "AS", "3S", "KD", "3H", "TC"];
    assert.deepEqual(sortCards(hand, "suit"), ["3S", "AS", "3H", "TC", "KD", "2H", "JK"]);
    assert.deepEqual(sortCards(hand, "rank"), ["3S", "3H", "TC", "KD", "AS", "2H", "JK"]);
  });
  test("short and spoken names", () => {
    assert.equal(shortCard("TH"), "10♥");
    assert.equal(cardLabel("2S", { spades: "picche", pinella: "pinella" }), "2 picche (pinella)");
    assert.equal(cardLabel("JK", { joker: "Jolly" }), "Jolly JK");
  });
});

describe("our hand", () => {
  test("a new deal marks nothing as new; a draw marks only the drawn card", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    assert.deepEqual(cards(s), ["3S", "7H", "KD"]);
    assert.equal(s.fresh.size, 0);
    const keys = s.hand.map((i) => i.key);
    S.applyEvent(s, event(1, 0, { type: "draw" }, view({ phase: "play", hand: ["7H", "3S", "KD", "5H"],
      allowed: ["meld", "lay_off", "discard"] })), T0);
    assert.deepEqual(cards(s), ["3S", "5H", "7H", "KD"]);
    assert.deepEqual([...s.fresh].map((k) => s.hand.find((i) => i.key === k).card), ["5H"]);
    assert.deepEqual(s.hand.filter((i) => i.card !== "5H").map((i) => i.key), keys); // the same nodes
    // The next hand's deal: eleven (here three) cards, none of them "new".
    S.applySnapshot(s, snapshot({ hand_number: 2, version: 9, view: view({ hand: ["4C", "4D", "9S"] }) }), T0);
    assert.equal(s.fresh.size, 0);
  });

  test("the player's own order survives a draw; the new card goes last", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    const kd = s.hand.find((i) => i.card === "KD").key;
    assert.equal(S.moveCard(s, kd, s.hand[0].key), true);
    assert.deepEqual(cards(s), ["KD", "3S", "7H"]);
    S.applyEvent(s, event(1, 0, { type: "draw" }, view({ phase: "play", hand: ["7H", "3S", "KD", "4S"] })), T0);
    assert.deepEqual(cards(s), ["KD", "3S", "7H", "4S"]);
    S.sortHand(s, "rank");
    assert.deepEqual(cards(s), ["3S", "4S", "7H", "KD"]);
    assert.equal(s.custom, false);
  });

  test("the selection stays on the cards still held", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    for (const item of s.hand) S.toggleSelect(s, item.key);
    S.applyEvent(s, event(1, 0, { type: "draw" }, view({ phase: "play", hand: ["7H", "3S", "KD", "4S"] })), T0);
    assert.deepEqual(S.selectedCards(s), ["3S", "7H", "KD"]);
    S.applyEvent(s, event(2, 0, { type: "discard", card: "KD" }, view({ to_move: 1, my_turn: false, allowed: [],
      hand: ["7H", "3S", "4S"], discard: ["QD", "KD"] })), T0);
    assert.deepEqual(S.selectedCards(s), ["3S", "7H"]);
  });

  test("the order is kept across a reload of the same hand only", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    S.moveCard(s, s.hand[2].key, null);
    S.moveCard(s, s.hand.find((i) => i.card === "3S").key, null);
    const saved = S.savedOrder(s);
    assert.deepEqual(saved, { hand: 1, order: ["7H", "KD", "3S"], mode: "suit", custom: true });
    const again = fresh();
    S.applySnapshot(again, snapshot(), T0);
    assert.equal(S.restoreOrder(again, JSON.parse(JSON.stringify(saved))), true);
    assert.deepEqual(cards(again), ["7H", "KD", "3S"]);
    const next = fresh();
    S.applySnapshot(next, snapshot({ hand_number: 2 }), T0);
    assert.equal(S.restoreOrder(next, { ...saved, mode: "rank" }), false);
    assert.deepEqual(cards(next), ["3S", "7H", "KD"]); // by rank, the saved choice of sort
    assert.equal(next.sortMode, "rank");
  });
});

describe("frames", () => {
  test("in the waiting room a snapshot looks at the room once (a seat taken before the socket joined)", () => {
    const waiting = fresh({ status: "waiting" });
    const effects = S.applySnapshot(waiting, snapshot({ version: null, view: null, table: { status: "waiting" } }), T0);
    assert.equal(effects.filter((e) => e.type === "checkWaiting").length, 1);
    const playing = fresh();
    assert.ok(!S.applySnapshot(playing, snapshot(), T0).some((e) => e.type === "checkWaiting"));
  });

  test("a skipped version asks for a snapshot; an old one is ignored", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    assert.deepEqual(S.applyEvent(s, event(3, 0, { type: "draw" }, view()), T0), [{ type: "gap" }]);
    assert.deepEqual(S.applyEvent(s, event(0, 0, { type: "draw" }, view()), T0), []);
    assert.equal(s.version, 0);
  });

  test("what we may do is the view's `allowed`, and nothing while an action is on its way", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    assert.equal(S.allowed(s, "draw"), true);
    assert.equal(S.allowed(s, "discard"), false);
    const frame = S.actionFrame(s, { type: "draw" });
    assert.deepEqual(frame, { type: "action", action: { type: "draw" }, version: 0, ref: "a1" });
    s.pending = frame.ref;
    assert.equal(S.allowed(s, "draw"), false);
    assert.equal(S.actionFrame(s, { type: "draw" }), null);
  });

  test("the tab title and the turn line", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    assert.equal(S.titleFor(s, "Tavolo 7 · Burraco"), "● Tocca a te · Tavolo 7 · Burraco");
    S.applyEvent(s, event(1, 0, { type: "draw" }, view({ to_move: 1, my_turn: false, allowed: [] })), T0);
    assert.equal(S.titleFor(s, "Tavolo 7 · Burraco"), "Tavolo 7 · Burraco");
    assert.equal(S.turnText(s), "Tocca a bruno");
  });

  test("our turn starting is an effect (sound, notification)", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ view: view({ to_move: 1, my_turn: false, allowed: [] }) }), T0);
    const effects = S.applyEvent(s, event(1, 1, { type: "discard", card: "4C" },
      view({ to_move: 0, discard: ["QD", "4C"] })), T0);
    assert.ok(effects.some((e) => e.type === "yourTurn"));
    assert.ok(effects.some((e) => e.type === "sound" && e.name === "discard"));
  });

  test("the clock counts by the server's time", () => {
    const s = fresh();
    // Our clock is 10 s behind the server's: 30 s left by the server is 30 s, not 40.
    S.applySnapshot(s, snapshot({ server_time: "2026-05-04T18:00:00Z" }), T0 - 10000);
    assert.equal(S.secondsLeft(s, T0 - 10000), 30);
    assert.equal(S.clockText(S.secondsLeft(s, T0 - 10000 + 25500)), "0:05");
  });
});

describe("the server's clock and resync frames", () => {
  test("a clock frame moves the deadline of the turn in play only", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ version: 4 }), T0);
    S.applyClock(s, { type: "clock", version: 3, deadline: "2026-05-04T18:09:00Z", server_time: "2026-05-04T18:00:00Z" }, T0);
    assert.equal(S.secondsLeft(s, T0), 30); // an old version: ignored
    S.applyClock(s, { type: "clock", version: 4, deadline: "2026-05-04T18:02:00Z", server_time: "2026-05-04T18:00:00Z" }, T0);
    assert.equal(S.secondsLeft(s, T0), 120);
  });
  test("a pong ahead of us means frames were lost", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ version: 4 }), T0);
    assert.deepEqual(S.applyPong(s, { type: "pong", version: 4 }), []);
    assert.deepEqual(S.applyPong(s, { type: "pong", version: 6 }), [{ type: "gap" }]);
  });
  test("events replayed after a reconnection update the table without sounds or flights", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ view: view({ to_move: 1, my_turn: false, allowed: [] }) }), T0);
    const effects = S.applyEvent(s, event(1, 1, { type: "draw" }, view({ to_move: 1, my_turn: false, allowed: [] }),
      { resync: true }), T0);
    assert.equal(effects.some((e) => e.type === "sound" || e.type === "move"), false);
    assert.deepEqual(s.log.map((l) => l.text), ["bruno pesca dal tallone"]);
  });
});

describe("the move log", () => {
  test("lines in the replay's words, from public facts only", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ view: view({ to_move: 1, my_turn: false, allowed: [], discard: ["QD", "5C"] }) }), T0);
    S.applyEvent(s, event(1, 1, { type: "take_discards" }, view({ to_move: 1, my_turn: false, allowed: [],
      discard: [], phase: "play" })), T0);
    S.applyEvent(s, event(2, 1, { type: "meld", cards: ["5C", "6C", "7C"] }, view({ to_move: 1, my_turn: false,
      allowed: [], discard: [], pozzetti: ["available", "taken"], phase: "play" })), T0);
    S.applyEvent(s, event(3, 1, { type: "discard", card: "TH" }, view({ discard: ["TH"] }), { actor: "computer" }), T0);
    assert.deepEqual(s.log.map((l) => l.text), [
      "bruno raccoglie gli scarti (Q♦ 5♣)",
      "bruno cala 5♣ 6♣ 7♣ — prende il pozzetto",
      "bruno scarta 10♥ (giocata dal computer)",
    ]);
    assert.equal(s.lastMove, "bruno scarta 10♥ (giocata dal computer)");
  });

  test("the server's lines come first after a reload", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ version: 2 }), T0);
    S.applyEvent(s, event(3, 0, { type: "draw" }, view({ phase: "play" })), T0);
    assert.equal(S.mergeLog(s, { hand_number: 1, version: 2, lines: [
      { version: 1, seat: 0, actor: "person", text: "anna pesca dal tallone" },
      { version: 2, seat: 0, actor: "person", text: "anna scarta 4♣" }] }), true);
    assert.deepEqual(s.log.map((l) => l.version), [1, 2, 3]);
    assert.equal(S.mergeLog(s, { hand_number: 2, lines: [] }), false); // another hand: ignored
  });

  test("the end of the hand is said", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ view: view({ phase: "play", allowed: ["discard"] }) }), T0);
    S.applyEvent(s, event(1, 0, { type: "discard", card: "KD" }, view({ hand_over: true, end_reason: "closed",
      to_move: null, my_turn: false, allowed: [] })), T0);
    assert.equal(s.log[0].text, "anna scarta K♦ — chiude la mano");
    assert.equal(S.turnText(s), "Mano finita.");
    S.applySnapshot(s, snapshot({ version: 1, finished: true, view: s.view }), T0); // the match's last hand
    assert.equal(S.turnText(s), "Partita finita.");
  });
});

describe("notices", () => {
  test("a timeout that drew and discarded for us stays until we play", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot(), T0);
    S.applyEvent(s, event(1, 0, { type: "draw" }, view({ phase: "play" }), { actor: "timeout" }), T0);
    S.applyEvent(s, event(2, 0, { type: "discard", card: "3S" }, view({ to_move: 1, my_turn: false, allowed: [] }),
      { actor: "timeout" }), T0);
    assert.deepEqual(S.notices(s, T0).map((n) => [n.kind, n.text]), [
      ["timeout", "Tempo scaduto: il server ha pescato e scartato per te."]]);
    S.applyEvent(s, event(3, 1, { type: "draw" }, view({ to_move: 1, my_turn: false, allowed: [] })), T0);
    assert.equal(S.notices(s, T0).length, 1); // the other's move does not hide it
    S.applyEvent(s, event(4, 1, { type: "discard", card: "9C" }, view({ to_move: 0 })), T0);
    S.applyEvent(s, event(5, 0, { type: "draw" }, view({ phase: "play" })), T0);
    assert.equal(S.notices(s, T0).length, 0); // we played: it is over
  });

  test("the computer covering a seat, and a person away with the time before it does", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({
      table: { status: "playing", disconnect_grace_seconds: 45, seats: [] },
      view: view({ to_move: 1, my_turn: false, allowed: [] }),
      presence: [{ position: 0, online: true, covered_by_computer: false, computer: false },
        { position: 1, online: true, covered_by_computer: false, computer: false }],
    }), T0);
    assert.equal(S.notices(s, T0).length, 0);
    S.applyPresence(s, { seats: [{ position: 1, online: false, covered_by_computer: false, computer: false }] }, T0 + 5000);
    assert.deepEqual(S.notices(s, T0 + 15000).map((n) => n.text),
      ["bruno non è in linea: tra 0:35 il computer gioca al suo posto."]);
    S.applyPresence(s, { seats: [{ position: 1, online: false, covered_by_computer: true, computer: false }] }, T0 + 50000);
    assert.deepEqual(S.notices(s, T0 + 50000).map((n) => [n.kind, n.text]),
      [["cover", "Il computer gioca per bruno finché non torna."]]);
    S.applyPresence(s, { seats: [{ position: 1, online: true, covered_by_computer: false, computer: false }] }, T0 + 60000);
    assert.equal(S.notices(s, T0 + 60000).length, 0);
  });
  test("people away whose turn it is not share one notice; the one to move keeps their own", () => {
    const s = fresh({ players: 4, seats: ["anna", "bruno", "carla", "dario"].map((name, position) => (
      { position, side: position % 2, name, computer: false })) });
    const seats = (online) => [0, 1, 2, 3].map((position) => ({ position, online: position === 0 || online,
      covered_by_computer: false, computer: false }));
    S.applySnapshot(s, snapshot({
      table: { status: "playing", disconnect_grace_seconds: 45, seats: [] },
      view: view({ players: 4, to_move: 0, hand_counts: [11, 11, 11, 11] }),
      presence: seats(true),
    }), T0);
    S.applyPresence(s, { seats: seats(false) }, T0);
    assert.deepEqual(S.notices(s, T0).map((n) => [n.id, n.text]),
      [["away-many", "bruno, carla e dario non sono in linea."]]);
    S.applyPresence(s, { seats: seats(false).map((p) => (p.position === 2 ? { ...p, online: true } : p)) }, T0);
    assert.deepEqual(S.notices(s, T0).map((n) => n.text), ["bruno e dario non sono in linea."]);
  });
});

describe("the end of a hand", () => {
  test("the finished board stays on show with the next hand's clock until the scoring is closed", () => {
    const s = fresh();
    S.applySnapshot(s, snapshot({ view: view({ phase: "play", allowed: ["discard"], melds: [[{ id: 1, cards: ["3H", "4H", "5H"] }], []] }) }), T0);
    const last = view({ hand_over: true, end_reason: "closed", to_move: null, my_turn: false, allowed: [], hand: [],
      melds: [[{ id: 1, cards: ["3H", "4H", "5H", "6H"] }], []], score: [{ total: 100 }, { total: -20 }] });
    S.applyEvent(s, event(1, 0, { type: "lay_off", meld: 1, cards: ["6H"] }, last), T0);
    const effects = S.applyHandOver(s, { type: "hand_over", version: 1, hand_number: 1, score: last.score,
      totals: [100, -20], match_over: false });
    assert.ok(effects.some((e) => e.type === "score"));
    S.applySnapshot(s, snapshot({ version: 1, hand_number: 2, view: view({ hand_number: 1, to_move: 0,
      hand: ["2C", "9D", "QS"] }), deadline: "2026-05-04T18:00:45Z" }), T0);
    assert.equal(S.shownView(s), last); // still the finished hand's table
    assert.deepEqual(S.shownLog(s).map((l) => l.text), ["anna lega 6♥ — chiude la mano"]); // and its moves
    assert.deepEqual(s.log, []); // the new hand's own log starts empty
    assert.deepEqual(S.shownHand(s).map((i) => i.card), []);
    assert.equal(S.secondsLeft(s, T0), 45); // ...while the new hand's clock runs
    assert.equal(S.isMyTurn(s), true);
    S.reviewTable(s);
    assert.equal(S.shownView(s), last);
    S.closeScore(s);
    assert.equal(S.shownView(s).hand_number, 1);
    assert.deepEqual(cards(s), ["QS", "9D", "2C"]);
  });
});

describe("the end of the match", () => {
  test("the people the computer played for are named by the match's last frames, live", () => {
    const s = fresh();
    assert.equal(S.computerForText(s, undefined), null); // a hand before the last says nothing
    assert.equal(S.computerForText(s, []), "");
    assert.equal(S.computerForText(s, ["bruno", "dario"]),
      "Per bruno, dario ha giocato il computer: non si è mai seduto al tavolo.");
    // A page that comes back to the finished match: the snapshot names them too.
    const done = view({ hand_over: true, end_reason: "closed", to_move: null, my_turn: false, allowed: [],
      score: [{ total: 100 }, { total: -20 }], match: { finished: true, winner: 0, totals: [2100, 300] } });
    const effects = S.applySnapshot(s, snapshot({ view: done, finished: true, computer_for: ["bruno"] }), T0);
    assert.ok(effects.some((e) => e.type === "score"));
    assert.deepEqual(s.handOver.computer_for, ["bruno"]);
    const gone = fresh();
    const over = S.applySnapshot(gone, snapshot({ finished: true, computer_for: ["bruno"],
      result: { end_reason: "abandoned", abandoned_seat: 0, winner_side: 1, totals: [0, 0] } }), T0);
    assert.deepEqual(over.find((e) => e.type === "abandoned").info.computer_for, ["bruno"]);
  });
});

describe("layout and dragging", () => {
  test("we sit at the bottom; with four the partner across, the next player on our left", () => {
    assert.deepEqual(S.seatPlaces(2, 1), { bottom: 1, top: 0 });
    assert.deepEqual(S.seatPlaces(4, 1), { bottom: 1, left: 2, top: 3, right: 0 });
    assert.deepEqual(S.seatPlaces(4, null), { bottom: 0, left: 1, top: 2, right: 3 });
  });
  test("drop zones", () => {
    assert.equal(dropAllowed("stock", "hand"), true);
    assert.equal(dropAllowed("stock", "discard"), false);
    assert.equal(dropAllowed("hand", "meld"), true);
    assert.equal(dropAllowed("discard", "meld"), false);
  });
});

describe("layout", () => {
  test("the score reads our side first, whichever seat we sit in", () => {
    const s = S.createState({ seat: 1, players: 2, seats: SEATS, labels: LABELS });
    assert.deepEqual(S.sideOrder(s), [1, 0]);
    s.seat = 0;
    assert.deepEqual(S.sideOrder(s), [0, 1]);
    const four = S.createState({ seat: 3, players: 4, labels: LABELS });
    assert.deepEqual(S.sideOrder(four), [1, 0]);
    assert.deepEqual(four.L && S.sideOrder(four).map((side) => S.sideName(four, side)), ["Noi", "Loro"]);
    const spectator = S.createState({ seat: null, players: 4, labels: LABELS });
    assert.deepEqual(S.sideOrder(spectator), [0, 1]);
  });

  test("eleven cards fan out in one row with room to spare", () => {
    const f = S.fanLayout(11, 1000, 60);
    assert.deepEqual(f, { rows: 1, perRow: 11, step: 66 });
  });

  test("a fan compresses to fit, then takes a second row rather than hide the corner index", () => {
    const one = S.fanLayout(11, 380, 46, { minStep: 18 });
    assert.equal(one.rows, 1);
    assert.ok((one.perRow - 1) * one.step + 46 <= 380 && one.step >= 18);
    const big = S.fanLayout(35, 380, 46, { minStep: 18 });
    assert.equal(big.rows, 2);
    assert.equal(big.perRow, 18);
    assert.ok(big.step >= 18 && (big.perRow - 1) * big.step + 46 <= 380, JSON.stringify(big));
    // At most maxRows: then the step shrinks below minStep, still inside the width.
    const tight = S.fanLayout(60, 200, 46, { minStep: 18, maxRows: 2 });
    assert.equal(tight.rows, 2);
    assert.ok((tight.perRow - 1) * tight.step + 46 <= 200);
    assert.deepEqual(S.fanLayout(0, 300, 46), { rows: 0, perRow: 0, step: 52 });
    assert.deepEqual(S.fanLayout(1, 300, 46), { rows: 1, perRow: 1, step: 52 });
  });

  test("a badge counts what arrived in a closed pane and clears when it opens", () => {
    const s = S.createState({ seat: 0, players: 2, seats: SEATS, labels: LABELS });
    assert.equal(S.noteNew(s, "chat", false), 1);
    assert.equal(S.noteNew(s, "chat", false), 2);
    assert.equal(S.noteNew(s, "log", true), 0); // on screen: nothing unread
    assert.equal(S.unread(s, "chat"), 2);
    assert.equal(S.openPane(s, "chat"), "chat");
    assert.equal(S.unread(s, "chat"), 0);
    assert.equal(S.noteNew(s, "log", false), 1);
    assert.equal(S.openPane(s, "nonsense"), null);
    assert.equal(S.unread(s, "log"), 1);
  });
});
