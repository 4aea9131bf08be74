// The lobby: the list of open tables kept live by the lobby socket (with a slow refresh as a
// fallback), and the new-table form pre-filled from the chosen preset.

import { el, fmt, readJSON } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";
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
  },
  onFrame(frame) {
    if (frame.type === "lobby" && Array.isArray(frame.tables)) {
      showTables(frame.tables);
      checkStarted(frame.tables); // a table we wait at started: say so
    }
  },
  onClose() {
    live = false;
    document.getElementById("lobby-live").hidden = true;
  },
}, { baseDelay: 1000, maxDelay: 15000, pingEvery: 0 });

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
