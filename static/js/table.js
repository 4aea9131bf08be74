// The live table page: one WebSocket (docs/protocol.md), the engine's view of our seat drawn as
// cards, our plays sent back as engine actions. The server decides everything: this module
// wires the socket, the state (table/state.js), the drawing (table/render.js), dragging, sounds
// and motion together.

import { cardFace } from "./lib/cards.js";
import { readJSON } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";
import { installDrag } from "./table/drag.js";
import { Motion } from "./table/motion.js";
import { createRenderer } from "./table/render.js";
import { Sounds } from "./table/sound.js";
import * as S from "./table/state.js";
import { startTour } from "./table/tour.js";

const root = document.getElementById("table-page");
const L = readJSON("table-labels", {});
L.log = readJSON("log-labels", {}); // the replay's own words for each move (games/selectors/tables.py)
const PHRASES = readJSON("chat-phrases", []);
const $ = (id) => document.getElementById(id);

const cfg = {
  tableId: Number(root.dataset.tableId),
  wsPath: root.dataset.wsPath,
  username: root.dataset.username || "",
  logUrl: root.dataset.logUrl,
};
const seats = [...document.querySelectorAll("#seat-data li")].map((li) => ({
  position: Number(li.dataset.position),
  side: Number(li.dataset.side),
  name: li.dataset.name,
  computer: li.dataset.computer === "1",
}));

const state = S.createState({
  seat: root.dataset.myPosition === "" ? null : Number(root.dataset.myPosition),
  players: Number(root.dataset.players),
  seats,
  labels: L,
  tableId: cfg.tableId,
  status: root.dataset.status,
});
state.rematch = readJSON("rematch-data", null);
const view = createRenderer(state);
const sounds = new Sounds(`burraco:sound:${cfg.username}`);
const motion = new Motion();
let leaving = false; // a waiting-room form is on its way: its answer is the next page

// ---------------------------------------------------------------- remembering our order

const orderKey = () => `burraco:hand:${cfg.tableId}:${state.seat}`;
const modeKey = `burraco:sort:${cfg.username}`;

let lastSaved = "";

function saveOrder() {
  if (state.seat === null || state.handNumber === undefined) return;
  const text = JSON.stringify(S.savedOrder(state));
  if (text === lastSaved) return;
  lastSaved = text;
  try {
    localStorage.setItem(orderKey(), text);
    localStorage.setItem(modeKey, state.sortMode);
  } catch {
    // storage refused: the order lasts until the page closes
  }
}

function restoreOrder() {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(orderKey()) || "null");
    const mode = localStorage.getItem(modeKey);
    if (!saved && (mode === "suit" || mode === "rank")) saved = { mode };
  } catch {
    saved = null;
  }
  S.restoreOrder(state, saved);
}

// ---------------------------------------------------------------- the socket

const FINAL_CLOSE = [4401, 4403, 4404, 4429];
const badge = $("conn-badge");
const socket = new LiveSocket(cfg.wsPath, {
  onOpen() {
    badge.hidden = true;
    hello();
  },
  onFrame: handleFrame,
  onClose(event, willRetry) {
    state.pending = null;
    badge.hidden = false;
    if (!willRetry) badge.textContent = event.code === 4401 ? L.notLoggedIn : L.unavailable;
    else badge.textContent = L.reconnecting;
  },
}, { finalCodes: FINAL_CLOSE });

function hello(extra = {}) {
  state.stats.hellos += 1;
  socket.send({ type: "hello", last_version: state.version, ...extra });
}

// The player's own seed for the next deal (docs/fairness.md): checked here as the engine checks
// it, then sent with a `hello`, which the server answers as any other (nothing missed: nothing).
const CLIENT_SEED = /^[\x21-\x7e]{0,64}$/;
const seedForm = $("client-seed-form");
if (seedForm) {
  seedForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("client-seed").value.trim();
    const ok = CLIENT_SEED.test(text);
    $("client-seed-status").textContent = ok ? L.clientSeedSent : L.clientSeedBad;
    seedForm.classList.toggle("has-error", !ok);
    if (ok) hello({ client_seed: text });
  });
}

