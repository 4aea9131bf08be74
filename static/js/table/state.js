// The table page's state and every rule of how frames change it, with no DOM: the page module
// (table.js) feeds frames in and acts on the effects that come out; node --test runs this file's
// tests (tests/js/). Nothing here decides what the engine decides: what may be played comes from
// the view's `allowed`, the server's deadline and the server's version.

import { shortCard, sortCards } from "../lib/cards.js";
import { fmt } from "../lib/dom.js";

/**
 * A fresh state. `seats`: [{position, side, name, computer}] as the page was drawn; `labels`:
 * the page's words (templates/games/table.html #table-labels).
 */
export function createState({ seat = null, players = 2, seats = [], labels = {}, tableId = 0, status = "playing" } = {}) {
  const info = new Map();
  for (const s of seats) info.set(s.position, { ...s });
  return {
    tableId,
    status,
    players,
    seat,
    L: labels,
    seats: info,
    version: null,
    view: null,
    deadline: null,
    skew: 0, // server clock minus ours, in ms
    totals: null,
    presence: new Map(),
    handNumber: undefined,
    finished: false,
    result: null,
    grace: 45,
    // our hand as shown: [{key, card}], keys survive every update (focus, drag, selection)
    hand: [],
    nextKey: 0,
    selected: new Set(),
    fresh: new Set(),
    sortMode: "suit",
    custom: false, // the player put the cards in an order of their own
    pending: null,
    refCounter: 0,
    chosenMeld: null,
    log: [], // this hand's moves: {version, seat, actor, text}
    lastMove: "",
    notices: new Map(), // event notices (timeouts): id -> {kind, text, seat}
    awaySince: new Map(), // position -> ms when we saw that person go away
    turnStartedAt: 0,
    handOver: null, // the scoring on show (a hand_over frame, or the abandon info)
    heldView: null, // the finished hand, drawn while its scoring is on show
    heldHand: null,
    scoreOpen: false,
    reviewing: false, // the scoring was put aside to look at the finished table
    abandonShown: false,
    rematch: null,
    stats: { snapshots: 0, hellos: 0, events: 0 },
    pane: null, // the side pane open on a narrow screen (score, log, chat, rules, more)
    unread: {}, // pane -> what arrived while it was closed
  };
}

// ---------------------------------------------------------------- reading the state

export function seatName(s, position) {
  const info = s.seats.get(position);
  const name = info ? info.name : String(position + 1);
  return position === s.seat ? `${name} (${s.L.you || "tu"})` : name;
}

export function plainName(s, position) {
  const info = s.seats.get(position);
  return info ? info.name : String(position + 1);
}

export function mySide(s) {
  if (s.view && typeof s.view.side === "number") return s.view.side;
  return s.seat === null ? 0 : s.seat % 2;
}

/** A side as people read it: the player's name with two players, Noi/Loro (or Coppia A/B) with four. */
export function sideName(s, side) {
  if (s.players !== 4) return seatName(s, side);
  if (s.seat !== null) return side === s.seat % 2 ? s.L.us : s.L.them;
  return side === 0 ? s.L.sideA : s.L.sideB;
}

/** The hand on the table is being played (not scored, match not over). */
export function inPlay(s, v = s.view) {
  return Boolean(v && !v.hand_over && !s.finished);
}

export function isMyTurn(s, v = s.view) {
  return Boolean(inPlay(s, v) && s.seat !== null && v.to_move === s.seat);
}

/** What the engine lets us do now (its `allowed`), and nothing while an action is on its way. */
export function allowed(s, type) {
  const v = s.view;
  if (!v || !isMyTurn(s) || s.pending) return false;
  return Array.isArray(v.allowed) ? v.allowed.includes(type) : false;
}

/** The view the board draws: the finished hand while its scoring is open or being looked at. */
export function shownView(s) {
  return (s.scoreOpen || s.reviewing) && s.heldView ? s.heldView : s.view;
}

/** The log of the hand on show (the finished one while its table is looked at). */
export function shownLog(s) {
  return (s.scoreOpen || s.reviewing) && s.heldLog ? s.heldLog : s.log;
}

export function shownHand(s) {
  if ((s.scoreOpen || s.reviewing) && s.heldHand) return s.heldHand;
  return s.hand;
}

export function ownMelds(s) {
  if (!s.view || s.seat === null) return [];
  return (s.view.melds || [])[mySide(s)] || [];
}

export function selectedCards(s) {
  return s.hand.filter((item) => s.selected.has(item.key)).map((item) => item.card);
}

