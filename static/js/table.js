// The live table: one WebSocket per page (docs/protocol.md), the engine's view of our seat
// drawn as cards, and our plays sent back as engine actions. The server decides everything;
// this file only draws what it is told and asks for moves.

const root = document.getElementById("table-page");
const L = JSON.parse(document.getElementById("table-labels").textContent);
const PHRASES = JSON.parse(document.getElementById("chat-phrases").textContent || "[]");

const cfg = {
  tableId: Number(root.dataset.tableId),
  status: root.dataset.status,
  wsPath: root.dataset.wsPath,
  players: Number(root.dataset.players),
  myPosition: root.dataset.myPosition === "" ? null : Number(root.dataset.myPosition),
};

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME = { S: L.spades, H: L.hearts, D: L.diamonds, C: L.clubs };
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 }; // colours alternate in the hand
const RANK_ORDER = "3456789TJQKA"; // aces high when sorting; 2s and jokers go last as wilds

function fmt(text, values) {
  return text.replace(/\{(\w+)\}/g, (m, key) => (key in values ? String(values[key]) : m));
}

// ---------------------------------------------------------------- seats and names

const seatInfo = new Map();
for (const li of document.querySelectorAll("#seat-data li")) {
  seatInfo.set(Number(li.dataset.position), {
    position: Number(li.dataset.position),
    side: Number(li.dataset.side),
    name: li.dataset.name,
    computer: li.dataset.computer === "1",
  });
}

function seatName(position) {
  const info = seatInfo.get(position);
  const name = info ? info.name : String(position + 1);
  return position === cfg.myPosition ? `${name} (${L.you})` : name;
}

/** A side as people read it: the player's name with two players, Noi/Loro (or Coppia A/B) with four. */
function sideName(side) {
  if (cfg.players !== 4) return seatName(side);
  if (state.seat !== null) return side === state.seat % 2 ? L.us : L.them;
  return side === 0 ? L.sideA : L.sideB;
}

function winnerText(side) {
  if (side === null || side === undefined) return L.draw;
  if (state.seat !== null && side === state.seat % 2) return cfg.players === 4 ? L.weWon : L.youWon;
  if (cfg.players === 4) {
    const names = [side, side + 2].map((p) => (seatInfo.get(p) || { name: String(p + 1) }).name);
    return fmt(L.winner, { name: names.join(" & ") });
  }
  return fmt(L.winner, { name: (seatInfo.get(side) || { name: String(side + 1) }).name });
}

// ---------------------------------------------------------------- cards

function rankText(card) {
  if (card === "JK") return "JK";
  return card[0] === "T" ? "10" : card[0];
}

function cardLabel(card) {
  if (card === "JK") return L.joker;
  const rank = rankText(card);
  const suit = SUIT_NAME[card[1]] || card[1];
  return card[0] === "2" ? `${rank} ${suit} (${L.pinella})` : `${rank} ${suit}`;
}

function sortKey(card) {
  if (card === "JK") return [3, 0, 0];
  if (card[0] === "2") return [2, SUIT_ORDER[card[1]], 0];
  return [0, SUIT_ORDER[card[1]], RANK_ORDER.indexOf(card[0])];
}

function compareCards(a, b) {
  const ka = sortKey(a);
  const kb = sortKey(b);
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
  return 0;
}

/** A card face made of HTML: rank and suit in the corner, a big suit in the middle. */
function cardFace(card, tag = "div") {
  const el = document.createElement(tag);
  el.className = "pcard";
  el.dataset.card = card;
  el.setAttribute("aria-label", cardLabel(card));
  if (card === "JK") {
    el.classList.add("joker");
    el.innerHTML = '<span class="idx"><span class="r">JK</span><span class="s">★</span></span>'
      + '<span class="pip">★</span>';
    return el;
  }
  const suit = card[1];
  if (suit === "H" || suit === "D") el.classList.add("red");
  if (card[0] === "2") el.classList.add("pinella");
  el.innerHTML = `<span class="idx"><span class="r">${rankText(card)}</span>`
    + `<span class="s">${SUIT_SYMBOL[suit]}</span></span><span class="pip">${SUIT_SYMBOL[suit]}</span>`;
  return el;
}

// ---------------------------------------------------------------- state

const state = {
  version: null,
  view: null,
  seat: cfg.myPosition,
  deadline: null,
  totals: null,
  presence: new Map(),
  order: [], // our hand in the order shown (card texts, duplicates allowed)
  custom: false, // true once the player has dragged cards into an order of their own
  selected: new Set(), // indexes into state.order
  pending: null, // ref of the action awaiting an answer
  refCounter: 0,
  lastHandOver: null,
  chosenMeld: null,
  fresh: [],
  finished: false, // the match is over (played out or abandoned): nobody is to move any more
  abandonShown: false,
};

function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  return [...a].sort().join() === [...b].sort().join();
}