function handleFrame(frame) {
  let effects = [];
  switch (frame.type) {
    case "snapshot":
      effects = S.applySnapshot(state, frame);
      break;
    case "event":
      effects = S.applyEvent(state, frame);
      break;
    case "hand_over":
      effects = S.applyHandOver(state, frame);
      break;
    case "match_over":
      effects = S.applyMatchOver(state, frame);
      break;
    case "error":
      state.pending = null;
      if (REMATCH_REFUSALS.has(frame.code) && $("rematch-box") && !$("rematch-box").hidden) {
        $("rematch-text").textContent = frame.message || frame.code; // said where the buttons were
        return;
      }
      if (frame.code === "bad_client_seed" && seedForm) {
        $("client-seed-status").textContent = frame.message || L.clientSeedBad;
        seedForm.classList.add("has-error");
        return;
      }
      showError(frame.message || frame.code);
      break;
    case "chat":
      onChat(frame);
      return;
    case "presence":
      effects = S.applyPresence(state, frame);
      break;
    case "table":
      effects = S.applyTable(state, frame);
      break;
    case "clock":
      effects = S.applyClock(state, frame);
      break;
    case "pong":
      effects = S.applyPong(state, frame);
      if (!effects.length) return;
      break;
    case "rematch":
      state.rematch = frame;
      renderRematch();
      if (frame.table_url) setTimeout(() => { location.href = frame.table_url; }, 1500);
      return;
    default:
      return;
  }
  run(effects);
}

function run(effects) {
  const later = [];
  for (const effect of effects) {
    switch (effect.type) {
      case "reload":
        if (!leaving) location.reload();
        return;
      case "checkWaiting":
        checkWaitingRoom();
        break;
      case "gap":
        hello(); // something was missed: ask for the whole picture again
        return;
      case "hideError":
        hideError();
        break;
      case "status":
        setStatus(state.status);
        break;
      case "restoreOrder":
        restoreOrder();
        break;
      case "fetchLog":
        fetchLog();
        break;
      case "score":
        later.push(() => view.showScore(state.handOver));
        break;
      case "abandoned":
        later.push(() => view.showAbandoned(effect.info));
        break;
      case "sound":
        sounds.play(effect.name);
        break;
      case "move":
        // Measured in the next frame, when the browser has laid the page out anyway.
        requestAnimationFrame(() => animateMove(effect));
        if (!effect.mine) {
          announce(state.lastMove); // read out the others' moves
          S.noteNew(state, "log", paneOnScreen("log"));
        }
        break;
      case "yourTurn":
        sounds.play("yourTurn");
        announce(L.yourTurn);
        notifyTurn();
        break;
      default:
        break;
    }
  }
  view.render();
  if (state.seat !== null) saveOrder();
  for (const fn of later) fn();
  if (state.finished) renderRematch();
  renderFinished();
  if (!tourChecked && practice && state.view && state.seat !== null && state.status === "playing") {
    tourChecked = true; // the first visit's tour, over the table as it is now drawn
    openTour(false);
  }
  holdClock();
}
let tourChecked = false;

// ---------------------------------------------------------------- the tour stops the clock

// Only at a practice table (nobody but the computer): with people the tour is a link to the
// controls page, never an overlay on a running clock.
const practice = root.dataset.practice === "1";
let tourOpen = false;
let heldDeadline = null;
let released = false;

function openTour(force) {
  startTour(L.tour, {
    force,
    onOpen() {
      tourOpen = true;
      heldDeadline = null;
      holdClock();
    },
    onClose() {
      tourOpen = false;
      socket.send({ type: "tour", open: false }); // our turn starts again with its full time
    },
  });
}