/** Seconds left on the turn clock by the server's time, or null when nobody is on the clock. */
export function secondsLeft(s, nowMs) {
  if (!s.deadline || !inPlay(s)) return null;
  const t = Date.parse(s.deadline);
  if (Number.isNaN(t)) return null;
  return Math.max(0, Math.ceil((t - nowMs - s.skew) / 1000));
}

export function clockText(left) {
  if (left === null || left === undefined) return "";
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** The tab's title: "● Tocca a te · Tavolo 7 · Burraco" on our turn, the page's own title otherwise. */
export function titleFor(s, base) {
  return isMyTurn(s) ? `● ${s.L.yourTurn || "Tocca a te"} · ${base}` : base;
}

/** The scoring's line naming the people who never sat down (the computer played their whole
 * match: the frames' `computer_for`); "" for nobody, null when the frame does not say. */
export function computerForText(s, names) {
  if (!Array.isArray(names)) return null;
  return names.length ? fmt(s.L.computerFor, { names: names.join(", ") }) : "";
}

/** The turn line: whose turn, or that the hand or the match is over. */
export function turnText(s) {
  const v = s.view;
  if (!v) return "";
  if (s.finished) return s.L.matchOver;
  if (v.hand_over) return s.L.handOver;
  if (isMyTurn(s)) return s.L.yourTurn;
  if (typeof v.to_move === "number") return fmt(s.L.turnOf, { name: seatName(s, v.to_move) });
  return "";
}

/**
 * Notices that stay on screen until what they describe is over: a timeout the server played
 * for us (until we act or close it), the computer covering a seat, a person away with the time
 * before the computer takes over their turn. Each: {id, kind, text, seat, dismissible}.
 */
export function notices(s, nowMs) {
  const out = [];
  for (const [id, n] of s.notices) out.push({ id, dismissible: true, ...n });
  if (s.finished || !s.view) return out;
  const v = s.view;
  const away = [];
  for (const [position, p] of [...s.presence.entries()].sort((a, b) => a[0] - b[0])) {
    const info = s.seats.get(position) || {};
    if (p.computer || info.computer) continue;
    if (p.covered_by_computer) {
      const text = position === s.seat
        ? s.L.coverMe
        : fmt(s.L.coverOther, { name: plainName(s, position) });
      out.push({ id: `cover-${position}`, kind: "cover", seat: position, text, dismissible: false });
    } else if (p.online === false && position !== s.seat) {
      if (!v.hand_over && v.to_move === position) {
        const from = Math.max(s.awaySince.get(position) ?? nowMs, s.turnStartedAt || 0);
        const left = Math.max(0, Math.ceil(s.grace - (nowMs - from) / 1000));
        const text = fmt(s.L.awayTurn, { name: plainName(s, position), time: clockText(left) });
        out.push({ id: `away-${position}`, kind: "away", seat: position, text, dismissible: false });
      } else {
        away.push(position);
      }
    }
  }
  // Those away whose turn it is not share one line: three notices stacked over a phone's table
  // hid the tabs and the names they were about.
  if (away.length === 1) {
    out.push({ id: `away-${away[0]}`, kind: "away", seat: away[0], dismissible: false,
      text: fmt(s.L.away, { name: plainName(s, away[0]) }) });
  } else if (away.length > 1) {
    const names = away.map((position) => plainName(s, position));
    out.push({ id: "away-many", kind: "away", seat: null, dismissible: false,
      text: fmt(s.L.awayMany, { names: names.slice(0, -1).join(", "), last: names[names.length - 1] }) });
  }
  return out;
}

// ---------------------------------------------------------------- our hand

function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  return [...a].sort().join() === [...b].sort().join();
}

function sortItems(items, mode) {
  const order = sortCards(items.map((i) => i.card), mode);
  const pool = [...items];
  return order.map((card) => pool.splice(pool.findIndex((i) => i.card === card), 1)[0]);
}

function newItem(s, card) {
  s.nextKey += 1;
  return { key: `${card}.${s.nextKey}`, card };
}

/**
 * Bring our hand in line with the view's cards. Cards still held keep their key and place
 * (the player's order); cards that just arrived (a draw, the pile, the pozzetto) are marked as
 * new, except on a new deal, where nothing is "new". Selection stays on the cards still held.
 */
