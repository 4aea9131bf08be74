// The lobby: the list of open tables kept live by the lobby socket (with a slow refresh as a
// fallback), "Gioca con persone" (the queue, over the same socket), and the new-table form
// pre-filled from the chosen preset.

import { el, fmt, readJSON } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";
import { allowed, describeWaiting, foundBy, nextState, pairEnded, tableAddress } from "./queue.js";
import { Sounds } from "./table/sound.js";
import { bellFrame } from "./bell.js";
import { checkStarted } from "./waiting.js";

const root = document.getElementById("lobby");
const L = readJSON("lobby-labels", {});
const PRESETS = readJSON("preset-defaults", {});
const me = root.dataset.username;
const signedIn = root.dataset.authenticated === "1";

function csrfToken() {
  const tpl = document.getElementById("csrf-token");
  const input = tpl && tpl.content.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

// ---------------------------------------------------------------- the live list

/** The same markup as templates/games/_lobby_table.html, from the socket's table summary. */
function tableItem(t) {
  const li = el("li", "table-item");
  li.dataset.tableId = t.id;
  const what = el("span", "what");
  what.append(el("strong", "", `${fmt(L.table, { n: t.id })} · ${L.status[t.status] || t.status}`));
  const bits = [t.players === 4 ? L.players4 : L.players2, L.presets[t.preset] || t.preset];
  if (t.target) bits.push(fmt(L.target, { n: t.target }));
  if (t.rated) bits.push(L.rated);
  what.append(el("span", "who", bits.join(" · ")));
  const seats = el("span", "who seats-line");
  (t.seats || []).forEach((s, i) => {
    if (i) seats.append(", ");
    if (s.username) seats.append(s.username);
    else if (s.bot_level) seats.append(L.computer);
    else seats.append(el("em", "", L.free));
  });
  what.append(seats);
  li.append(what);

  const go = el("span", "go");
  const mine = (t.seats || []).some((s) => s.username === me);
  const free = (t.seats || []).find((s) => s.empty);
  if (t.status === "waiting" && signedIn && !mine && free) {
    const form = el("form", "inline");
    form.method = "post";
    form.action = `${t.url}siedi/`;
    const token = el("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = csrfToken();
    const pos = el("input");
    pos.type = "hidden";
    pos.name = "position";
    pos.value = free.position;
    const button = el("button", "button small sit-button", L.sit);
    button.type = "submit";
    form.append(token, pos, button);
    go.append(form);
  }
  const link = el("a", "button small secondary", mine ? L.open : L.watch);
  link.href = t.url;
  go.append(link);
  li.append(go);
  return li;
}

function showTables(tables) {
  const list = document.getElementById("open-tables");
  list.replaceChildren(...tables.map(tableItem));
  document.getElementById("no-tables").hidden = tables.length > 0;
}

let live = false;

const socket = new LiveSocket(root.dataset.wsPath, {
  onOpen() {
    live = true;
    document.getElementById("lobby-live").hidden = false;
    queueConnected(true);
  },
  onFrame(frame) {
    bellFrame(frame); // the header's bell hears this page's socket
    if (frame.type === "lobby" && Array.isArray(frame.tables)) {
      showTables(frame.tables);
      checkStarted(frame.tables); // a table we wait at started: say so
    } else if (frame.type === "challenge") {
      challengeFrame(frame);
    } else if (frame.type === "error" && frame.ref === "challenge") {
      challengeNotice(frame.message);
    } else if (frame.type === "pair_invite") {
      pairInviteFrame(frame);
    } else if (frame.type === "matched" && frame.tournament) {
      // a tournament's call: the bell's full-screen call takes the person to the table
    } else if (frame.type === "queue" || frame.type === "matched" || frame.type === "error") {
      queueFrame(frame);
    }
  },
  onClose() {
    live = false;
    document.getElementById("lobby-live").hidden = true;
    queueConnected(false);
  },
}, { baseDelay: 1000, maxDelay: 15000, pingEvery: 0 });

// ---------------------------------------------------------------- "Gioca con persone"

const queueForm = document.getElementById("queue-form");
const sounds = new Sounds(`burraco:sound:${me}`);
let queue = { status: "idle" };
let queueTimer = null;
// For the browser tests: the sounds asked for (`played`) and the queue state.
window.burracoLobby = { sounds, queue: () => queue };

function queueNode(id) {
  return document.getElementById(id);
}

function queueNotice(text) {
  const notice = queueNode("queue-notice");
  if (!notice) return;
  notice.textContent = text || "";
  notice.hidden = !text;
}

function drawQueue() {
  if (!queueForm) return;
  const waiting = queue.status === "waiting";
  queueForm.hidden = waiting || queue.status === "matched";
  queueNode("queue-waiting").hidden = !waiting;
  clearInterval(queueTimer);
  if (!waiting) return;
  const tick = () => {
    const texts = describeWaiting(queue, L, Date.now());
    queueNode("queue-what").textContent = texts.what;
    queueNode("queue-seconds").textContent = texts.seconds;
    queueNode("queue-detail").textContent = texts.detail;
  };
  tick();
  queueTimer = setInterval(tick, 1000);
}

function queueConnected(open) {
  if (!queueForm) return;
  const button = queueNode("queue-join");
  button.disabled = !open;
  button.title = open ? "" : L.queueConnecting;
  queueNode("queue-cancel").disabled = !open;
}

function queueFrame(frame) {
  if (!queueForm) return;
  if (frame.type === "error") {
    if (frame.code === "not_queued" && queue.status === "matched") return; // the match came first
    queueNotice(frame.message);
    return;
  }
  const before = queue.status;
  queue = nextState(queue, frame, Date.now());
  if (queue.status === "matched" && before !== "matched") {
    const notice = { sfida: L.challengeAccepted, computer: L.queueComputer }[foundBy(queue)] || L.queueMatched;
    queueNotice(fmt(notice, { n: queue.table }));
    sounds.play("matched");
    document.title = `● ${document.title}`;
    // Long enough to see the notice and hear the sound; the table page says it again.
    setTimeout(() => location.assign(tableAddress(queue.url, foundBy(queue))), 600);
  } else if (queue.status === "waiting") {
    queueNotice("");
  } else if (queue.status === "idle" && queue.reason === "left") {
    queueNotice(L.queueLeft);
  } else if (queue.status === "idle" && pairEnded(queue.reason, L)) {
    queueNotice(pairEnded(queue.reason, L));
  }
  if (queue.status !== "idle") showPairInvite(null); // searching already: an invitation is moot
  drawQueue();
}

// An invitation to queue as a pair (the latest one shown): accepting queues with its sender.
let pairInvite = null;

function showPairInvite(invite) {
  pairInvite = invite;
  const box = queueNode("pair-invite");
  if (!box) return;
  box.hidden = !invite;
  if (invite) queueNode("pair-invite-text").textContent = fmt(L.pairInvite, { name: invite.from, preset: invite.preset_label });
}

function pairInviteFrame(frame) {
  if (frame.to !== me) return;
  if (frame.status === "pending") {
    showPairInvite(frame);
    sounds.play("matched");
  } else if (pairInvite && pairInvite.from === frame.from) {
    showPairInvite(null);
  }
}

/** Pairs are played only with the presets for four: the others are greyed out. */
function applyMode() {
  const mode = queueForm.elements.namedItem("mode").value;
  queueNode("queue-partner-field").hidden = mode !== "4p";
  const preset = queueForm.elements.namedItem("preset");
  let switched = false;
  for (const option of preset.options) {
    option.disabled = !allowed(option.dataset.modes, mode);
    if (option.disabled && option.selected) switched = true;
  }
  if (switched) {
    const first = [...preset.options].find((o) => !o.disabled);
    if (first) preset.value = first.value;
    queueNotice(L.queuePairsOnly);
  }
}

if (queueForm) {
  queueForm.elements.namedItem("mode").addEventListener("change", applyMode);
  applyMode();
  queueForm.addEventListener("submit", (event) => {
    event.preventDefault();
    sounds.unlock(); // a click: the one moment a browser lets a page start its audio
    queueNotice("");
    socket.send({
      type: "queue_join",
      mode: queueForm.elements.namedItem("mode").value,
      preset: queueForm.elements.namedItem("preset").value,
      computer_after: queueForm.elements.namedItem("computer_after").checked,
      partner: queueForm.elements.namedItem("mode").value === "4p" ? queueForm.elements.namedItem("partner").value.trim() : "",
    });
  });
  queueNode("queue-cancel").addEventListener("click", () => socket.send({ type: "queue_leave" }));
  queueNode("pair-accept").addEventListener("click", () => {
    if (!pairInvite) return;
    sounds.unlock();
    queueNotice("");
    socket.send({ type: "queue_join", mode: pairInvite.mode, preset: pairInvite.preset, partner: pairInvite.from });
  });
  queueNode("pair-decline").addEventListener("click", () => {
    if (!pairInvite) return;
    socket.send({ type: "pair_decline", from: pairInvite.from, ref: "pair" });
    showPairInvite(null);
  });
}

// ---------------------------------------------------------------- challenges ("Inviti")

const invitations = document.getElementById("invitations");

function challengeNotice(text) {
  const notice = document.getElementById("challenge-notice");
  if (!notice) return;
  notice.textContent = text || "";
  notice.hidden = !text;
  if (text) invitations.hidden = false;
}

function answerForm(id, kind, label, secondary) {
  const form = el("form", "inline");
  form.method = "post";
  form.action = `/sfida/${id}/${{ challenge_accept: "accetta", challenge_decline: "rifiuta", challenge_cancel: "annulla" }[kind]}/`;
  form.dataset.answer = kind;
  const token = el("input");
  token.type = "hidden";
  token.name = "csrfmiddlewaretoken";
  token.value = csrfToken();
  const button = el("button", `button small${secondary ? " secondary" : ""}`, label);
  button.type = "submit";
  form.append(token, button);
  return form;
}

/** The same markup as the lobby template's invitation rows, from a `challenge` frame. */
function invitationItem(c) {
  const incoming = c.to === me;
  const li = el("li", `table-item invitation${incoming ? "" : " sent"}`);
  li.dataset.challengeId = c.id;
  const what = el("span", "what");
  what.append(el("strong", "", fmt(incoming ? L.challengeFrom : L.challengeTo, { name: incoming ? c.from : c.to })));
  what.append(el("span", "who", `${c.preset_label} · ${incoming ? L.challengeWhat : L.challengeWaiting}`));
  const go = el("span", "go");
  if (incoming) go.append(answerForm(c.id, "challenge_accept", L.accept), answerForm(c.id, "challenge_decline", L.decline, true));
  else go.append(answerForm(c.id, "challenge_cancel", L.cancel, true));
  li.append(what, go);
  return li;
}

function challengeFrame(c) {
  if (!invitations) return;
  const list = document.getElementById("invitations-list");
  const old = list.querySelector(`[data-challenge-id="${c.id}"]`);
  if (c.status === "pending") {
    const item = invitationItem(c);
    if (old) old.replaceWith(item);
    else list.prepend(item);
    invitations.hidden = false;
    if (c.to === me) {
      challengeNotice(fmt(L.challengeNew, { name: c.from, preset: c.preset_label }));
      sounds.play("matched");
    }
    return;
  }
  if (old) old.remove();
  if (c.status === "declined" && c.from === me) challengeNotice(fmt(L.challengeDeclined, { name: c.to }));
  else if (c.status === "cancelled" && c.to === me) challengeNotice(fmt(L.challengeCancelled, { name: c.from }));
  else if (c.status === "accepted") challengeNotice(fmt(L.challengeAccepted, { n: c.table }));
  else challengeNotice("");
}

if (invitations) {
  // Live answers over the socket; the forms post as they are when it is not open.
  invitations.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-answer]");
    const item = form && form.closest("[data-challenge-id]");
    if (!live || !item) return;
    event.preventDefault();
    sounds.unlock();
    socket.send({ type: form.dataset.answer, id: Number(item.dataset.challengeId), ref: "challenge" });
  });
}