/** While the tour is open, a deadline of ours that reaches the page is stopped (once each). */
function holdClock() {
  if (practice && !tourOpen && !released && S.isMyTurn(state) && !state.deadline) {
    // A page closed with the tour open left our clock stopped: it starts again now.
    released = true;
    socket.send({ type: "tour", open: false });
  }
  if (!tourOpen || (heldDeadline !== null && heldDeadline === state.deadline)) return;
  if (heldDeadline !== null && !(state.deadline && S.isMyTurn(state))) return;
  heldDeadline = state.deadline || "";
  socket.send({ type: "tour", open: true });
}

// ---------------------------------------------------------------- motion

const flyFrom = { rect: null, card: null };

function seatBoxOf(position) {
  return document.querySelector(`.seat-box[data-position="${position}"]`);
}

function rectOf(node) {
  return node ? node.getBoundingClientRect() : null;
}

function animateMove({ seat, action, mine }) {
  const stock = $("stock");
  const pile = $("discard");
  const type = action.type;
  if (type === "draw") {
    const target = mine ? document.querySelector("#hand .pcard.fresh") : seatBoxOf(seat);
    const back = document.createElement("div");
    back.className = "card-back";
    motion.fly(back, rectOf(stock), rectOf(target));
  } else if (type === "take_discards") {
    const ghost = document.createElement("div");
    ghost.className = "card-back";
    motion.fly(ghost, rectOf(pile), rectOf(mine ? $("hand") : seatBoxOf(seat)));
  } else if (type === "discard" && action.card) {
    const from = mine && flyFrom.card === action.card && flyFrom.rect ? flyFrom.rect : rectOf(seatBoxOf(seat));
    motion.fly(cardFace(action.card, { labels: L }), from, rectOf(pile.querySelector(".pcard.top")));
    flyFrom.rect = null;
  } else if ((type === "meld" || type === "lay_off") && Array.isArray(action.cards)) {
    const side = seat % 2 === S.mySide(state) || state.seat === null && seat % 2 === 0 ? "us" : "them";
    const target = type === "lay_off"
      ? document.querySelector(`#melds-${side} .meld[data-meld-id="${action.meld}"]`)
      : document.querySelector(`#melds-${side} .meld:last-child`);
    motion.fly(cardFace(action.cards[0], { labels: L }), rectOf(mine ? $("hand") : seatBoxOf(seat)), rectOf(target));
  }
}

// ---------------------------------------------------------------- telling the player

function announce(text) {
  const node = $("announcer");
  if (node) node.textContent = text;
}

let notifyAsked = false;
try {
  notifyAsked = localStorage.getItem("burraco:notify-asked") === "1";
} catch {
  notifyAsked = false;
}

function notifyTurn() {
  if (!document.hidden || typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    const note = new Notification(L.yourTurn, { body: document.title.replace(/^● [^·]+· /, ""), tag: `table-${cfg.tableId}` });
    note.onclick = () => window.focus();
  } catch {
    // some browsers only allow notifications from a service worker
  }
}

function renderNotifyButton() {
  const button = $("btn-notify");
  if (!button) return;
  button.hidden = typeof Notification === "undefined" || Notification.permission !== "default" || notifyAsked
    || state.seat === null;
}

// ---------------------------------------------------------------- the move log

async function fetchLog() {
  if (!cfg.logUrl) return;
  try {
    const response = await fetch(cfg.logUrl, { headers: { Accept: "application/json" }, cache: "no-store" });
    if (!response.ok) return;
    if (S.mergeLog(state, await response.json())) view.render();
  } catch {
    // the lines of this session still show
  }
}

// ---------------------------------------------------------------- actions

function act(action) {
  const frame = S.actionFrame(state, action);
  if (!frame) return;
  hideError();
  if (socket.send(frame)) {
    state.pending = frame.ref;
    setTimeout(() => {
      if (state.pending === frame.ref) {
        state.pending = null;
        view.render();
      }
    }, 6000);
  }
  view.render();
}