export function reconcileHand(s, cards, { newDeal = false } = {}) {
  if (!newDeal && sameMultiset(cards, s.hand.map((i) => i.card))) return false;
  const remaining = [...cards];
  const kept = [];
  if (!newDeal) {
    for (const item of s.hand) {
      const i = remaining.indexOf(item.card);
      if (i >= 0) {
        kept.push(item);
        remaining.splice(i, 1);
      }
    }
  }
  const added = remaining.map((card) => newItem(s, card));
  s.fresh = new Set(newDeal ? [] : added.map((i) => i.key));
  if (newDeal) s.custom = false;
  s.hand = s.custom ? kept.concat(sortItems(added, s.sortMode)) : sortItems(kept.concat(added), s.sortMode);
  const keys = new Set(s.hand.map((i) => i.key));
  s.selected = new Set([...s.selected].filter((k) => keys.has(k)));
  return true;
}

export function sortHand(s, mode = s.sortMode) {
  s.sortMode = mode;
  s.custom = false;
  s.hand = sortItems(s.hand, mode);
}

/** Move the card `key` to just before `beforeKey` (null: to the end). The player's order from now on. */
export function moveCard(s, key, beforeKey) {
  const from = s.hand.findIndex((i) => i.key === key);
  if (from < 0 || key === beforeKey) return false;
  const [item] = s.hand.splice(from, 1);
  let to = beforeKey === null ? s.hand.length : s.hand.findIndex((i) => i.key === beforeKey);
  if (to < 0) to = s.hand.length;
  s.hand.splice(to, 0, item);
  s.custom = true;
  return to !== from;
}

export function toggleSelect(s, key) {
  if (!s.hand.some((i) => i.key === key)) return;
  if (s.selected.has(key)) s.selected.delete(key);
  else s.selected.add(key);
}

/** What to keep across a reload: the order of our cards in this hand and the sort chosen. */
export function savedOrder(s) {
  return { hand: s.handNumber, order: s.hand.map((i) => i.card), mode: s.sortMode, custom: s.custom };
}

/** Put the cards back in a saved order (same hand only); cards not in it go after, sorted. */
export function restoreOrder(s, saved) {
  if (!saved || typeof saved !== "object") return false;
  if (saved.mode === "suit" || saved.mode === "rank") s.sortMode = saved.mode;
  if (saved.hand !== s.handNumber || !Array.isArray(saved.order) || !saved.custom) {
    sortHand(s, s.sortMode);
    return false;
  }
  const pool = [...s.hand];
  const ordered = [];
  for (const card of saved.order) {
    const i = pool.findIndex((item) => item.card === card);
    if (i >= 0) ordered.push(pool.splice(i, 1)[0]);
  }
  s.hand = ordered.concat(sortItems(pool, s.sortMode));
  s.custom = true;
  return true;
}

// ---------------------------------------------------------------- the log of the hand

/** One move in words, as the replay writes it (games/selectors/replays.py), from public facts only. */
export function describeMove(s, frame, before, after) {
  const a = frame.action || {};
  const L = s.L.log || {};
  const name = plainName(s, frame.seat); // as the server's lines for the same hand
  const cards = (list) => (list || []).map(shortCard).join(" ");
  let text;
  if (a.type === "draw") text = fmt(L.draw, { name });
  else if (a.type === "take_discards") text = fmt(L.take, { name, cards: cards(before ? before.discard : []) });
  else if (a.type === "meld") text = fmt(L.meld, { name, cards: cards(a.cards) });
  else if (a.type === "lay_off") text = fmt(L.layOff, { name, cards: cards(a.cards) });
  else if (a.type === "discard") text = fmt(L.discard, { name, card: shortCard(a.card || "") });
  else return null;
  const side = frame.seat % 2;
  if (before && after && (before.pozzetti || [])[side] !== "taken" && (after.pozzetti || [])[side] === "taken") {
    text += ` — ${L.pozzetto}`;
  }
  if (after && after.hand_over) text += ` — ${after.end_reason === "closed" ? L.closes : L.exhausted}`;
  if (frame.actor === "timeout") text += ` (${s.L.byTimeout})`;
  else if (frame.actor === "computer" && !(s.seats.get(frame.seat) || {}).computer) text += ` (${s.L.byComputer})`;
  return text;
}

/** The server's log of this hand (fetched on load): ours after it, where newer. */
export function mergeLog(s, data) {
  if (!data || data.hand_number !== s.handNumber || !Array.isArray(data.lines)) return false;
  const upTo = data.lines.length ? data.lines[data.lines.length - 1].version : -1;
  s.log = data.lines.concat(s.log.filter((line) => line.version > upTo));
  if (s.log.length) s.lastMove = s.log[s.log.length - 1].text;
  return true;
}