/** Keep the player's own order for the cards still in hand; new cards go in sorted place. */
function reconcileHand(hand) {
  if (sameMultiset(hand, state.order)) return;
  const remaining = [...hand];
  const kept = [];
  for (const card of state.order) {
    const i = remaining.indexOf(card);
    if (i >= 0) {
      kept.push(card);
      remaining.splice(i, 1);
    }
  }
  // Cards that just arrived (a draw, the discard pile, the pozzetto) are marked until the next change.
  state.fresh = state.order.length ? remaining : [];
  if (!state.custom) {
    state.order = [...hand].sort(compareCards);
  } else {
    state.order = kept.concat(remaining.sort(compareCards));
  }
  state.selected.clear();
}

// ---------------------------------------------------------------- socket

let socket = null;
let retry = 0;
let pingTimer = null;
const badge = document.getElementById("conn-badge");

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${cfg.wsPath}`;
}

function send(frame) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(frame));
    return true;
  }
  return false;
}

function hello() {
  stats.hellos += 1;
  send({ type: "hello", last_version: state.version });
}

const FINAL_CLOSE = new Set([4401, 4403, 4404, 4429]);
const stats = { snapshots: 0, hellos: 0 };

function connect() {
  if (!cfg.wsPath) return;
  socket = new WebSocket(wsUrl());
  socket.addEventListener("open", () => {
    retry = 0;
    badge.hidden = true;
    hello();
    clearInterval(pingTimer);
    pingTimer = setInterval(() => send({ type: "ping" }), 25000);
  });
  socket.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    handleFrame(frame);
  });
  socket.addEventListener("close", (event) => {
    clearInterval(pingTimer);
    state.pending = null;
    badge.hidden = false;
    if (FINAL_CLOSE.has(event.code)) {
      // Not signed in, not allowed, no such table, or too many bad frames: retrying cannot help.
      badge.textContent = event.code === 4401 ? L.notLoggedIn : L.unavailable;
      return;
    }
    badge.textContent = L.reconnecting;
    const delay = Math.min(10000, 500 * 2 ** retry) + Math.random() * 300;
    retry += 1;
    setTimeout(connect, delay);
  });
}

function handleFrame(frame) {
  switch (frame.type) {
    case "snapshot":
      onSnapshot(frame);
      break;
    case "event":
      onEvent(frame);
      break;
    case "hand_over":
      onHandOver(frame);
      break;
    case "match_over":
      onMatchOver(frame);
      break;
    case "error":
      onError(frame);
      break;
    case "chat":
      onChat(frame);
      break;
    case "presence":
      onPresence(frame);
      break;
    case "table":
    case "seats":
      onTableChange(frame);
      break;
    default:
      break;
  }
}

// ---------------------------------------------------------------- frames

function tableStatus(table) {
  return table && typeof table === "object" ? table.status : undefined;
}

function onSnapshot(frame) {
  stats.snapshots += 1;
  const status = tableStatus(frame.table);
  if (status && status !== cfg.status) {
    if (cfg.status === "waiting") {
      // The table started (or was given up) since this page was drawn: the page itself changes.
      location.reload();
      return;
    }
    setStatus(status); // playing -> finished: the last scoring stays on screen
  }
  if (frame.table && Array.isArray(frame.table.seats)) updateSeatInfo(frame.table.seats);
  if (Array.isArray(frame.presence)) for (const p of frame.presence) state.presence.set(p.position, p);
  syncClock(frame.server_time);
  if (frame.hand_number !== state.handNumber) {
    // A new hand: the last play of the old one no longer describes the table.
    const line = document.getElementById("last-move");
    if (line && state.handNumber !== undefined) line.textContent = "";
    state.handNumber = frame.hand_number;
  }
  state.version = frame.version;
  if (frame.seat !== undefined && frame.seat !== null) state.seat = frame.seat;
  state.deadline = frame.deadline || null;
  if (frame.totals) state.totals = frame.totals;
  state.finished = Boolean(frame.finished);
  state.pending = null;
  if (frame.view) setView(frame.view);
  const v = frame.view;
  if (v && v.hand_over && v.score && !state.lastHandOver) {
    // We (re)opened the page after the hand ended: show its scoring once.
    showScore({
      hand_number: typeof frame.hand_number === "number" ? frame.hand_number : v.hand_number + 1,
      score: v.score,
      totals: v.match ? v.match.totals : frame.totals,
      match_over: v.match ? v.match.finished : Boolean(frame.finished),
      winner_side: v.match ? v.match.winner : null,
    });
  }
  const result = frame.result;
  if (frame.finished && result && result.end_reason === "abandoned" && !state.abandonShown) {
    // We (re)opened the page of a match someone abandoned: say so once.
    showAbandoned({ ...result, hand_number: frame.hand_number });
  }
  render();
}

// The countdown uses the server's clock: remember how far ours is from it.
let clockSkew = 0;

function syncClock(serverTime) {
  const t = Date.parse(serverTime || "");
  if (!Number.isNaN(t)) clockSkew = t - Date.now();
}

function onEvent(frame) {
  if (state.version !== null && frame.version !== state.version + 1) {
    if (frame.version > state.version) hello(); // a gap: ask for the whole picture again
    return;
  }
  state.version = frame.version;
  state.deadline = frame.deadline || null;
  syncClock(frame.server_time);
  if (frame.seat === state.seat && frame.actor === "person") hideError();
  if (state.pending && frame.seat === state.seat) state.pending = null;
  if (frame.view) setView(frame.view);
  showLastMove(frame);
  render();
}

function shortCard(card) {
  return card === "JK" ? "JK" : `${rankText(card)}${SUIT_SYMBOL[card[1]] || ""}`;
}

/** One line saying what the last play was, so a move by the computer or a partner is not missed. */
function showLastMove(frame) {
  const box = document.getElementById("last-move");
  const a = frame.action || {};
  if (!box || typeof frame.seat !== "number") return;
  const name = seatName(frame.seat);
  let text;
  if (a.type === "draw") text = fmt(L.moveDraw, { name });
  else if (a.type === "take_discards") text = fmt(L.moveTake, { name });
  else if (a.type === "meld") text = fmt(L.moveMeld, { name, cards: (a.cards || []).map(shortCard).join(" ") });
  else if (a.type === "lay_off") text = fmt(L.moveLayOff, { name, cards: (a.cards || []).map(shortCard).join(" ") });
  else if (a.type === "discard") text = fmt(L.moveDiscard, { name, card: shortCard(a.card || "") });
  else return;
  if (frame.actor === "timeout") text += ` (${L.byTimeout})`;
  else if (frame.actor === "computer" && !(seatInfo.get(frame.seat) || {}).computer) text += ` (${L.byComputer})`;
  box.textContent = text;
}

function onHandOver(frame) {
  if (typeof frame.version === "number" && (state.version === null || frame.version > state.version)) {
    state.version = frame.version;
  }
  if (frame.totals) state.totals = frame.totals;
  state.deadline = null;
  showScore(frame);
  render();
}

/** The match ended without its hand finishing: someone abandoned it (docs/protocol.md). */
function onMatchOver(frame) {
  if (typeof frame.version === "number" && (state.version === null || frame.version > state.version)) {
    state.version = frame.version;
  }
  state.finished = true;
  state.deadline = null;
  if (frame.totals) state.totals = frame.totals;
  if (frame.reason === "abandoned") showAbandoned(frame);
  render();
}

function onError(frame) {
  state.pending = null;
  showError(frame.message || frame.code);
  render();
}

function onChat(frame) {
  const log = document.getElementById("chat-log");
  if (!log) return;
  const li = document.createElement("li");
  const who = document.createElement("strong");
  who.textContent = `${seatName(frame.seat)}: `;
  // The page's own list has the phrase in this reader's language; the frame's text is the fallback.
  li.append(who, document.createTextNode(phraseText(frame.phrase) || frame.text || ""));
  log.append(li);
  while (log.children.length > 30) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

function phraseText(id) {
  const found = PHRASES.find((p) => p.id === id);
  return found ? found.text : null;
}

function onPresence(frame) {
  for (const s of frame.seats || []) state.presence.set(s.position, s);
  render();
}

function onTableChange(frame) {
  const table = frame.table || {};
  if (cfg.status === "waiting") {
    if (table.status && table.status !== cfg.status) location.reload();
    else checkWaitingRoom();
    return;
  }
  if (Array.isArray(table.seats)) updateSeatInfo(table.seats);
  if (table.status) setStatus(table.status);
  render();
}

function setStatus(status) {
  cfg.status = status;
  const tag = document.getElementById("status-tag");
  if (tag && L.status[status]) tag.textContent = L.status[status];
}

function updateSeatInfo(seats) {
  for (const s of seats) {
    const info = seatInfo.get(s.position) || { position: s.position, side: s.position % 2, name: "" };
    if (s.username) info.name = s.username;
    seatInfo.set(s.position, info);
  }
}

// ---------------------------------------------------------------- the view

function setView(view) {
  state.view = view;
  if (typeof view.seat === "number") state.seat = view.seat;
  if (Array.isArray(view.hand)) reconcileHand(view.hand);
  if (view.totals && !state.totals) state.totals = view.totals;
  if (!view.hand_over) state.lastHandOver = null;
  if (state.chosenMeld !== null && !ownMelds().some((m) => m.id === state.chosenMeld)) state.chosenMeld = null;
}

function mySide() {
  if (state.view && typeof state.view.side === "number") return state.view.side;
  return state.seat === null ? 0 : state.seat % 2;
}

function ownMelds() {
  if (!state.view || state.seat === null) return [];
  return (state.view.melds || [])[mySide()] || [];
}

/** Whether the hand on the table is still being played (not scored, match not over). */
function inPlay(v) {
  return Boolean(v && !v.hand_over && !state.finished);
}

function isMyTurn() {
  const v = state.view;
  return Boolean(inPlay(v) && state.seat !== null && v.to_move === state.seat);
}

function allowed(type) {
  const v = state.view;
  if (!v || !isMyTurn()) return false;
  if (Array.isArray(v.allowed)) return v.allowed.includes(type);
  return true;
}

// ---------------------------------------------------------------- actions

function act(action) {
  if (state.seat === null || !state.view) return;
  if (state.pending) return; // one action at a time: the answer tells us what happened
  hideError();
  state.refCounter += 1;
  const ref = `a${state.refCounter}`;
  if (send({ type: "action", action, version: state.version, ref })) {
    state.pending = ref;
    setTimeout(() => {
      if (state.pending === ref) {
        state.pending = null;
        render();
      }
    }, 6000);
  }
  render();
}

function selectedCards() {
  return [...state.selected].sort((a, b) => a - b).map((i) => state.order[i]);
}

function doDraw() {
  act({ type: "draw" });
}

function doTake() {
  act({ type: "take_discards" });
}

function doMeld() {
  const cards = selectedCards();
  if (cards.length === 0) {
    showError(L.selectCardsFirst);
    return;
  }
  act({ type: "meld", cards });
}

function doLayOff(meldId, cards) {
  if (!cards.length) {
    showError(L.selectCardsFirst);
    return;
  }
  act({ type: "lay_off", meld: meldId, cards });
}

function doDiscard(card) {
  act({ type: "discard", card });
}

function doDiscardSelected() {
  const cards = selectedCards();
  if (cards.length !== 1) {
    showError(cards.length ? L.selectOneCard : L.selectCardsFirst);
    return;
  }
  doDiscard(cards[0]);
}

// ---------------------------------------------------------------- errors

const errorBox = document.getElementById("table-error");

function showError(message) {
  if (!errorBox) return;
  errorBox.textContent = message;
  errorBox.hidden = false;
}

function hideError() {
  if (!errorBox) return;
  errorBox.hidden = true;
  errorBox.textContent = "";
}

// ---------------------------------------------------------------- drawing

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardsText(n) {
  return n === 1 ? L.card1 : fmt(L.cards, { n });
}

function render() {
  const game = document.getElementById("game");
  if (!game || !state.view) return;
  game.dataset.loading = "";
  const v = state.view;
  game.classList.toggle("my-turn", isMyTurn());
  game.classList.toggle("busy", Boolean(state.pending));
  game.classList.toggle("spectator", state.seat === null);
  renderSeats(v);
  renderPiles(v);
  renderMelds(v);
  renderHand(v);
  renderButtons(v);
  renderSide(v);
  tick();
}

function renderSeats(v) {
  const bar = document.getElementById("seats-bar");
  bar.replaceChildren();
  const n = v.players || cfg.players;
  // Start from our own seat so the others read in turn order.
  const start = state.seat === null ? 0 : state.seat;
  for (let k = 0; k < n; k++) {
    const pos = (start + k) % n;
    const box = el("div", "seat-box");
    box.dataset.position = pos;
    if (pos === state.seat) box.classList.add("me");
    if (inPlay(v) && v.to_move === pos) box.classList.add("to-move");
    box.classList.add(pos % 2 === mySide() && state.seat !== null ? "partner-side" : "other-side");
    const presence = state.presence.get(pos);
    const dot = el("span", "dot");
    const online = presence ? presence.online : null;
    if (online === true) dot.classList.add("online");
    if (online === false) dot.classList.add("offline");
    const info = seatInfo.get(pos);
    if (online !== null && !(info && info.computer)) dot.title = online ? L.online : L.offline;
    const name = el("span", "seat-box-name", seatName(pos));
    if (n === 4 && state.seat !== null && pos !== state.seat && pos % 2 === state.seat % 2) {
      name.append(" ", el("small", "partner-tag", L.partner));
    }
    const count = el("span", "seat-box-count", cardsText((v.hand_counts || [])[pos] ?? 0));
    box.append(dot, name);
    if (inPlay(v) && v.to_move === pos) box.append(el("span", "seat-clock"));
    box.append(count);
    if (presence && presence.covered_by_computer) {
      box.append(el("span", "covered", fmt(L.computerPlaysFor, { name: seatName(pos) })));
    }
    bar.append(box);
  }
}

function renderPiles(v) {
  document.getElementById("stock-count").textContent = v.stock_count ?? 0;
  const stock = document.getElementById("stock");
  stock.classList.toggle("empty", !v.stock_count);
  const canDraw = allowed("draw");
  stock.dataset.drag = canDraw ? "stock" : "";
  stock.classList.toggle("can-drag", canDraw);

  const pile = document.getElementById("discard");
  pile.replaceChildren();
  const discard = v.discard || [];
  document.getElementById("discard-count").textContent = discard.length ? `(${discard.length})` : "";
  discard.forEach((card, i) => {
    const face = cardFace(card);
    if (i === discard.length - 1) face.classList.add("top");
    pile.append(face);
  });
  const canTake = allowed("take_discards");
  pile.dataset.drag = canTake ? "discard" : "";
  pile.classList.toggle("can-drag", canTake);
}

function renderMelds(v) {
  const melds = v.melds || [[], []];
  const side = mySide();
  const spectator = state.seat === null;
  const usSide = spectator ? 0 : side;
  const themSide = 1 - usSide;
  const titleUs = document.getElementById("melds-us-title");
  const titleThem = document.getElementById("melds-them-title");
  if (spectator) {
    titleUs.textContent = fmt(L.meldsOf, { name: sideName(0) });
    titleThem.textContent = fmt(L.meldsOf, { name: sideName(1) });
  } else {
    titleUs.textContent = cfg.players === 4 ? L.ourMelds : L.yourMelds;
    titleThem.textContent = cfg.players === 4 ? L.theirMelds : fmt(L.meldsOf, { name: seatName((state.seat + 1) % 2) });
  }
  drawMeldList(document.getElementById("melds-us"), melds[usSide] || [], !spectator);
  drawMeldList(document.getElementById("melds-them"), melds[themSide] || [], false);
}

function burracoLabel(kind) {
  if (kind === "pulito") return L.burracoClean;
  if (kind === "semipulito") return L.burracoSemi;
  if (kind) return L.burracoDirty;
  return "";
}

function drawMeldList(box, melds, ours) {
  box.replaceChildren();
  if (!melds.length) {
    box.append(el("p", "empty-note", L.noMelds));
    return;
  }
  for (const meld of melds) {
    const node = el(ours ? "button" : "div", "meld");
    if (ours) {
      node.type = "button";
      node.dataset.drop = "meld";
      node.title = L.layOffHere;
      node.setAttribute("aria-label", `${L.layOffHere}: ${meld.cards.map(cardLabel).join(", ")}`);
      if (state.chosenMeld === meld.id) node.classList.add("chosen");
    }
    node.dataset.meldId = meld.id;
    if (meld.burraco) {
      node.classList.add("burraco", `burraco-${meld.burraco}`);
      node.append(el("span", "meld-tag", burracoLabel(meld.burraco)));
    }
    const row = el("span", "meld-cards");
    meld.cards.forEach((card, i) => {
      const face = cardFace(card, "span");
      if (meld.wild === i) face.classList.add("as-wild");
      row.append(face);
    });
    node.append(row);
    box.append(node);
  }
}

function renderHand(v) {
  const hand = document.getElementById("hand");
  const me = document.getElementById("me");
  if (state.seat === null) {
    me.hidden = true;
    return;
  }
  me.hidden = false;
  hand.replaceChildren();
  const fresh = [...state.fresh];
  state.order.forEach((card, i) => {
    const face = cardFace(card, "button");
    face.type = "button";
    face.dataset.idx = i;
    face.dataset.drag = "hand";
    face.setAttribute("aria-pressed", state.selected.has(i) ? "true" : "false");
    if (state.selected.has(i)) face.classList.add("selected");
    if (v.picked_single_card === card && isMyTurn()) face.classList.add("picked");
    const f = fresh.indexOf(card);
    if (f >= 0) {
      face.classList.add("fresh");
      fresh.splice(f, 1);
    }
    hand.append(face);
  });
  document.getElementById("hand-count").textContent = `(${state.order.length})`;
  const hint = document.getElementById("turn-hint");
  if (state.finished && !v.hand_over) hint.textContent = L.matchOver;
  else if (v.hand_over) hint.textContent = L.handOver;
  else if (!isMyTurn()) hint.textContent = L.waitPhase;
  else hint.textContent = v.phase === "draw" ? L.drawPhase : L.playPhase;
  const covered = state.presence.get(state.seat);
  document.getElementById("back-wrap").hidden = !(covered && covered.covered_by_computer) || state.finished;
  const abandon = document.getElementById("abandon-panel");
  if (abandon) abandon.hidden = state.finished || cfg.status !== "playing";
}

function renderButtons() {
  const busy = Boolean(state.pending);
  const set = (id, on) => {
    const b = document.getElementById(id);
    if (b) b.disabled = busy || !on;
  };
  const chosen = state.selected.size;
  set("btn-draw", allowed("draw"));
  set("btn-take", allowed("take_discards"));
  set("btn-meld", allowed("meld") && chosen > 0);
  set("btn-discard", allowed("discard") && chosen === 1);
  const layoff = document.getElementById("btn-layoff");
  layoff.hidden = state.chosenMeld === null;
  set("btn-layoff", allowed("lay_off") && chosen > 0 && state.chosenMeld !== null);
  set("btn-sort", state.order.length > 1);
}

function pozzettoText(status) {
  if (status === "taken") return L.pozzettoTaken;
  if (status === "became_stock") return L.pozzettoStock;
  return L.pozzettoTodo;
}

function renderSide(v) {
  const label = document.getElementById("turn-label");
  if (state.finished && !v.hand_over) label.textContent = L.matchOver;
  else if (v.hand_over) label.textContent = L.handOver;
  else if (isMyTurn()) label.textContent = L.yourTurn;
  else if (typeof v.to_move === "number") label.textContent = fmt(L.turnOf, { name: seatName(v.to_move) });
  else label.textContent = "";
  label.classList.toggle("mine", isMyTurn());

  const handNo = document.getElementById("hand-number");
  const target = v.ruleset && v.ruleset.target ? ` · ${fmt(L.target, { n: v.ruleset.target })}` : "";
  handNo.textContent = typeof v.hand_number === "number" ? `${fmt(L.hand, { n: v.hand_number + 1 })}${target}` : "";

  const totals = state.totals || v.totals || [0, 0];
  const table = document.getElementById("totals");
  table.replaceChildren();
  for (const side of [0, 1]) {
    const tr = el("tr");
    if (state.seat !== null && side === mySide()) tr.className = "mine";
    tr.append(el("th", "", sideName(side)), el("td", "num", String(totals[side] ?? 0)));
    table.append(tr);
  }

  const list = document.getElementById("pozzetti");
  list.replaceChildren();
  (v.pozzetti || []).forEach((status, side) => {
    const li = el("li", `pozzetto pozzetto-${status}`);
    li.append(el("span", "", `${sideName(side)}: `), el("strong", "", pozzettoText(status)));
    list.append(li);
  });
}

// ---------------------------------------------------------------- the clock

const clock = document.getElementById("turn-clock");

function tick() {
  const clocks = [clock, ...document.querySelectorAll(".seat-clock")].filter(Boolean);
  let text = "";
  let urgent = false;
  if (state.deadline && inPlay(state.view)) {
    const left = Math.max(0, Math.ceil((Date.parse(state.deadline) - Date.now() - clockSkew) / 1000));
    text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    urgent = left <= 10;
  }
  for (const node of clocks) {
    node.textContent = text;
    node.classList.toggle("urgent", urgent);
  }
}

setInterval(tick, 250);

// ---------------------------------------------------------------- scoring

function scoreRow(label, values, className = "") {
  const tr = el("tr", className);
  tr.append(el("th", "", label));
  for (const value of values) tr.append(el("td", "num", String(value)));
  return tr;
}

/** Clear the scoring dialog's table and give it a header row with the two sides. */
function emptyScoreTable() {
  const table = document.getElementById("score-table");
  table.replaceChildren();
  const head = el("tr");
  head.append(el("th"));
  for (const side of [0, 1]) head.append(el("th", "num", sideName(side)));
  const thead = el("thead");
  thead.append(head);
  return { table, thead, body: el("tbody") };
}

function showScore(frame) {
  state.lastHandOver = frame;
  const dialog = document.getElementById("score-dialog");
  if (!dialog) return;
  const score = frame.score || [];
  const number = typeof frame.hand_number === "number" ? frame.hand_number : null;
  document.getElementById("score-title").textContent = number === null
    ? L.handOver : fmt(L.handOverTitle, { n: number });
  const { table, thead, body } = emptyScoreTable();
  const rows = [
    ["melds", L.scoreRows.melded],
    ["burraco", L.scoreRows.burraco],
    ["closing", L.scoreRows.closing],
    ["hand", L.scoreRows.in_hand],
    ["pozzetto", L.scoreRows.pozzetto],
  ];
  for (const [key, label] of rows) body.append(scoreRow(label, score.map((s) => s[key] ?? 0)));
  body.append(scoreRow(L.scoreRows.total, score.map((s) => s.total ?? 0), "total"));
  if (frame.totals) body.append(scoreRow(L.scoreRows.match, frame.totals, "match"));
  table.append(thead, body);

  const result = document.getElementById("score-result");
  const lobby = document.getElementById("score-lobby");
  if (frame.match_over) {
    const winner = frame.winner_side;
    result.dataset.winner = winner ?? "";
    result.textContent = `${L.matchOver} ${winnerText(winner)}`;
    lobby.hidden = false;
  } else {
    result.textContent = L.nextHand;
    lobby.hidden = true;
  }
  if (!dialog.open) {
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }
}

/** The match was abandoned: who gave it up, who wins, the totals of the hands played to the end. */
function showAbandoned(info) {
  state.abandonShown = true;
  const seat = typeof info.abandoned_seat === "number" ? info.abandoned_seat : null;
  const who = seat !== null && seat === state.seat
    ? L.youAbandoned
    : fmt(L.abandonedBy, { name: info.abandoned_by || (seat !== null ? seatName(seat) : "?") });
  const text = `${who} ${winnerText(info.winner_side)}`;
  const line = document.getElementById("last-move");
  if (line) line.textContent = who;
  const dialog = document.getElementById("score-dialog");
  if (!dialog) return;
  document.getElementById("score-title").textContent = L.abandonedTitle;
  const { table, thead, body } = emptyScoreTable();
  body.append(scoreRow(L.scoreRows.match, info.totals || state.totals || [0, 0], "match"));
  table.append(thead, body);
  const result = document.getElementById("score-result");
  result.dataset.winner = info.winner_side ?? "";
  result.textContent = text;
  document.getElementById("score-lobby").hidden = false;
  const confirm = document.getElementById("abandon-dialog");
  if (confirm && confirm.open) confirm.close();
  if (!dialog.open) {
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }
}

// ---------------------------------------------------------------- pointer dragging

// Pointer events rather than HTML5 drag and drop: they work the same with a mouse and a finger.
const DRAG_THRESHOLD = 6;
let drag = null;
let suppressClick = false;

function dropTargetAt(x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under) return null;
  const target = under.closest("[data-drop]");
  if (!target || !target.dataset.drop) return null;
  return target;
}

function dropAllowed(kind, target) {
  if (!target) return false;
  const zone = target.dataset.drop;
  if (kind === "stock" || kind === "discard") return zone === "hand";
  if (kind === "hand") return zone === "hand" || zone === "discard" || zone === "meld";
  return false;
}

function onPointerDown(event) {
  if (event.button !== 0) return;
  const source = event.target.closest("[data-drag]");
  if (!source || !source.dataset.drag) return;
  drag = { source, kind: source.dataset.drag, x: event.clientX, y: event.clientY, started: false, ghost: null, over: null };
}

function startDrag(event) {
  drag.started = true;
  const rect = drag.source.getBoundingClientRect();
  let ghost;
  if (drag.kind === "hand") {
    ghost = drag.source.cloneNode(true);
  } else if (drag.kind === "discard") {
    ghost = drag.source.cloneNode(true);
    ghost.classList.add("ghost-pile");
  } else {
    ghost = el("div", "card-back");
  }
  ghost.classList.add("drag-ghost");
  ghost.style.width = `${Math.min(rect.width, 320)}px`;
  document.body.append(ghost);
  drag.ghost = ghost;
  drag.dx = Math.min(event.clientX - rect.left, 40);
  drag.dy = Math.min(event.clientY - rect.top, 40);
  document.body.classList.add("dragging", `dragging-${drag.kind}`);
  drag.source.classList.add("drag-source");
}

function onPointerMove(event) {
  if (!drag) return;
  if (!drag.started) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_THRESHOLD) return;
    startDrag(event);
  }
  event.preventDefault();
  drag.ghost.style.left = `${event.clientX - drag.dx}px`;
  drag.ghost.style.top = `${event.clientY - drag.dy}px`;
  const target = dropTargetAt(event.clientX, event.clientY);
  const ok = dropAllowed(drag.kind, target) ? target : null;
  if (drag.over !== ok) {
    if (drag.over) drag.over.classList.remove("drop-over");
    if (ok) ok.classList.add("drop-over");
    drag.over = ok;
  }
}

function endDrag() {
  if (!drag) return;
  if (drag.ghost) drag.ghost.remove();
  if (drag.over) drag.over.classList.remove("drop-over");
  drag.source.classList.remove("drag-source");
  document.body.classList.remove("dragging", `dragging-${drag.kind}`);
  drag = null;
}

function onPointerUp(event) {
  if (!drag) return;
  if (!drag.started) {
    drag = null;
    return;
  }
  suppressClick = true;
  setTimeout(() => { suppressClick = false; }, 0);
  const target = dropTargetAt(event.clientX, event.clientY);
  const { kind, source } = drag;
  endDrag();
  if (!dropAllowed(kind, target)) return;
  handleDrop(kind, source, target, event.clientX, event.clientY);
}

function handleDrop(kind, source, target, x, y) {
  const zone = target.dataset.drop;
  if (kind === "stock") {
    doDraw();
    return;
  }
  if (kind === "discard") {
    doTake();
    return;
  }
  const idx = Number(source.dataset.idx);
  const card = state.order[idx];
  if (zone === "discard") {
    doDiscard(card);
  } else if (zone === "meld") {
    doLayOff(Number(target.dataset.meldId), [card]);
  } else if (zone === "hand") {
    reorder(idx, x, y);
  }
}

/** Move one card of the hand to where it was dropped, keeping the selection on the same cards. */
function reorder(from, x, y) {
  const faces = [...document.querySelectorAll("#hand .pcard")];
  let to = faces.length;
  for (const face of faces) {
    const rect = face.getBoundingClientRect();
    // The hand wraps: a drop above a card's row, or left of its middle in its row, goes before it.
    if (y < rect.top || (y <= rect.bottom && x < rect.left + rect.width / 2)) {
      to = Number(face.dataset.idx);
      break;
    }
  }
  if (to === from || to === from + 1) return;
  const items = state.order.map((card, i) => ({ card, sel: state.selected.has(i) }));
  const [moved] = items.splice(from, 1);
  items.splice(to > from ? to - 1 : to, 0, moved);
  state.order = items.map((it) => it.card);
  state.selected = new Set(items.flatMap((it, i) => (it.sel ? [i] : [])));
  state.custom = true;
  render();
}

document.addEventListener("pointerdown", onPointerDown);
document.addEventListener("pointermove", onPointerMove, { passive: false });
document.addEventListener("pointerup", onPointerUp);
document.addEventListener("pointercancel", endDrag);

// ---------------------------------------------------------------- clicks and keys

function on(id, type, handler) {
  const node = document.getElementById(id);
  if (node) node.addEventListener(type, handler);
}

on("hand", "click", (event) => {
  if (suppressClick) return;
  const face = event.target.closest(".pcard");
  if (!face) return;
  const i = Number(face.dataset.idx);
  if (state.selected.has(i)) state.selected.delete(i);
  else state.selected.add(i);
  render();
});

on("hand", "contextmenu", (event) => {
  // Right click melds the chosen cards (the manual's gesture); with nothing chosen, the menu stays.
  if (state.selected.size === 0) return;
  event.preventDefault();
  doMeld();
});

on("melds-us", "click", (event) => {
  if (suppressClick) return;
  const meld = event.target.closest(".meld[data-meld-id]");
  if (!meld) return;
  const id = Number(meld.dataset.meldId);
  if (state.selected.size > 0 && allowed("lay_off")) {
    doLayOff(id, selectedCards());
    state.chosenMeld = null;
  } else {
    state.chosenMeld = state.chosenMeld === id ? null : id;
    render();
  }
});

on("btn-draw", "click", doDraw);
on("btn-take", "click", doTake);
on("btn-meld", "click", doMeld);
on("btn-discard", "click", doDiscardSelected);
on("btn-layoff", "click", () => {
  if (state.chosenMeld !== null) doLayOff(state.chosenMeld, selectedCards());
});
on("btn-sort", "click", () => {
  state.order.sort(compareCards);
  state.custom = false;
  state.selected.clear();
  render();
});
on("btn-back", "click", () => send({ type: "back" }));
on("score-close", "click", () => document.getElementById("score-dialog").close());
on("btn-abandon", "click", () => {
  // Confirmed in a dialog; its form posts to /tavolo/<id>/abbandona/ (works with the socket down too).
  const dialog = document.getElementById("abandon-dialog");
  if (dialog && !state.finished) dialog.showModal();
});
on("abandon-cancel", "click", () => document.getElementById("abandon-dialog").close());
on("chat-form", "submit", (event) => {
  event.preventDefault();
  const phrase = document.getElementById("chat-phrase").value;
  if (phrase) send({ type: "chat", phrase });
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state.selected.size && !document.querySelector("dialog[open]")) {
    state.selected.clear();
    render();
  }
});

// ---------------------------------------------------------------- waiting room

let waitingPoll = null;

/** While seats fill up, refresh the seat list from the server (cheap, and needs no socket frame). */
async function checkWaitingRoom() {
  const current = document.getElementById("waiting-room");
  if (!current) return;
  try {
    const response = await fetch(location.href, { headers: { "X-Requested-With": "fetch" }, cache: "no-store" });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const page = doc.getElementById("table-page");
    const fresh = doc.getElementById("waiting-room");
    if (!page || page.dataset.status !== cfg.status || !fresh) {
      location.reload();
      return;
    }
    if (fresh.dataset.signature !== current.dataset.signature
        || page.dataset.myPosition !== root.dataset.myPosition) {
      location.reload();
    }
  } catch {
    // offline for a moment: the next poll tries again
  }
}

on("copy-invite", "click", async () => {
  const input = document.getElementById("invite-link");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    document.getElementById("copy-invite").textContent = L.copied;
  } catch {
    document.execCommand("copy");
  }
});

// ---------------------------------------------------------------- start

if (cfg.status === "waiting") {
  // The socket's "table" frames say when seats change; polling covers a socket that is down.
  waitingPoll = setInterval(() => {
    if (!socket || socket.readyState !== WebSocket.OPEN) checkWaitingRoom();
  }, 4000);
  void waitingPoll;
}
connect();

// For tests and debugging: the state the page is drawing.
window.burracoTable = { state, stats, render, handleFrame, get socket() { return socket; } };
