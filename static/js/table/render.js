// Drawing the table from the state, keyed: every card, meld, seat and log line keeps its DOM
// node from one update to the next, so a focused card keeps its focus and a card being dragged
// stays under the pointer while frames arrive. Only what changed is touched.

import { cardFace, cardLabel, rankText, shortCard } from "../lib/cards.js";
import { el, fmt, keyed, setAttr, setHidden, setText } from "../lib/dom.js";
import * as S from "./state.js";

const SLOTS = ["top", "left", "right", "bottom"];

/** Set a style property only when it changed (a write of the same value still costs a style pass). */
function setStyle(node, name, value) {
  if (node.style.getPropertyValue(name) !== value) node.style.setProperty(name, value);
}

export function createRenderer(s) {
  const $ = (id) => document.getElementById(id);
  const L = s.L;
  const game = $("game");
  const baseTitle = document.title;
  const boxes = new Map(); // slot -> seat box
  // Sizes the fans need, measured by a ResizeObserver (table.js), never during a render.
  const sizes = { hand: 0, pile: 0, cw: 54, ch: 76, mw: 40, fan: 20 };

  function cardsText(n) {
    return n === 1 ? L.card1 : fmt(L.cards, { n });
  }

  // ---------------------------------------------------------------- seats

  function seatBox(slot) {
    let box = boxes.get(slot);
    if (box) return box;
    box = el("div", "seat-box");
    box.append(el("span", "dot"), el("span", "seat-box-name"), el("span", "seat-clock"),
      el("span", "seat-box-count"), el("span", "seat-pozzetto"), el("span", "covered"));
    $(`slot-${slot}`).append(box);
    boxes.set(slot, box);
    return box;
  }

  function renderSeats(v) {
    const places = S.seatPlaces(s.players, s.seat);
    const live = s.view;
    for (const slot of SLOTS) {
      const holder = $(`slot-${slot}`);
      if (!holder) continue;
      const pos = places[slot];
      setHidden(holder, pos === undefined);
      if (pos === undefined) continue;
      const box = seatBox(slot);
      box.dataset.position = pos;
      const toMove = S.inPlay(s, v) && v.to_move === pos;
      box.classList.toggle("mine", pos === s.seat); // not "me": that is the hand's section (#me), laid out apart
      box.classList.toggle("to-move", toMove);
      box.classList.toggle("partner-side", s.seat !== null && pos % 2 === S.mySide(s));
      const presence = s.presence.get(pos);
      const info = s.seats.get(pos) || {};
      const dot = box.querySelector(".dot");
      const online = presence ? presence.online : null;
      dot.classList.toggle("online", online === true);
      dot.classList.toggle("offline", online === false);
      setAttr(dot, "title", online === null || info.computer ? null : online ? L.online : L.offline);
      const name = box.querySelector(".seat-box-name");
      const partner = s.players === 4 && s.seat !== null && pos !== s.seat && pos % 2 === s.seat % 2;
      const nameText = S.seatName(s, pos) + (partner ? ` ${L.partner}` : "");
      if (name.dataset.text !== nameText) {
        name.dataset.text = nameText;
        // The name may give way to an ellipsis on a small screen: the whole of it stays in the
        // text (read out) and the title; our own "(tu)" is apart, so it never gives way.
        name.title = nameText;
        name.replaceChildren(el("span", "seat-who", S.plainName(s, pos)));
        if (pos === s.seat) name.append(" ", el("span", "you-tag", `(${L.you || "tu"})`));
        if (partner) name.append(" ", el("small", "partner-tag", L.partner));
      }
      const count = box.querySelector(".seat-box-count");
      const held = (v.hand_counts || [])[pos] ?? 0;
      setText(count, cardsText(held));
      setAttr(count, "data-n", held); // a phone on its side draws the number beside a small card
      // Whether this seat's side has taken its pozzetto (it matters for closing).
      const pozzetto = box.querySelector(".seat-pozzetto");
      const taken = (v.pozzetti || [])[pos % 2] === "taken";
      setHidden(pozzetto, !taken);
      setText(pozzetto, taken ? L.seatPozzetto : "");
      setAttr(pozzetto, "title", taken ? L.seatPozzetto : null); // where it is drawn as "P ✓"
      setHidden(box.querySelector(".seat-clock"), !(toMove && live === v));
      const covered = box.querySelector(".covered");
      const isCovered = Boolean(presence && presence.covered_by_computer);
      setHidden(covered, !isCovered);
      setText(covered, isCovered ? fmt(L.computerPlaysFor, { name: S.seatName(s, pos) }) : "");
    }
  }

  // ---------------------------------------------------------------- stock and pile

  function renderPiles(v, live) {
    setText($("stock-count"), String(v.stock_count ?? 0));
    const stock = $("stock");
    stock.classList.toggle("empty", !v.stock_count);
    const canDraw = live && S.allowed(s, "draw");
    setAttr(stock, "data-drag", canDraw ? "stock" : "");
    stock.classList.toggle("can-drag", canDraw);
    setAttr(stock, "aria-label", `${L.stock}: ${cardsText(v.stock_count ?? 0)}`);
    const pile = $("discard");
    const discard = v.discard || [];
    setText($("discard-count"), discard.length ? `(${discard.length})` : "");
    keyed(pile, discard.map((card, i) => ({ card, i })), (d) => `${d.i}:${d.card}`,
      (d) => cardFace(d.card, { labels: L }),
      (node, d) => node.classList.toggle("top", d.i === discard.length - 1));
    // Fanned: each card shows its corner while there is room, then the fan closes up; the
    // top card is always whole, and the count says how many there are.
    if (sizes.pile) {
      const fan = S.fanLayout(discard.length, sizes.pile, sizes.mw, { maxStep: sizes.fan + 4, minStep: 0, maxRows: 1 });
      setStyle(pile, "--pile-step", `${fan.step}px`);
    }
    const canTake = live && S.allowed(s, "take_discards");
    setAttr(pile, "data-drag", canTake ? "discard" : "");
    pile.classList.toggle("can-drag", canTake);
    setText($("last-move"), s.lastMove || "");
  }

  // ---------------------------------------------------------------- melds

  function burracoLabel(kind) {
    if (kind === "pulito") return L.burracoClean;
    if (kind === "semipulito") return L.burracoSemi;
    if (kind === "nobile") return L.burracoNobile; // Burraco Reale's two clean ones
    if (kind === "reale") return L.burracoReale;
    return kind ? L.burracoDirty : "";
  }

  /** {wild, card} as shown ("2♥", "4♣"; a set's rank alone), from the engine's `stands_for`
   * ({rank, suit}); null for a clean meld. */
  function wildReading(m) {
    const place = m.stands_for;
    if (m.wild === null || m.wild === undefined || !place || !place.rank) return null;
    const card = place.suit ? shortCard(`${place.rank}${place.suit}`) : rankText(place.rank);
    return { wild: shortCard(m.cards[m.wild]), card };
  }

  function drawMelds(box, melds, ours) {
    const items = melds.length ? melds : [{ empty: true, id: "none" }];
    keyed(box, items, (m) => (m.empty ? "empty" : `${ours ? "b" : "d"}${m.id}`), (m) => {
      if (m.empty) return el("p", "empty-note", L.noMelds);
      const node = el(ours ? "button" : "div", "meld");
      if (ours) {
        node.type = "button";
        node.dataset.drop = "meld";
        node.title = L.layOffHere;
        // The button's name is what it shows (its cards), after what it does.
        node.append(el("span", "visually-hidden", `${L.layOffHere}: `));
      }
      node.dataset.meldId = m.id;
      // The head: how many cards, what the wild stands for (the engine's reading), the burraco.
      const head = el("span", "meld-head");
      head.append(el("span", "meld-count"), el("span", "meld-wild"), el("span", "meld-tag"));
      node.append(head, el("span", "meld-cards"));
      return node;
    }, (node, m) => {
      if (m.empty) return;
      const sig = `${m.cards.join(" ")}|${m.wild}|${m.burraco}`; // stands_for follows from these
      node.classList.toggle("chosen", ours && s.chosenMeld === m.id);
      if (node.dataset.sig === sig) return;
      node.dataset.sig = sig;
      node.classList.toggle("burraco", Boolean(m.burraco));
      const clean = ["pulito", "nobile", "reale"].includes(m.burraco); // nobile and reale look clean
      for (const k of ["pulito", "semipulito", "sporco"]) {
        node.classList.toggle(`burraco-${k}`, m.burraco === k || (k === "pulito" && clean));
      }
      const tag = node.querySelector(".meld-tag");
      setHidden(tag, !m.burraco);
      setText(tag, burracoLabel(m.burraco));
      const count = node.querySelector(".meld-count");
      setText(count, String(m.cards.length));
      setAttr(count, "title", cardsText(m.cards.length));
      const reading = wildReading(m);
      const wild = node.querySelector(".meld-wild");
      setHidden(wild, !reading);
      setText(wild, reading ? fmt(L.standsFor, reading) : "");
      const row = node.querySelector(".meld-cards");
      row.replaceChildren(...m.cards.map((card, i) => cardFace(card, { labels: L, wild: m.wild === i })));
      if (!ours) {
        setAttr(node, "role", "group");
        const parts = m.cards.map((card, i) => cardLabel(card, L) + (m.wild === i ? ` (${L.asWild})` : ""));
        parts.push(cardsText(m.cards.length));
        if (reading) parts.push(fmt(L.standsForLabel, reading));
        if (m.burraco) parts.push(burracoLabel(m.burraco));
        setAttr(node, "aria-label", parts.join(", "));
      }
    });
  }

  function renderMelds(v) {
    const melds = v.melds || [[], []];
    const spectator = s.seat === null;
    const usSide = spectator ? 0 : S.mySide(s);
    if (spectator) {
      setText($("melds-us-title"), fmt(L.meldsOf, { name: S.sideName(s, 0) }));
      setText($("melds-them-title"), fmt(L.meldsOf, { name: S.sideName(s, 1) }));
    } else {
      setText($("melds-us-title"), s.players === 4 ? L.ourMelds : L.yourMelds);
      setText($("melds-them-title"), s.players === 4 ? L.theirMelds
        : fmt(L.meldsOf, { name: S.seatName(s, (s.seat + 1) % 2) }));
    }
    drawMelds($("melds-us"), melds[usSide] || [], !spectator && v === s.view);
    drawMelds($("melds-them"), melds[1 - usSide] || [], false);
  }

  // ---------------------------------------------------------------- our hand

  function renderHand(v, live) {
    const me = $("me");
    me.classList.toggle("spectator", s.seat === null);
    if (s.seat === null) return;
    const items = S.shownHand(s);
    const picked = live && S.isMyTurn(s) ? v.picked_single_card : null;
    let pickedKey = null;
    if (picked) {
      const fresh = items.find((i) => i.card === picked && s.fresh.has(i.key));
      pickedKey = (fresh || items.find((i) => i.card === picked) || {}).key ?? null;
    }
    const handBox = $("hand");
    // The fan is the hand's grid (table.css): its columns are the fan's step, so the cards place
    // themselves, in rows when one would hide a corner. Only the hand's own three properties change
    // as it grows (they are not inherited): no card is restyled because another came or went.
    const handWidth = sizes.hand || 320;
    const widest = sizes.cw + 6;
    const fan = S.fanLayout(items.length, handWidth, sizes.cw, { maxStep: widest, minStep: sizes.fan });
    // A hand in one row at the widest step keeps every column it has room for (the empty ones
    // after the last card show nothing): a card coming or going then leaves the hand's style as it
    // is, where a new inline value would have Chromium compute #hand's style in full each time.
    const roomy = fan.rows === 1 && fan.step === widest;
    const cols = roomy ? Math.max(fan.perRow, Math.floor((handWidth - sizes.cw) / widest) + 1) : fan.perRow;
    setStyle(handBox, "--hand-rows", String(Math.max(1, fan.rows)));
    setStyle(handBox, "--hand-cols", String(Math.max(1, cols)));
    setStyle(handBox, "--hand-step", `${fan.step}px`);
    keyed(handBox, items, (i) => (live ? i.key : `held-${i.key}`), (i) => {
      const face = cardFace(i.card, { tag: "button", labels: L });
      face.type = "button";
      return face;
    }, (face, i) => {
      // Only what changed is written: an attribute set to the same value still costs a style pass.
      const selected = live && s.selected.has(i.key);
      const isPicked = i.key === pickedKey;
      const sig = `${live}|${selected}|${live && s.fresh.has(i.key)}|${isPicked}`;
      if (face.dataset.sig === sig) return;
      face.dataset.sig = sig;
      face.dataset.drag = live ? "hand" : "";
      face.disabled = !live;
      face.classList.toggle("selected", selected);
      setAttr(face, "aria-pressed", selected ? "true" : "false");
      face.classList.toggle("fresh", live && s.fresh.has(i.key));
      face.classList.toggle("picked", isPicked);
      const label = cardLabel(i.card, L) + (isPicked ? ` — ${L.pickedCard}` : "");
      setAttr(face, "aria-label", label);
      setAttr(face, "title", label);
    });
    setHidden($("picked-note"), !pickedKey);
    const hint = $("turn-hint");
    let text;
    if (!live) text = L.handOver;
    else if (s.finished) text = L.matchOver;
    else if (v.hand_over) text = L.handOver;
    else if (!S.isMyTurn(s)) text = L.waitPhase;
    else text = v.phase === "draw" ? L.drawPhase : L.playPhase;
    setText(hint, text);
    const covered = s.presence.get(s.seat);
    setHidden($("back-wrap"), !(covered && covered.covered_by_computer) || s.finished);
    const abandon = $("abandon-panel");
    if (abandon) setHidden(abandon, s.finished || s.status !== "playing");
  }

  function renderButtons(live) {
    const set = (id, on) => {
      const b = $(id);
      if (b && b.disabled !== (!live || !on)) b.disabled = !live || !on;
    };
    const chosen = s.selected.size;
    set("btn-draw", S.allowed(s, "draw"));
    set("btn-take", S.allowed(s, "take_discards"));
    set("btn-meld", S.allowed(s, "meld") && chosen > 0);
    set("btn-discard", S.allowed(s, "discard") && chosen === 1);
    const layoff = $("btn-layoff");
    setHidden(layoff, s.chosenMeld === null);
    set("btn-layoff", S.allowed(s, "lay_off") && chosen > 0 && s.chosenMeld !== null);
    for (const mode of ["suit", "rank"]) {
      const b = $(`btn-sort-${mode}`);
      if (b.disabled !== (!live || s.hand.length < 2)) b.disabled = !live || s.hand.length < 2;
      setAttr(b, "aria-pressed", !s.custom && s.sortMode === mode ? "true" : "false");
    }
  }

  // ---------------------------------------------------------------- the side panels

  function pozzettoText(status) {
    if (status === "taken") return L.pozzettoTaken;
    if (status === "became_stock") return L.pozzettoStock;
    return L.pozzettoTodo;
  }

  function renderSide(v) {
    const label = $("turn-label");
    setText(label, S.turnText(s));
    label.classList.toggle("mine", S.isMyTurn(s));
    const live = s.view;
    const target = live.ruleset && live.ruleset.target ? ` · ${fmt(L.target, { n: live.ruleset.target })}` : "";
    setText($("hand-number"), typeof live.hand_number === "number" ? `${fmt(L.hand, { n: live.hand_number + 1 })}${target}` : "");
    const hash = typeof live.commitment === "string" ? live.commitment : ""; // the deal's SHA-256 (docs/fairness.md)
    setHidden($("deal-hash"), !hash);
    setText($("deal-hash-value"), hash ? `${hash.slice(0, 16)}…` : "");
    setAttr($("deal-hash-value"), "title", hash || null);
    const totals = s.totals || live.totals || [0, 0];
    const order = S.sideOrder(s);
    keyed($("totals"), order, (side) => side, () => {
      const tr = el("tr");
      tr.append(el("th"), el("td", "num"));
      return tr;
    }, (tr, side) => {
      tr.classList.toggle("mine", s.seat !== null && side === S.mySide(s));
      setText(tr.firstChild, S.sideName(s, side));
      setText(tr.lastChild, String(totals[side] ?? 0));
    });
    const pozzetti = v.pozzetti || [];
    keyed($("pozzetti"), order.filter((side) => side < pozzetti.length).map((side) => ({ status: pozzetti[side], side })), (p) => p.side, () => {
      const li = el("li", "pozzetto");
      li.append(el("span"), el("strong"));
      return li;
    }, (li, p) => {
      li.className = `pozzetto pozzetto-${p.status}`;
      setText(li.firstChild, `${S.sideName(s, p.side)}: `);
      setText(li.lastChild, pozzettoText(p.status));
    });
  }

  /** The drawer's bar: which pane is open, and a badge on a closed one that got something new. */
  function renderPanes() {
    const open = s.pane || "";
    if (game.dataset.pane !== open) game.dataset.pane = open;
    document.body.classList.toggle("side-open", Boolean(open));
    for (const tab of document.querySelectorAll(".side-tab")) {
      const pane = tab.dataset.pane;
      setAttr(tab, "aria-expanded", pane === open ? "true" : "false");
      const badge = tab.querySelector(".badge");
      if (!badge) continue;
      const n = S.unread(s, pane);
      setHidden(badge, !n);
      setText(badge, n ? String(n) : "");
    }
  }

  // The log follows its newest line unless the reader scrolled up; the scroll waits for the
  // next frame, so drawing an event never forces a layout.
  let logPinned = true;
  const logBox = $("move-log");
  if (logBox) {
    logBox.addEventListener("scroll", () => {
      logPinned = logBox.scrollTop + logBox.clientHeight >= logBox.scrollHeight - 4;
    }, { passive: true });
  }
  let logScroll = 0;
  const drawnLines = new WeakMap(); // li -> the line, its number and our seat when it was drawn

  function newLogLine() {
    const li = el("li");
    li.append(el("span", "move-n"), document.createTextNode(""));
    return li;
  }

  function renderLog() {
    const log = logBox;
    if (!log) return;
    const before = log.childElementCount;
    const shown = S.shownLog(s);
    const lines = shown.length ? shown : [{ version: "none", text: L.noMoves, empty: true }];
    let n = 0;
    keyed(log, lines, (line) => line.version, newLogLine, (li, line) => {
      n += 1;
      // A line already drawn as it stands is left alone: an event costs one line, not the log.
      const was = drawnLines.get(li);
      if (was && was.line === line && was.n === n && was.seat === s.seat) return;
      drawnLines.set(li, { line, n, seat: s.seat });
      // The number is its own span, wide enough for "143.", not cut by the list's margin. Not
      // `li::before { content: attr(data-n) }`: a style reading an attribute is never shared
      // through Chromium's matched-properties cache, so every new line's style was computed in full.
      const [num, text] = li.childNodes;
      setText(num, line.empty ? "" : `${n}.`);
      if (text.data !== line.text) text.data = line.text;
      li.classList.toggle("empty-note", Boolean(line.empty));
      li.classList.toggle("mine", line.seat === s.seat);
      li.classList.toggle("by-server", line.actor === "timeout" || line.actor === "computer");
    });
    if (logPinned && log.childElementCount !== before && !logScroll) {
      logScroll = requestAnimationFrame(() => {
        logScroll = 0;
        // The newest line whole at the bottom; one taller than the box is shown from its start.
        const last = log.lastElementChild;
        const bottom = log.scrollHeight - log.clientHeight;
        const start = last ? last.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop : bottom;
        log.scrollTop = Math.min(bottom, start);
      });
    }
  }

  // ---------------------------------------------------------------- notices, clocks, title

  // A notice is read out once, when it appears (its countdown changes every second: the box
  // itself is not a live region).
  const announced = new Set();

  function renderNotices(now) {
    const box = $("notices");
    if (!box) return;
    const list = S.notices(s, now);
    for (const n of list) {
      if (!announced.has(n.id)) {
        announced.add(n.id);
        setText($("announcer"), n.text);
      }
    }
    for (const id of [...announced]) if (!list.some((n) => n.id === id)) announced.delete(id);
    keyed(box, list, (n) => n.id, (n) => {
      const item = el("div", `notice notice-${n.kind}`);
      item.append(el("span", "notice-text"));
      if (n.dismissible) {
        const close = el("button", "notice-close", "×");
        close.type = "button";
        close.dataset.notice = n.id;
        setAttr(close, "aria-label", L.close);
        item.append(close);
      }
      return item;
    }, (item, n) => setText(item.querySelector(".notice-text"), n.text));
  }

  function tick(now = Date.now()) {
    const left = S.secondsLeft(s, now);
    const text = S.clockText(left);
    const urgent = left !== null && left <= 10;
    for (const node of [$("turn-clock"), $("score-clock"), ...document.querySelectorAll(".seat-clock")]) {
      if (!node) continue;
      setText(node, text);
      node.classList.toggle("urgent", urgent);
    }
    renderNotices(now);
    const review = $("review-continue");
    if (review && s.reviewing) setText(review, `${nextHandText()} ${text}`.trim());
    const title = S.titleFor(s, baseTitle);
    if (document.title !== title) document.title = title;
    return left;
  }

  function nextHandText() {
    const v = s.view;
    if (!v || s.finished || v.hand_over) return L.backToTable;
    return fmt(L.goToHand, { n: (v.hand_number ?? 0) + 1 });
  }

  // ---------------------------------------------------------------- scoring

  function scoreRow(label, values, className = "") {
    const tr = el("tr", className);
    tr.append(el("th", "", label));
    for (const value of values) tr.append(el("td", "num", String(value)));
    return tr;
  }

  function emptyScoreTable() {
    const table = $("score-table");
    table.replaceChildren();
    const head = el("tr");
    head.append(el("th"));
    for (const side of S.sideOrder(s)) head.append(el("th", "num", S.sideName(s, side)));
    const thead = el("thead");
    thead.append(head);
    return { table, thead, body: el("tbody") };
  }

  function winnerText(side) {
    if (side === null || side === undefined) return L.draw;
    if (s.seat !== null && side === s.seat % 2) return s.players === 4 ? L.weWon : L.youWon;
    if (s.players === 4) {
      return fmt(L.winner, { name: [side, side + 2].map((p) => S.plainName(s, p)).join(" & ") });
    }
    return fmt(L.winner, { name: S.plainName(s, side) });
  }

  function openDialog(dialog) {
    if (dialog.open) return;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }

  /** The scoring of the hand just over; the next hand's clock runs in it, so it is never missed. */
  function showScore(frame) {
    const dialog = $("score-dialog");
    const score = frame.score || [];
    const number = typeof frame.hand_number === "number" ? frame.hand_number : null;
    setText($("score-title"), number === null ? L.handOver : fmt(L.handOverTitle, { n: number }));
    const { table, thead, body } = emptyScoreTable();
    const rows = [["melds", L.scoreRows.melded], ["burraco", L.scoreRows.burraco], ["closing", L.scoreRows.closing],
      ["hand", L.scoreRows.in_hand], ["pozzetto", L.scoreRows.pozzetto]];
    const order = S.sideOrder(s).filter((side) => side < score.length);
    const bySide = (values) => S.sideOrder(s).filter((side) => side < values.length).map((side) => values[side]);
    for (const [key, label] of rows) body.append(scoreRow(label, order.map((side) => score[side][key] ?? 0)));
    body.append(scoreRow(L.scoreRows.total, order.map((side) => score[side].total ?? 0), "total"));
    if (frame.totals) body.append(scoreRow(L.scoreRows.match, bySide(frame.totals), "match"));
    table.append(thead, body);
    const result = $("score-result");
    if (frame.match_over) {
      result.dataset.winner = frame.winner_side ?? "";
      setText(result, `${L.matchOver} ${winnerText(frame.winner_side)}`);
    } else {
      setText(result, L.nextHand);
    }
    setHidden($("score-lobby"), !frame.match_over);
    setHidden($("score-review"), false);
    renderComputerFor(frame.computer_for);
    updateScoreNext();
    openDialog(dialog);
  }

  /** Who never sat down, as the match's last frames name them (the page drew it if it opened later). */
  function renderComputerFor(names) {
    const text = S.computerForText(s, names);
    const line = $("score-computer");
    if (text === null || !line) return;
    setText(line, text);
    setHidden(line, !text);
  }

  /** The line under the scoring: whose turn it is in the next hand, with its clock. */
  function updateScoreNext() {
    const next = $("score-next");
    if (!next) return;
    const v = s.view;
    const fresh = v && !v.hand_over && !s.finished && s.handOver && v.hand_number + 1 > s.handOver.hand_number;
    setHidden(next, !fresh);
    const result = $("score-result");
    if (s.handOver && !s.handOver.match_over && !s.finished) setText(result, fresh ? "" : L.nextHand);
    const close = $("score-close");
    if (fresh) {
      const who = S.isMyTurn(s) ? L.nextHandYou : fmt(L.nextHandOther, { name: S.seatName(s, v.to_move) });
      setText($("score-next-text"), fmt(who, { n: v.hand_number + 1 }));
      setText(close, fmt(L.goToHand, { n: v.hand_number + 1 }));
    } else {
      setText(close, L.continue);
    }
    next.classList.toggle("mine", Boolean(fresh && S.isMyTurn(s)));
  }

  function showAbandoned(info) {
    s.abandonShown = true;
    const seat = typeof info.abandoned_seat === "number" ? info.abandoned_seat : null;
    const who = seat !== null && seat === s.seat
      ? L.youAbandoned
      : fmt(L.abandonedBy, { name: info.abandoned_by || (seat !== null ? S.seatName(s, seat) : "?") });
    s.lastMove = who;
    setText($("last-move"), who);
    setText($("score-title"), L.abandonedTitle);
    const { table, thead, body } = emptyScoreTable();
    const totals = info.totals || s.totals || [0, 0];
    body.append(scoreRow(L.scoreRows.match, S.sideOrder(s).map((side) => totals[side] ?? 0), "match"));
    table.append(thead, body);
    const result = $("score-result");
    result.dataset.winner = info.winner_side ?? "";
    setText(result, `${who} ${winnerText(info.winner_side)}`);
    setHidden($("score-lobby"), false);
    setHidden($("score-review"), true);
    setHidden($("score-next"), true);
    renderComputerFor(info.computer_for);
    setText($("score-close"), L.continue);
    const confirm = $("abandon-dialog");
    if (confirm && confirm.open) confirm.close();
    s.handOver = s.handOver || { match_over: true };
    s.scoreOpen = true;
    openDialog($("score-dialog"));
  }

  // ---------------------------------------------------------------- the whole table

  function render(now = Date.now()) {
    if (!game || !s.view) return;
    const v = S.shownView(s);
    const live = v === s.view;
    if (game.dataset.loading) game.dataset.loading = "";
    game.classList.toggle("my-turn", S.isMyTurn(s));
    game.classList.toggle("busy", Boolean(s.pending));
    game.classList.toggle("spectator", s.seat === null);
    game.classList.toggle("reviewing", !live);
    renderSeats(v);
    renderPiles(v, live);
    renderMelds(v);
    renderHand(v, live);
    renderButtons(live);
    renderSide(v);
    renderLog();
    renderPanes();
    const banner = $("review-banner");
    setHidden(banner, !s.reviewing);
    if (s.reviewing && s.handOver) setText($("review-text"), fmt(L.reviewing, { n: s.handOver.hand_number ?? "" }));
    updateScoreNext();
    tick(now);
  }

  /** New sizes from the ResizeObserver: the fans are drawn again. */
  function resized(next) {
    Object.assign(sizes, next);
    if (s.view) render();
  }

  return { render, tick, showScore, showAbandoned, updateScoreNext, resized, sizes };
}