function doMeld() {
  const cards = S.selectedCards(state);
  if (!cards.length) return showError(L.selectCardsFirst);
  act({ type: "meld", cards });
}

function doLayOff(meldId, cards) {
  if (!cards.length) return showError(L.selectCardsFirst);
  state.chosenMeld = null;
  act({ type: "lay_off", meld: meldId, cards });
}

function doDiscard(card, node) {
  flyFrom.card = card;
  flyFrom.rect = node ? node.getBoundingClientRect() : null;
  act({ type: "discard", card });
}

function doDiscardSelected() {
  const cards = S.selectedCards(state);
  if (cards.length !== 1) return showError(cards.length ? L.selectOneCard : L.selectCardsFirst);
  const key = [...state.selected][0];
  doDiscard(cards[0], document.querySelector(`#hand [data-key="${CSS.escape(key)}"]`));
}

const errorBox = $("table-error");

function showError(message) {
  if (!errorBox) return;
  errorBox.textContent = message;
  errorBox.hidden = false;
  view.render();
}

function hideError() {
  if (!errorBox) return;
  errorBox.hidden = true;
  errorBox.textContent = "";
}

// ---------------------------------------------------------------- dragging

const drag = installDrag({
  onDrop(kind, source, target, x, y) {
    const zone = target.dataset.drop;
    if (kind === "stock") return act({ type: "draw" });
    if (kind === "discard") return act({ type: "take_discards" });
    const key = source.dataset.key;
    const item = state.hand.find((i) => i.key === key);
    if (!item) return;
    if (zone === "discard") doDiscard(item.card, source);
    else if (zone === "meld") {
      // A chosen card carries the other chosen ones with it.
      const cards = state.selected.has(key) ? S.selectedCards(state) : [item.card];
      doLayOff(Number(target.dataset.meldId), cards);
    } else if (zone === "hand") {
      reorder(key, x, y);
    }
  },
});

/** Move a card of the hand to where it was dropped. */
function reorder(key, x, y) {
  let before = null;
  for (const face of document.querySelectorAll("#hand .pcard")) {
    const rect = face.getBoundingClientRect();
    // The hand wraps: a drop above a card's row, or left of its middle in its row, goes before it.
    if (y < rect.top || (y <= rect.bottom && x < rect.left + rect.width / 2)) {
      before = face.dataset.key;
      break;
    }
  }
  if (before === key) return;
  S.moveCard(state, key, before);
  view.render();
  saveOrder();
}

// ---------------------------------------------------------------- clicks and keys

function on(id, type, handler) {
  const node = $(id);
  if (node) node.addEventListener(type, handler);
}

// The rematch's answers go over the socket while it is open (no page load: the `rematch` frame
// to everybody says the rest); with the socket down the forms post them.
const REMATCH_REFUSALS = new Set(["no_offer", "rematch_declined", "rematch_left", "rematch_started", "not_finished"]);
for (const [form, answer] of [["rematch-form", "yes"], ["rematch-decline-form", "no"]]) {
  on(form, "submit", (event) => {
    if (socket.send({ type: "rematch", answer })) event.preventDefault();
  });
}

on("hand", "click", (event) => {
  if (drag.suppressClick) return;
  const face = event.target.closest(".pcard");
  if (!face || face.disabled) return;
  S.toggleSelect(state, face.dataset.key);
  view.render();
});

on("hand", "contextmenu", (event) => {
  // Right click melds the chosen cards (the manual's gesture); with nothing chosen, the menu stays.
  if (state.selected.size === 0) return;
  event.preventDefault();
  doMeld();
});

on("melds-us", "click", (event) => {
  if (drag.suppressClick) return;
  const meld = event.target.closest("button.meld[data-meld-id]");
  if (!meld) return;
  const id = Number(meld.dataset.meldId);
  if (state.selected.size > 0 && S.allowed(state, "lay_off")) {
    doLayOff(id, S.selectedCards(state));
  } else {
    state.chosenMeld = state.chosenMeld === id ? null : id;
    view.render();
  }
});

