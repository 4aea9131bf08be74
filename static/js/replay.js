// The replay page (an ES module): steps through frames the server rebuilt with the engine (deal + moves).
// All hands are face up: only finished games are replayed. First/previous/next/last, a slider,
// the arrow keys and the move list all move the same cursor.

import { cardFace, sortCards } from "./lib/cards.js";

(function () {
  const root = document.getElementById("replay");
  const dataNode = document.getElementById("replay-data");
  if (!root || !dataNode) return;
  const data = JSON.parse(dataNode.textContent);
  const L = JSON.parse(document.getElementById("replay-labels").textContent);
  const frames = data.frames || [];
  if (!frames.length) return;

  const $ = (id) => document.getElementById(id);
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

  // The same card face as the live table (static/js/lib/cards.js, styled by table.css .pcard);
  // the card acting as a wild in a meld is marked the same way too.
  function cardsRow(cards, wildIndex) {
    const row = document.createElement("span");
    row.className = "cards-row";
    cards.forEach((c, i) => row.appendChild(cardFace(c, { labels: L, wild: i === wildIndex })));
    return row;
  }
  // Hands sorted as at the live table: by suit, aces high, 2s and jokers last.
  const sorted = (cards) => sortCards(cards, "suit");
  function sideName(side) {
    return data.players === 4 ? L["pairs" + side] : L["side" + side];
  }

  // Seats: side 1 at the top, side 0 at the bottom (partners together in pairs).
  const seatBoxes = new Map();
  for (const seat of data.seats) {
    const box = document.createElement("div");
    box.className = `r-seat side-${seat.side}`;
    box.dataset.position = seat.position;
    const head = document.createElement("div");
    head.className = "r-seat-head";
    head.innerHTML = `<span class="side-tag side-${seat.side}"></span> <strong></strong> <small class="r-count"></small>`;
    head.querySelector(".side-tag").textContent = sideName(seat.side);
    head.querySelector("strong").textContent = seat.name;
    const hand = document.createElement("div");
    hand.className = "r-hand";
    box.append(head, hand);
    $(seat.side === 1 ? "r-seats-top" : "r-seats-bottom").appendChild(box);
    seatBoxes.set(seat.position, box);
  }

  // esperto's marks (Analisi della partita), by the frame of the move they concern.
  const notesAt = new Map();
  for (const note of data.notes || []) {
    if (!notesAt.has(note.step)) notesAt.set(note.step, []);
    notesAt.get(note.step).push(note);
  }
  const seatName = new Map(data.seats.map((s) => [s.position, s.name]));

  // The move list, built once; a marked move carries a sign and its note as a tooltip.
  const list = $("r-list");
  frames.forEach((frame, i) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "linklike";
    button.textContent = frame.text;
    button.addEventListener("click", () => show(i));
    li.appendChild(button);
    if (notesAt.has(i)) {
      li.classList.add("noted");
      const mark = document.createElement("span");
      mark.className = "r-note-mark";
      mark.textContent = "!";
      mark.title = notesAt.get(i).map((n) => n.text).join(" ");
      mark.setAttribute("aria-label", L.note_marker);
      li.appendChild(mark);
    }
    list.appendChild(li);
  });

  const slider = $("r-slider");
  slider.max = String(frames.length - 1);
  let current = 0;

  function renderMelds(side, melds) {
    const box = $("r-melds-" + side);
    box.innerHTML = "";
    const title = document.createElement("h3");
    title.textContent = sideName(side);
    box.appendChild(title);
    const wrap = document.createElement("div");
    wrap.className = "r-meld-list";
    if (!melds.length) {
      const p = document.createElement("p");
      p.className = "empty-note";
      p.textContent = L.no_melds;
      wrap.appendChild(p);
    }
    for (const meld of melds) {
      const m = document.createElement("div");
      m.className = "r-meld" + (meld.burraco ? " burraco" : "");
      if (meld.burraco) {
        const tag = document.createElement("span");
        tag.className = "meld-tag";
        tag.textContent = `${L.burraco} ${L[meld.burraco] || meld.burraco}`;
        m.appendChild(tag);
      }
      m.appendChild(cardsRow(meld.cards, meld.wild));
      wrap.appendChild(m);
    }
    box.appendChild(wrap);
  }

  function show(index) {
    current = Math.max(0, Math.min(frames.length - 1, index));
    const f = frames[current];
    for (const [position, box] of seatBoxes) {
      const hand = f.hands[position] || [];
      box.classList.toggle("to-move", f.to_move === position);
      box.classList.toggle("acted", f.seat === position);
      box.querySelector(".r-count").textContent = hand.length === 1 ? L.card1 : fmt(L.cards, { n: hand.length });
      const target = box.querySelector(".r-hand");
      target.innerHTML = "";
      target.appendChild(cardsRow(sorted(hand), null));
    }
    renderMelds(0, f.melds[0]);
    renderMelds(1, f.melds[1]);
    $("r-stock").textContent = f.stock;
    const discard = $("r-discard");
    discard.innerHTML = "";
    if (f.discard.length) discard.appendChild(cardsRow(f.discard, null));
    else discard.textContent = L.empty;
    $("r-discard-count").textContent = f.discard.length ? `(${f.discard.length})` : "";
    const pozzetti = $("r-pozzetti");
    pozzetti.innerHTML = "";
    f.pozzetti.forEach((state, side) => {
      const li = document.createElement("li");
      li.className = `pozzetto pozzetto-${state}`;
      li.innerHTML = "<span></span><strong></strong>";
      li.querySelector("span").textContent = sideName(side);
      li.querySelector("strong").textContent = L[state] || state;
      pozzetti.appendChild(li);
    });
    $("r-score-0").textContent = f.score[0];
    $("r-score-1").textContent = f.score[1];
    $("r-step-text").textContent = f.text;
    const noteBox = $("r-note");
    if (noteBox) {
      const notes = notesAt.get(current) || [];
      noteBox.hidden = !notes.length;
      noteBox.innerHTML = "";
      for (const note of notes) {
        const p = document.createElement("p");
        const who = document.createElement("strong");
        who.textContent = `${L.note} · ${seatName.get(note.seat) || ""}: `;
        p.append(who, note.text);
        noteBox.appendChild(p);
      }
    }
    $("r-step-count").textContent = current === 0 ? L.deal : fmt(L.step, { i: current, n: frames.length - 1 });
    slider.value = String(current);
    $("r-first").disabled = $("r-prev").disabled = current === 0;
    $("r-next").disabled = $("r-last").disabled = current === frames.length - 1;
    const items = list.children;
    for (let i = 0; i < items.length; i++) items[i].classList.toggle("current", i === current);
    const item = items[current];
    if (item) {
      // Keep the current move in view inside the list, without scrolling the page.
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
    root.dataset.step = String(current);
  }

  // The marks of this hand in the analysis panel: each one goes to its move.
  const panel = $("r-analysis");
  if (panel && notesAt.size) {
    const marks = document.createElement("ol");
    marks.className = "plain r-note-list";
    marks.id = "r-note-list";
    for (const [step, notes] of [...notesAt.entries()].sort((a, b) => a[0] - b[0])) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "linklike";
      button.dataset.step = String(step);
      button.textContent = `${fmt(L.step, { i: step, n: frames.length - 1 })}: ${notes.map((n) => n.text).join(" ")}`;
      button.addEventListener("click", () => show(step));
      li.appendChild(button);
      marks.appendChild(li);
    }
    panel.appendChild(marks);
  }

  $("r-first").addEventListener("click", () => show(0));
  $("r-prev").addEventListener("click", () => show(current - 1));
  $("r-next").addEventListener("click", () => show(current + 1));
  $("r-last").addEventListener("click", () => show(frames.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = (event.target && event.target.tagName) || "";
    // The slider moves itself with the arrow keys (and fires "input"); other fields keep theirs.
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: frames.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  show(0);
})();
