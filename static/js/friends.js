// The "Amici" page: the list drawn on load, kept live over the person's lobby socket (the
// bell's, static/js/bell.js): it asks for a `friends` frame when the socket opens, when the
// server says something changed for a friend (`friends_changed`: online, offline, seated, a
// game started or ended; a burst of them makes one request), and every REFRESH_MS (a friend
// standing up from a waiting table is not pushed).

import { el, fmt, keyed, readJSON } from "./lib/dom.js";
import { send, subscribe } from "./bell.js";

const REFRESH_MS = 10000;
const texts = readJSON("friends-texts", {});
const list = document.getElementById("friend-list");

function tableText(t) {
  if (t.private) return texts.private;
  if (t.status === "playing") return fmt(texts.playing, { n: t.id });
  return fmt(t.free_seats === 1 ? texts.waiting_one : texts.waiting, { n: t.id, free: t.free_seats });
}

function draw(friends) {
  if (!friends.length) {
    list.replaceChildren(el("li", "friend-empty", texts.empty));
    return;
  }
  keyed(list, friends, (f) => f.username, () => el("li", "friend"), (li, f) => {
    li.className = `friend${f.online ? " online" : ""}`;
    const name = el("span", "friend-name");
    const dot = el("span", "dot");
    dot.setAttribute("aria-hidden", "true");
    const link = el("a", "", f.username);
    link.href = f.url;
    name.append(dot, link);
    const tables = el("span", "friend-tables");
    for (const t of f.tables) {
      const row = el("span", "friend-table", `${tableText(t)} `);
      row.dataset.tableId = t.id;
      if (t.action) {
        const go = el("a", `button small${t.action === "watch" ? " secondary" : ""}`, texts[t.action]);
        go.href = t.url;
        row.append(go);
      }
      tables.append(row);
    }
    li.replaceChildren(name, el("span", "friend-state", f.online ? texts.online : texts.offline), tables);
  });
}

const ask = () => send({ type: "friends" });
let pending = null;

subscribe((frame) => {
  if (frame.type === "friends" && Array.isArray(frame.friends)) draw(frame.friends);
  else if (frame.type === "friends_changed" && !pending) {
    pending = setTimeout(() => {
      pending = null;
      ask();
    }, 250);
  }
}, ask);
setInterval(ask, REFRESH_MS);