on("btn-draw", "click", () => act({ type: "draw" }));
on("btn-take", "click", () => act({ type: "take_discards" }));
on("btn-meld", "click", doMeld);
on("btn-discard", "click", doDiscardSelected);
on("btn-layoff", "click", () => {
  if (state.chosenMeld !== null) doLayOff(state.chosenMeld, S.selectedCards(state));
});
for (const mode of ["suit", "rank"]) {
  on(`btn-sort-${mode}`, "click", () => {
    S.sortHand(state, mode);
    view.render();
    saveOrder();
  });
}
on("btn-back", "click", () => socket.send({ type: "back" }));
on("score-close", "click", () => {
  $("score-dialog").close();
});
on("score-dialog", "close", () => {
  const dialog = $("score-dialog");
  if (dialog.dataset.review === "1") delete dialog.dataset.review; // put aside to look at the table
  else S.closeScore(state);
  view.render();
  renderFinished();
});
// A finished match whose scoring was closed keeps a bar: the result, the scoring (and the
// rematch in it) again, and the way back to the lobby or the tournament.
function renderFinished() {
  const bar = $("finished-bar");
  if (!bar) return;
  const dialog = $("score-dialog");
  const show = state.finished && !state.reviewing && !dialog.open;
  if (bar.hidden !== !show) bar.hidden = !show; // written only on a change: every frame calls this
  if (show) $("finished-text").textContent = $("score-result").textContent || L.matchOver;
  if (state.finished && $("score-tournament")) $("score-tournament").hidden = false;
}
on("finished-score", "click", () => {
  if ($("score-table").rows.length) {
    state.scoreOpen = true;
    $("score-dialog").showModal();
  } else {
    view.showScore(state.handOver || { match_over: true, totals: state.totals,
      winner_side: state.result ? state.result.winner_side : null });
  }
  renderRematch();
  renderFinished();
});
on("score-review", "click", () => {
  S.reviewTable(state);
  const dialog = $("score-dialog");
  dialog.dataset.review = "1";
  dialog.close();
});
on("review-continue", "click", () => {
  S.closeScore(state);
  view.render();
});
on("review-score", "click", () => {
  state.reviewing = false;
  state.scoreOpen = true;
  view.showScore(state.handOver);
  view.render();
});
on("btn-abandon", "click", () => {
  // Confirmed in a dialog; its form posts to /tavolo/<id>/abbandona/ (works with the socket down too).
  const dialog = $("abandon-dialog");
  if (dialog && !state.finished) dialog.showModal();
});
on("abandon-cancel", "click", () => $("abandon-dialog").close());
on("chat-form", "submit", (event) => {
  event.preventDefault();
  const phrase = $("chat-phrase").value;
  if (phrase) socket.send({ type: "chat", phrase });
});
on("notices", "click", (event) => {
  const close = event.target.closest("[data-notice]");
  if (!close) return;
  state.notices.delete(close.dataset.notice);
  view.render();
});
on("btn-sound", "click", () => {
  sounds.toggle();
  renderSoundButton();
});
on("btn-notify", "click", async () => {
  try {
    localStorage.setItem("burraco:notify-asked", "1");
  } catch {
    // asked this time only
  }
  notifyAsked = true;
  if (typeof Notification !== "undefined") await Notification.requestPermission();
  renderNotifyButton();
});
if (practice) on("btn-tour", "click", () => openTour(true));

function renderSoundButton() {
  const button = $("btn-sound");
  if (!button) return;
  button.setAttribute("aria-pressed", sounds.muted ? "false" : "true");
  button.textContent = sounds.muted ? L.soundOff : L.soundOn;
}

document.addEventListener("pointerdown", () => sounds.unlock(), { once: true });
document.addEventListener("keydown", () => sounds.unlock(), { once: true });