// ---------------------------------------------------------------- frames in, effects out

function syncClock(s, serverTime, nowMs) {
  const t = Date.parse(serverTime || "");
  if (!Number.isNaN(t)) s.skew = t - nowMs;
}

function updateSeats(s, seats) {
  for (const seat of seats) {
    const info = s.seats.get(seat.position) || { position: seat.position, side: seat.position % 2, name: "" };
    if (seat.username) info.name = seat.username;
    if (typeof seat.bot_level === "string" && seat.bot_level) info.computer = true;
    s.seats.set(seat.position, info);
  }
}

function setView(s, view, { newDeal = false } = {}) {
  const before = s.view;
  s.view = view;
  if (typeof view.seat === "number") s.seat = view.seat;
  if (Array.isArray(view.hand)) reconcileHand(s, view.hand, { newDeal });
  if (view.totals && !s.totals) s.totals = view.totals;
  if (s.chosenMeld !== null && !ownMelds(s).some((m) => m.id === s.chosenMeld)) s.chosenMeld = null;
  return before;
}

function turnEffects(s, before, nowMs) {
  const effects = [];
  const v = s.view;
  const turnChanged = !before || before.to_move !== v.to_move || before.hand_over !== v.hand_over;
  if (turnChanged) s.turnStartedAt = nowMs;
  if (isMyTurn(s) && (!before || !isMyTurn(s, before) || before.hand_over)) effects.push({ type: "yourTurn" });
  return effects;
}

function applyPresenceList(s, list, nowMs) {
  for (const p of list) {
    const old = s.presence.get(p.position);
    s.presence.set(p.position, p);
    if (p.online === false && (!old || old.online !== false)) s.awaySince.set(p.position, nowMs);
    if (p.online) s.awaySince.delete(p.position);
  }
}

export function applySnapshot(s, frame, nowMs = Date.now()) {
  const effects = [];
  s.stats.snapshots += 1;
  const table = frame.table && typeof frame.table === "object" ? frame.table : null;
  if (table && table.status && table.status !== s.status) {
    if (s.status === "waiting") return [{ type: "reload" }]; // the page itself changes
    s.status = table.status;
    effects.push({ type: "status" });
  }
  if (table && Array.isArray(table.seats)) updateSeats(s, table.seats);
  if (table && typeof table.disconnect_grace_seconds === "number") s.grace = table.disconnect_grace_seconds;
  if (Array.isArray(frame.presence)) applyPresenceList(s, frame.presence, nowMs);
  syncClock(s, frame.server_time, nowMs);
  const firstLoad = s.handNumber === undefined;
  const newHand = !firstLoad && frame.hand_number !== s.handNumber;
  const caughtUp = !firstLoad && !newHand && frame.version !== s.version;
  if (newHand) {
    s.log = [];
    s.lastMove = "";
    s.notices.clear();
  }
  s.handNumber = frame.hand_number;
  s.version = frame.version;
  if (frame.seat !== undefined && frame.seat !== null) s.seat = frame.seat;
  s.deadline = frame.deadline || null;
  if (frame.totals) s.totals = frame.totals;
  s.finished = Boolean(frame.finished);
  s.result = frame.result || null;
  s.pending = null;
  let before = null;
  if (frame.view) before = setView(s, frame.view, { newDeal: newHand || firstLoad });
  if (firstLoad) effects.push({ type: "restoreOrder" });
  if (frame.view && frame.version !== null && (firstLoad || caughtUp)) effects.push({ type: "fetchLog" });
  const v = s.view;
  if (v && v.hand_over && v.score && !s.handOver) {
    // We (re)opened the page after the hand ended: show its scoring once.
    s.handOver = {
      hand_number: typeof frame.hand_number === "number" ? frame.hand_number : v.hand_number + 1,
      score: v.score,
      totals: v.match ? v.match.totals : frame.totals,
      match_over: v.match ? v.match.finished : Boolean(frame.finished),
      winner_side: v.match ? v.match.winner : null,
      computer_for: frame.computer_for,
    };
    s.heldView = null;
    s.scoreOpen = true;
    effects.push({ type: "score" });
  }
  missedScoring(s, frame, { firstLoad, newHand }, effects);
  const result = frame.result;
  if (frame.finished && result && result.end_reason === "abandoned" && !s.abandonShown) {
    effects.push({ type: "abandoned", info: { ...result, hand_number: frame.hand_number, computer_for: frame.computer_for } });
  }
  if (v) effects.push(...turnEffects(s, before, nowMs));
  if (newHand) effects.push({ type: "newHand" });
  // The waiting room is drawn by the server: a seat taken between that page and this socket's
  // subscription sent its `table` frame to nobody here, so the room is looked at once now.
  if (s.status === "waiting") effects.push({ type: "checkWaiting" });
  return effects;
}

