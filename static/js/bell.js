// The header's bell: invitations, rematch offers and "your turn" at another table. The page
// draws it from the database on load; the person's lobby socket (`/ws/lobby/?only=me`, or the
// lobby page's own socket, which hands its frames in through `bellFrame`) sends a `bell` frame
// whenever it changes. Opening it marks everything read (on every page of the person's).
// Other modules of the page may listen to the same socket (`subscribe`) and use it (`send`).

import { el, fmt, keyed, setHidden } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";
import { Sounds } from "./table/sound.js";

const bell = document.getElementById("bell");
const listeners = [];
const openers = [];
let socket = null;
let unread = bell ? Number(document.getElementById("bell-count").firstChild.textContent) || 0 : 0;

/** Hear every frame of the person's socket; `onOpen` runs at each (re)connection. */
export function subscribe(onFrame, onOpen) {
  if (onFrame) listeners.push(onFrame);
  if (onOpen) {
    openers.push(onOpen);
    if (socket && socket.open) onOpen();
  }
}

export function send(frame) {
  return socket ? socket.send(frame) : false;
}

function draw(frame) {
  const count = document.getElementById("bell-count");
  count.firstChild.textContent = String(frame.unread);
  setHidden(count, !frame.unread);
  const list = document.getElementById("bell-list");
  const items = frame.items || [];
  if (!items.length) {
    list.replaceChildren(el("li", "bell-empty", bell.dataset.empty));
  } else {
    keyed(list, items, (item) => item.id, (item) => {
      const li = el("li", "bell-item");
      li.append(el("a", "", ""));
      return li;
    }, (li, item) => {
      // While the panel is open, what was new when it opened stays marked (read or not by now).
      const marked = item.unread || (bell.open && li.classList.contains("unread"));
      li.className = `bell-item${marked ? " unread" : ""}`;
      li.dataset.kind = item.kind;
      const link = li.firstChild;
      link.href = item.url;
      link.textContent = item.text;
    });
  }
  if (frame.unread > unread && items.length) {
    document.getElementById("bell-status").textContent = fmt(bell.dataset.new, { text: items[0].text });
    bell.classList.remove("ring");
    void bell.offsetWidth; // restart the animation
    bell.classList.add("ring");
  }
  unread = frame.unread;
}

// ---------------------------------------------------------------- a tournament's call

// A round was paired: whatever page the person is on, a full-screen call with the table's link
// and a short countdown, then the table. Only a page of a game they are playing keeps them there
// (the call and its link stay up). The sound plays once the page has had any interaction.
const CALL_SECONDS = 1; // the call reads at a glance; the table is there within 3 s of the pairing
const sounds = new Sounds(`burraco:sound:${bell ? bell.dataset.user || "" : ""}`);
for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, () => sounds.unlock(), { once: true });
let callTimer = null;

function inMyGame() {
  const table = document.getElementById("table-page");
  return Boolean(table && table.dataset.status === "playing" && table.dataset.myPosition !== "");
}

function call(frame) {
  if (!bell || !frame.url || location.pathname === frame.url) return;
  document.getElementById("tournament-call-dialog")?.remove();
  clearInterval(callTimer);
  const words = bell.dataset;
  const dialog = el("dialog", "call-dialog");
  dialog.id = "tournament-call-dialog";
  dialog.setAttribute("aria-labelledby", "call-title");
  const title = el("h2", "", frame.round ? fmt(words.callRound, { n: frame.round }) : words.callTitle);
  title.id = "call-title";
  const what = el("p", "call-what", frame.tournament_name || "");
  const count = el("p", "call-count");
  count.id = "call-count";
  const go = el("a", "button", words.callGo);
  go.id = "call-go";
  go.href = frame.url;
  const stay = el("button", "button secondary", words.callStay);
  stay.type = "button";
  stay.id = "call-stay";
  const actions = el("p", "actions");
  actions.append(go, stay);
  dialog.append(title, what, count, actions);
  document.body.append(dialog);
  dialog.showModal();
  go.focus();
  sounds.play("matched");
  const away = inMyGame();
  let left = CALL_SECONDS;
  const tick = () => {
    count.textContent = away ? words.callBusy : fmt(words.callCount, { n: left });
    if (!away && left <= 0) {
      clearInterval(callTimer);
      location.assign(frame.url);
    }
    left -= 1;
  };
  stay.addEventListener("click", () => {
    clearInterval(callTimer);
    dialog.close();
    dialog.remove();
  });
  tick();
  if (!away) callTimer = setInterval(tick, 1000);
}

/** A frame of the person's socket (the lobby page calls this with its own). */
export function bellFrame(frame) {
  if (bell && frame.type === "bell") draw(frame);
  if (frame.type === "matched" && frame.tournament) call(frame);
  for (const fn of listeners) fn(frame);
}

function markRead() {
  if (!unread) return;
  unread = 0;
  const count = document.getElementById("bell-count");
  setHidden(count, true);
  fetch(bell.dataset.readUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRFToken": bell.dataset.csrf },
  }).catch(() => {});
}

function unmark() {
  for (const li of document.querySelectorAll("#bell-list .bell-item.unread")) li.classList.remove("unread");
}

/** Close the panel from code: unmarked at once (the details' toggle event comes a task later). */
function close() {
  bell.open = false;
  unmark();
}

if (bell) {
  bell.addEventListener("toggle", () => {
    if (bell.open) markRead();
    else unmark();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && bell.open) {
      close();
      document.getElementById("bell-button").focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (bell.open && !bell.contains(event.target)) close();
  });
  if (!document.getElementById("lobby")) {
    socket = new LiveSocket(bell.dataset.wsPath, {
      onFrame: bellFrame,
      onOpen() {
        for (const fn of openers) fn();
      },
    }, { baseDelay: 2000, maxDelay: 30000, finalCodes: [4401, 4403] });
    socket.connect();
  }
}
window.burracoBell = { sounds };