/** Without a socket, fetch the page now and then and take its list. */
async function refresh() {
  if (live || document.hidden) return;
  try {
    const response = await fetch(location.href, { cache: "no-store" });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.getElementById("open-tables");
    if (fresh) {
      document.getElementById("open-tables").replaceChildren(...fresh.children);
      document.getElementById("no-tables").hidden = fresh.children.length > 0;
    }
  } catch {
    // try again at the next tick
  }
}

socket.connect();
setInterval(refresh, 10000);

// ---------------------------------------------------------------- the new-table form

const form = document.getElementById("create-table-form");

function setField(name, value) {
  const field = form.elements.namedItem(name);
  if (!field) return;
  if (field.type === "checkbox") field.checked = Boolean(value);
  else field.value = String(value);
}

function applyPreset() {
  const preset = PRESETS[form.elements.namedItem("preset").value];
  if (!preset) return;
  for (const [name, value] of Object.entries(preset)) {
    if (name !== "two_players_only") setField(name, value);
  }
  const players = form.elements.namedItem("players");
  const four = players.querySelector("option[value='4']");
  if (four) four.disabled = Boolean(preset.two_players_only);
  const switched = Boolean(preset.two_players_only) && players.value === "4";
  if (preset.two_players_only) players.value = "2";
  document.getElementById("preset-help").dataset.twoOnly = preset.two_players_only ? "1" : "";
  // Say it when the variant changed the number of players: it must never happen silently.
  const warning = document.getElementById("players-warning");
  if (warning) {
    warning.hidden = !preset.two_players_only;
    warning.textContent = switched ? L.twoOnlySwitched : L.twoOnly;
    warning.classList.toggle("switched", switched);
  }
}

if (form) {
  form.elements.namedItem("preset").addEventListener("change", applyPreset);
  // A form sent back with errors keeps what the player chose; a fresh one starts from the preset.
  if (!form.querySelector(".error")) applyPreset();
}
