// A tournament's page: standings and pairings kept live over the lobby socket (`tournament_watch`,
// then a `tournament` frame whenever a table ends or a round is paired: docs/protocol.md), and
// the call to one's own table (the queue's `matched` frame) shown with a notice; the header bell's
// full-screen call (bell.js) plays the sound and takes the player there.

import { el, fmt, readJSON, setHidden, setText } from "./lib/dom.js";
import { LiveSocket } from "./lib/socket.js";

const root = document.getElementById("tournament");
const L = readJSON("tournament-labels", {});
const id = Number(root.dataset.id);

// A duplicate event (frame.duplicate): totals of the deal scores instead of match points, the
// pairings of a round in play without their points, and the per-deal table of the ended rounds.
let duplicate = false;
let scoring = "";

function standingsRow(s) {
  const tr = el("tr");
  tr.dataset.entry = s.entry;
  if (s.withdrawn) tr.className = "withdrawn";
  const name = el("td", "", s.name);
  if (s.withdrawn) name.append(" ", el("span", "muted", `(${L.withdrawn})`));
  if ((s.computer_rounds || []).length) {
    name.append(" ", el("span", "muted computer-played", `(${fmt(L.computerRounds, { n: s.computer_rounds.join(", ") })})`));
  }
  if (duplicate) {
    tr.append(el("td", "num", String(s.rank)), name, el("td", "num", s.total));
    if (scoring === "mp") tr.append(el("td", "num", s.average ?? "–"));
    tr.append(el("td", "num col-deals", String(s.deals)), el("td", "num col-rating", String(s.rating)),
      el("td", "num", String(s.played)));
    return tr;
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
    li.append(el("span", "", p.a), " ", el("span", "muted", duplicate ? L.duplicateBye : L.bye));
    return li;
  }
  li.append(el("span", "side-a", p.a), " ", el("span", "vs", L.against), " ", el("span", "side-b", p.b), " ");
  if (p.held) {
    li.append(el("span", "muted", p.finished ? L.heldDone : L.heldPlaying));
  } else if (p.finished) {
    const points = duplicate ? "" : ` · ${p.points_a}–${p.points_b} ${L.mp}`;
    li.append(el("span", "score", `${p.score_a} – ${p.score_b}${points}`));
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

function abbr([title, text]) {
  const node = el("abbr", "", text);
  node.title = title;
  return node;
}

function headCell(className, content) {
  const th = el("th", className);
  th.append(content);
  return th;
}

function dealRound(r, pairs) {
  const section = el("section", "deal-round");
  section.dataset.round = r.number;
  const table = el("table", "data compact deal-table");
  const head = el("tr");
  const names = pairs ? L.lines : L.seats;
  const score = () => abbr(L.score[scoring] || L.score.mp);
  head.append(headCell("num", abbr(L.table)), headCell("", names[0]), headCell("num", L.points),
    headCell("num", score()), headCell("", names[1]), headCell("num", score()));
  const thead = el("thead");
  thead.append(head);
  table.append(thead);
  let body = null;
  for (const d of r.rows) { // sorted by deal, then table
    if (!body || body.dataset.deal !== String(d.deal)) {
      body = el("tbody");
      body.dataset.deal = d.deal;
      const th = el("th", "", fmt(L.dealN, { n: d.deal }));
      th.colSpan = 6;
      th.scope = "rowgroup";
      const tr = el("tr", "deal-head");
      tr.append(th);
      body.append(tr);
      table.append(body);
    }
    const points = d.points_a !== null ? `${d.points_a}–${d.points_b}` : d.forfeit ? fmt(L.forfeit, { n: d.forfeit }) : L.rests;
    const tr = el("tr");
    tr.append(el("td", "num", d.table === null ? "–" : String(d.table)), el("td", "", d.a),
      el("td", "num nowrap", points), el("td", "num", d.score_a), el("td", "", d.b ?? "–"),
      el("td", "num", d.score_b ?? "–"));
    body.append(tr);
  }
  const scroll = el("div", "table-scroll");
  scroll.tabIndex = 0;
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-label", fmt(L.dealsOf, { n: r.number }));
  scroll.append(table);
  section.append(el("h3", "", fmt(L.round, { n: r.number })), scroll);
  return section;
}

function show(frame) {
  if (frame.id !== id) return;
  duplicate = Boolean(frame.duplicate);
  scoring = frame.scoring || "";
  const deals = document.getElementById("deal-results");
  if (deals && frame.deals) {
    const none = el("p", "muted", L.noDeals);
    none.id = "no-deals";
    deals.replaceChildren(...(frame.deals.length ? frame.deals.map((r) => dealRound(r, frame.pairs)) : [none]));
  }
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
