// The header's bell: invitations, rematch offers and "your turn" at another table. The page
// draws it from the database on load; the person's lobby socket (`/ws/lobby/?only=me`, or the
// lobby page's own socket, which hands its frames in through `bellFrame`) sends a `bell` frame
// whenever it changes. Opening it marks everything read (on every page of the person's).
// Other modules of the page may listen to the same socket (`subscribe`) and use it (`send`).

import { el, fmt, keyed, setHidden } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";

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

/** A frame of the person's socket (the lobby page calls this with its own). */
export function bellFrame(frame) {
  if (bell && frame.type === "bell") draw(frame);
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