/**
 * The last hand's scoring, missed: the page was away when that hand ended (it comes back in the
 * next one) or opens while the computer covers our seat. Shown once, like a `hand_over`.
 */
function missedScoring(s, frame, { firstLoad, newHand }, effects) {
  const last = frame.last_hand;
  if (!last || s.view?.hand_over || (s.handOver && s.handOver.hand_number >= last.hand_number)) return;
  const mine = s.seat !== null ? s.presence.get(s.seat) : null;
  if (!newHand && !(firstLoad && mine && mine.covered_by_computer)) return;
  s.handOver = { ...last };
  s.heldView = null;
  s.scoreOpen = true;
  effects.push({ type: "score" });
}

/** A `gap` effect means an event was missed: the page asks for a snapshot (`hello`). */
export function applyEvent(s, frame, nowMs = Date.now()) {
  if (s.version !== null && frame.version !== s.version + 1) {
    return frame.version > s.version ? [{ type: "gap" }] : [];
  }
  s.stats.events += 1;
  const effects = [];
  s.version = frame.version;
  s.deadline = frame.deadline || null;
  syncClock(s, frame.server_time, nowMs);
  const mine = s.seat !== null && frame.seat === s.seat;
  if (mine && frame.actor === "person") {
    effects.push({ type: "hideError" });
    s.notices.delete("timeout-me");
  }
  if (s.pending && mine) s.pending = null;
  const prevHand = s.hand.map((i) => i.card);
  const before = frame.view ? setView(s, frame.view) : s.view;
  const line = describeMove(s, frame, before, s.view);
  if (line) {
    const previous = s.log[s.log.length - 1];
    s.log.push({ version: frame.version, seat: frame.seat, actor: frame.actor, text: line });
    s.lastMove = line;
    const a = frame.action || {};
    if (!frame.resync) {
      // Events replayed after a reconnection (`resync`) are not played out again: no sound, no flight.
      effects.push({ type: "sound", name: a.type === "lay_off" ? "meld" : a.type === "take_discards" ? "draw" : a.type });
      effects.push({ type: "move", seat: frame.seat, action: a, mine, prevHand });
    }
    if (frame.actor === "timeout" && a.type === "discard") {
      const drew = Boolean(previous && previous.version === frame.version - 1 && previous.actor === "timeout"
        && previous.seat === frame.seat);
      if (mine) {
        s.notices.set("timeout-me", { kind: "timeout", seat: frame.seat, text: drew ? s.L.timeoutDrewMe : s.L.timeoutMe });
      } else {
        s.notices.set(`timeout-${frame.seat}`, {
          kind: "timeout", seat: frame.seat, text: fmt(s.L.timeoutOther, { name: plainName(s, frame.seat) }),
        });
      }
    }
  }
  if (s.view) effects.push(...turnEffects(s, before, nowMs));
  return effects;
}

/** The turn's deadline moved without a move (the server was out for a while). */
export function applyClock(s, frame, nowMs = Date.now()) {
  if (typeof frame.version === "number" && s.version !== null && frame.version !== s.version) return [];
  s.deadline = frame.deadline || null;
  syncClock(s, frame.server_time, nowMs);
  return [];
}

/** A `pong` carries the game's version: one we have not reached means frames were lost. */
export function applyPong(s, frame) {
  if (typeof frame.version === "number" && s.version !== null && frame.version > s.version && !s.pending) {
    return [{ type: "gap" }];
  }
  return [];
}

export function applyHandOver(s, frame) {
  if (typeof frame.version === "number" && (s.version === null || frame.version > s.version)) s.version = frame.version;
  if (frame.totals) s.totals = frame.totals;
  s.deadline = null;
  s.handOver = frame;
  s.heldView = s.view;
  s.heldHand = s.hand.map((i) => ({ ...i }));
  s.heldLog = [...s.log];
  s.scoreOpen = true;
  s.reviewing = false;
  return [{ type: "score" }, { type: "sound", name: "handOver" }];
}

