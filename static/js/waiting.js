// A table we sit at starts while we are on another page: say so, with a link to it (and a
// notification when the tab is hidden and the player allowed them). It listens to the lobby
// socket, which lists the public tables; the lobby page passes its own frames in instead.

import { el, fmt } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";

const node = document.getElementById("waiting-watch");
const waiting = new Set((node ? node.dataset.tables : "").split(",").filter(Boolean).map(Number));
const here = document.getElementById("table-page");
if (here) waiting.delete(Number(here.dataset.tableId)); // that page follows its own table

function announce(table) {
  const box = el("div", "started-banner");
  box.id = `started-${table.id}`;
  box.setAttribute("role", "alert");
  box.append(el("strong", "", fmt(node.dataset.started, { n: table.id })), " ");
  const link = el("a", "button small", node.dataset.go);
  link.href = table.url;
  box.append(link);
  document.body.append(box);
  document.title = `● ${document.title}`;
  if (document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
    try {
      new Notification(fmt(node.dataset.started, { n: table.id }));
    } catch {
      // only the banner then
    }
  }
}

/** Look at the lobby's list: a table we waited at that is now in play is announced once. */
export function checkStarted(tables) {
  for (const table of tables || []) {
    if (waiting.has(table.id) && table.status === "playing") {
      waiting.delete(table.id);
      announce(table);
    }
  }
}

if (node && waiting.size && !document.getElementById("lobby")) {
  const socket = new LiveSocket(node.dataset.wsPath, {
    onFrame(frame) {
      if (frame.type === "lobby") checkStarted(frame.tables);
      if (!waiting.size) socket.close(true);
    },
  }, { baseDelay: 2000, maxDelay: 30000, pingEvery: 0 });
  socket.connect();
}