const KEYS = { p: "btn-draw", r: "btn-take", c: "btn-meld", s: "btn-discard" };

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || document.querySelector("dialog[open]")) return;
  const tag = (event.target && event.target.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (event.key === "Escape" && state.pane) {
    setPane(null);
    return;
  }
  if (event.key === "Escape" && state.selected.size) {
    state.selected.clear();
    view.render();
    return;
  }
  const face = event.target.closest && event.target.closest("#hand .pcard");
  if (face && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
    // Move along the hand; with Shift, move the card itself.
    event.preventDefault();
    const faces = [...document.querySelectorAll("#hand .pcard")];
    const i = faces.indexOf(face);
    const j = event.key === "ArrowLeft" ? i - 1 : i + 1;
    if (j < 0 || j >= faces.length) return;
    if (event.shiftKey) {
      const before = event.key === "ArrowLeft" ? faces[j].dataset.key : (faces[j + 1] ? faces[j + 1].dataset.key : null);
      S.moveCard(state, face.dataset.key, before);
      view.render();
      saveOrder();
      face.focus();
    } else {
      faces[j].focus();
    }
    return;
  }
  const button = KEYS[event.key.toLowerCase()];
  if (button && !event.shiftKey) {
    const b = $(button);
    if (b && !b.disabled) {
      event.preventDefault();
      b.click();
    }
  }
});

// ---------------------------------------------------------------- chat, status, rematch

function onChat(frame) {
  const log = $("chat-log");
  if (!log) return;
  const li = document.createElement("li");
  const who = document.createElement("strong");
  who.textContent = `${S.seatName(state, frame.seat)}: `;
  // The page's own list has the phrase in this reader's language; the frame's text is the fallback.
  const found = PHRASES.find((p) => p.id === frame.phrase);
  li.append(who, document.createTextNode(found ? found.text : frame.text || ""));
  log.append(li);
  while (log.children.length > 30) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
  S.noteNew(state, "chat", paneOnScreen("chat"));
  view.render();
}

// ---------------------------------------------------------------- side panes

// On a wide screen every pane is in the side column; on a narrow one the bar opens one at a time
// as a drawer (table.css uses the same query).
const WIDE = typeof matchMedia === "function" ? matchMedia("(min-width: 1100px) and (min-height: 600px)") : null;

function paneOnScreen(pane) {
  return Boolean(WIDE && WIDE.matches) || state.pane === pane;
}

function setPane(pane) {
  S.openPane(state, state.pane === pane ? null : pane);
  view.render();
}

on("side-tabs", "click", (event) => {
  const tab = event.target.closest(".side-tab");
  if (tab) setPane(tab.dataset.pane);
});
on("side-close", "click", () => setPane(null));

function setStatus(status) {
  const tag = $("status-tag");
  if (tag && L.status[status]) tag.textContent = L.status[status];
}

/** The rematch offer under a finished match's scoring: who asked, and the new table once all did. */
function renderRematch() {
  const box = $("rematch-box");
  if (!box || !state.finished) return;
  // Before anybody asked, nobody has said yes and every person at the table is needed.
  const r = state.rematch || { accepted: [], table_url: null,
    needed: [...state.seats.values()].filter((i) => !i.computer).map((i) => i.position) };
  box.hidden = false;
  const asked = r.accepted || [];
  const mine = asked.includes(state.seat);
  const waiting = (r.needed || []).filter((p) => !asked.includes(p)).map((p) => S.plainName(state, p));
  let text;
  const ended = Boolean(r.ended) && !r.table_url;
  if (ended) {
    const who = [S.plainName(state, r.ended_by)];
    const me = r.ended_by === state.seat;
    if (r.ended === "left") text = me ? L.rematchLeftMine : S.fmtList(L.rematchLeft, who);
    else text = me ? L.rematchDeclinedMine : S.fmtList(L.rematchDeclined, who);
  } else if (r.table_url) text = L.rematchStarting;
  else if (mine) text = waiting.length ? S.fmtList(L.rematchWaiting, waiting) : L.rematchStarting;
  else if (asked.length) text = S.fmtList(L.rematchOffered, asked.map((p) => S.plainName(state, p)));
  else text = L.rematchOffer;
  $("rematch-text").textContent = text;
  $("rematch-form").hidden = mine || ended || Boolean(r.table_url);
  // "No, grazie" only answers somebody else's offer.
  $("rematch-decline-form").hidden = mine || ended || Boolean(r.table_url) || !asked.length;
  const go = $("rematch-go");
  go.hidden = !r.table_url;
  if (r.table_url) go.href = r.table_url;
  const dialog = $("score-dialog");
  if (!dialog.open && !state.reviewing && ((asked.length && !mine) || (ended && r.ended_by !== state.seat))) {
    view.showScore(state.handOver || { match_over: true });
  }
}