/** The match ended without its hand ending: someone abandoned it. */
export function applyMatchOver(s, frame) {
  if (typeof frame.version === "number" && (s.version === null || frame.version > s.version)) s.version = frame.version;
  s.finished = true;
  s.deadline = null;
  if (frame.totals) s.totals = frame.totals;
  return frame.reason === "abandoned" ? [{ type: "abandoned", info: frame }] : [];
}

export function applyPresence(s, frame, nowMs = Date.now()) {
  applyPresenceList(s, frame.seats || [], nowMs);
  return [];
}

export function applyTable(s, frame) {
  const table = frame.table || {};
  if (s.status === "waiting") {
    return [{ type: table.status && table.status !== s.status ? "reload" : "checkWaiting" }];
  }
  const effects = [];
  if (Array.isArray(table.seats)) updateSeats(s, table.seats);
  if (table.status && table.status !== s.status) {
    s.status = table.status;
    effects.push({ type: "status" });
  }
  return effects;
}

/** Close the scoring: back to the live table (the next hand, or the finished match). */
export function closeScore(s) {
  s.scoreOpen = false;
  s.reviewing = false;
  s.heldView = null;
  s.heldHand = null;
  s.heldLog = null;
}

/** Put the scoring aside and look at the finished hand's table. */
export function reviewTable(s) {
  if (!s.heldView) return closeScore(s);
  s.scoreOpen = false;
  s.reviewing = true;
}

// ---------------------------------------------------------------- our actions

/** The frame for an action, or null when one is already on its way (the answer says what happened). */
export function actionFrame(s, action) {
  if (s.seat === null || !s.view || s.pending) return null;
  s.refCounter += 1;
  return { type: "action", action, version: s.version, ref: `a${s.refCounter}` };
}

/** Where each seat sits on screen: we are at the bottom (a spectator sees seat 0 there); with
 * four, the partner across and the opponents left and right, in turn order (turns go left). */
export function seatPlaces(players, seat) {
  const me = seat === null || seat === undefined ? 0 : seat;
  if (players === 4) {
    return { bottom: me, left: (me + 1) % 4, top: (me + 2) % 4, right: (me + 3) % 4 };
  }
  return { bottom: me, top: (me + 1) % 2 };
}

/** "{names} vuole la rivincita" with the names joined. */
export function fmtList(template, names) {
  return fmt(template, { names: names.join(", ") });
}

// ---------------------------------------------------------------- layout: sides, fans, panes

/** The two sides in the order the player reads them: their own first ("Noi | Loro"), whichever
 * seat they sit in; a spectator reads side 0 first. */
export function sideOrder(s) {
  if (s.seat === null || s.seat === undefined) return [0, 1];
  const mine = mySide(s);
  return [mine, 1 - mine];
}

/**
 * How `count` cards of width `card` overlap to fit `width` pixels: each card shows `step`
 * pixels of itself (at most `maxStep`, the whole card and a gap when there is room). When a
 * row would show less than `minStep` (the corner index), the cards go on more rows, of
 * `perRow` cards each. Returns {rows, perRow, step} with (perRow - 1) * step + card <= width.
 */
export function fanLayout(count, width, card, { maxStep = card + 6, minStep = 18, maxRows = 3 } = {}) {
  if (count <= 0) return { rows: 0, perRow: 0, step: maxStep };
  const room = Math.max(0, width - card);
  let rows = 1;
  let perRow = count;
  for (;;) {
    perRow = Math.ceil(count / rows);
    const step = perRow > 1 ? room / (perRow - 1) : maxStep;
    if (step >= minStep || rows >= maxRows) break;
    rows += 1;
  }
  const step = perRow > 1 ? Math.min(maxStep, Math.floor((room / (perRow - 1)) * 10) / 10) : maxStep;
  return { rows, perRow, step: Math.max(0, step) };
}

export const PANES = ["score", "log", "chat", "rules", "more"];

/** Something new arrived in a side pane (a move in the log, a chat phrase): counted as unread
 * unless the pane is on screen. Returns the pane's unread count. */
export function noteNew(s, pane, visible) {
  if (!s.unread) s.unread = {};
  if (visible) s.unread[pane] = 0;
  else s.unread[pane] = (s.unread[pane] || 0) + 1;
  return s.unread[pane];
}

/** Open one pane of the drawer (null closes it): what it held is read. */
export function openPane(s, pane) {
  s.pane = PANES.includes(pane) ? pane : null;
  if (!s.unread) s.unread = {};
  if (s.pane) s.unread[s.pane] = 0;
  return s.pane;
}

export function unread(s, pane) {
  return (s.unread && s.unread[pane]) || 0;
}
