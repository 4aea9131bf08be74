// A tournament's page: standings and pairings kept live over the lobby socket (`tournament_watch`,
// then a `tournament` frame whenever a table ends or a round is paired: docs/protocol.md), and
// the call to one's own table (the queue's `matched` frame) shown with a notice; the header bell's
// full-screen call (bell.js) plays the sound and takes the player there.

import { el, fmt, readJSON, setHidden, setText } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";

const root = document.getElementById("tournament");
const L = readJSON("tournament-labels", {});
const id = Number(root.dataset.id);

function standingsRow(s) {
  const tr = el("tr");
  tr.dataset.entry = s.entry;
  if (s.withdrawn) tr.className = "withdrawn";
  const name = el("td", "", s.name);
  if (s.withdrawn) name.append(" ", el("span", "muted", `(${L.withdrawn})`));
  if ((s.computer_rounds || []).length) {
    name.append(" ", el("span", "muted computer-played", `(${fmt(L.computerRounds, { n: s.computer_rounds.join(", ") })})`));
  }
  const played = s.byes ? `${s.played}+${s.byes}` : String(s.played);
  tr.append(el("td", "num", String(s.rank)), name, el("td", "num", String(s.match_points)),
    el("td", "num", String(s.buchholz)), el("td", "num", String(s.difference)),
    el("td", "num col-rating", String(s.rating)), el("td", "num", played));
  return tr;
}

function pairingItem(p) {
  const li = el("li", p.finished ? "pairing done" : "pairing");
  if (p.bye) {
    li.append(el("span", "", p.a), " ", el("span", "muted", L.bye));
    return li;
  }
  li.append(el("span", "side-a", p.a), " ", el("span", "vs", L.against), " ", el("span", "side-b", p.b), " ");
  if (p.finished) {
    li.append(el("span", "score", `${p.score_a} – ${p.score_b} · ${p.points_a}–${p.points_b} ${L.mp}`));
    if (p.forfeit) li.append(" ", el("span", "muted", `(${fmt(L.forfeit, { n: p.forfeit })})`));
    if ((p.computer_for || []).length) {
      li.append(" ", el("span", "muted computer-played", `(${fmt(L.computerFor, { names: p.computer_for.join(", ") })})`));
    }
  } else if (p.url) {
    const a = el("a", "small-link", L.watch);
    a.href = p.url;
    li.append(a);
  }
  return li;
}

function roundSection(r) {
  const section = el("section", "round");
  section.dataset.round = r.number;
  const h = el("h3", "", fmt(L.round, { n: r.number }));
  if (!r.finished) h.append(" ", el("span", "status-tag", L.inPlay));
  const ul = el("ul", "pairings");
  ul.append(...r.tables.map(pairingItem));
  section.append(h, ul);
  return section;
}

function show(frame) {
  if (frame.id !== id) return;
  root.dataset.status = frame.status;
  setText(document.getElementById("tournament-status"), L.status[frame.status] || frame.status);
  setText(document.getElementById("tournament-entrants"), fmt(L.entrants, { n: frame.entrants, c: frame.capacity }));
  setText(document.getElementById("standings-title"), frame.status === "finished" ? L.finalTable : L.standings);
  const body = document.querySelector("#standings tbody");
  if (frame.standings.length) body.replaceChildren(...frame.standings.map(standingsRow));
  const rounds = document.getElementById("rounds");
  if (frame.rounds_played.length) rounds.replaceChildren(...frame.rounds_played.map(roundSection));
  if (frame.status !== "registering") setHidden(document.getElementById("tournament-actions"), true);
  // The call to one's table stands until that table's result is in.
  const link = document.getElementById("tournament-call-link");
  const table = Number((link.getAttribute("href") || "").split("/").filter(Boolean).pop());
  const over = frame.rounds_played.some((r) => r.tables.some((p) => p.table === table && p.finished));
  if (over || frame.status === "finished") setHidden(document.getElementById("tournament-call"), true);
}

function called(frame) {
  const link = document.getElementById("tournament-call-link");
  link.href = frame.url;
  setText(document.getElementById("tournament-call-text"), L.called);
  setHidden(document.getElementById("tournament-call"), false); // the bell's call plays the sound
}

const socket = new LiveSocket(root.dataset.wsPath, {
  onOpen() {
    socket.send({ type: "tournament_watch", id });
    setHidden(document.getElementById("tournament-live"), false);
  },
  onFrame(frame) {
    if (frame.type === "tournament") show(frame);
    else if (frame.type === "matched" && frame.tournament) called(frame);
  },
  onClose() {
    setHidden(document.getElementById("tournament-live"), true);
  },
}, { baseDelay: 1000, maxDelay: 15000, pingEvery: 25000 });
socket.connect();