// ---------------------------------------------------------------- waiting room

async function checkWaitingRoom() {
  const current = $("waiting-room");
  if (!current || leaving) return;
  try {
    const response = await fetch(location.href, { headers: { "X-Requested-With": "fetch" }, cache: "no-store" });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const page = doc.getElementById("table-page");
    const fresh = doc.getElementById("waiting-room");
    if (!page || page.dataset.status !== state.status || !fresh
        || fresh.dataset.signature !== current.dataset.signature
        || page.dataset.myPosition !== root.dataset.myPosition) {
      if (!leaving) location.reload();
    }
  } catch {
    // offline for a moment: the next poll tries again
  }
}

on("copy-invite", "click", async () => {
  const input = $("invite-link");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    $("copy-invite").textContent = L.copied;
  } catch {
    document.execCommand("copy");
  }
});

// A waiting-room form (sit, stand up, add the computer, start) answers with the next page:
// frames that arrive meanwhile must not reload this one.
for (const form of document.querySelectorAll("#waiting-room form")) {
  form.addEventListener("submit", () => { leaving = true; });
}

// ---------------------------------------------------------------- start

if (state.status === "waiting") {
  // The socket's "table" frames say when seats change; polling covers a socket that is down.
  setInterval(() => {
    if (!socket.open) checkWaitingRoom();
  }, 4000);
}
setInterval(() => {
  const left = view.tick();
  if (left !== null && S.isMyTurn(state) && (left === 10 || left === 5) && tickWarned !== `${state.version}:${left}`) {
    tickWarned = `${state.version}:${left}`;
    sounds.play("tick");
  }
}, 250);
let tickWarned = "";

// The fans (the hand, the pile) fit their boxes: their widths and the card sizes of table.css are
// measured here when they change, never in the middle of a render.
function measure() {
  const css = getComputedStyle(document.documentElement);
  const px = (name, fallback) => parseFloat(css.getPropertyValue(name)) || fallback;
  const hand = $("hand");
  const pile = $("discard");
  view.resized({
    hand: hand ? hand.clientWidth - 8 : 0,
    pile: pile ? pile.clientWidth - 10 : 0,
    cw: px("--cw", 54), ch: px("--ch", 76), mw: px("--mw", 40), fan: px("--fan", 20),
  });
}
if (typeof ResizeObserver === "function") {
  let queued = 0;
  const observer = new ResizeObserver(() => {
    if (!queued) queued = requestAnimationFrame(() => { queued = 0; measure(); });
  });
  for (const id of ["hand", "discard"]) if ($(id)) observer.observe($(id));
}
// A rotation or a resize in the middle of a drag drops it: the card goes back where it was.
window.addEventListener("resize", () => {
  if (drag.active) drag.cancel();
});

renderSoundButton();
renderNotifyButton();
socket.connect();

// For tests and debugging: the state the page is drawing.
window.burracoTable = {
  state,
  stats: state.stats,
  render: () => view.render(),
  handleFrame,
  sounds,
  motion,
  get socket() {
    return socket.ws;
  },
};
