// Dragging with pointer events (the same with a mouse and a finger): the stock or the pile down
// into the hand, a card onto the pile, onto one of our melds, or to another place in the hand.
// The dragged node is a keyed node of the hand, so a frame that arrives meanwhile does not
// replace it; if its card leaves the hand (the server played the turn), the drag is dropped.

import { el } from "../lib/dom.js";

const THRESHOLD = 6;

/** Which drop zones each kind of drag may end on. */
export function dropAllowed(kind, zone) {
  if (kind === "stock" || kind === "discard") return zone === "hand";
  if (kind === "hand") return zone === "hand" || zone === "discard" || zone === "meld";
  return false;
}

export function installDrag({ onDrop }) {
  let drag = null;
  let suppressClick = false;

  function zoneAt(x, y) {
    const under = document.elementFromPoint(x, y);
    const target = under && under.closest("[data-drop]");
    return target && target.dataset.drop ? target : null;
  }

  function start(event) {
    drag.started = true;
    const rect = drag.source.getBoundingClientRect();
    let ghost;
    if (drag.kind === "stock") {
      ghost = el("div", "card-back");
    } else {
      ghost = drag.source.cloneNode(true);
      ghost.removeAttribute("id");
      if (drag.kind === "discard") ghost.classList.add("ghost-pile");
    }
    ghost.classList.add("drag-ghost");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.width = `${Math.min(rect.width, 320)}px`;
    drag.dx = Math.min(event.clientX - rect.left, 40);
    drag.dy = Math.min(event.clientY - rect.top, 40);
    document.body.append(ghost);
    drag.ghost = ghost;
    document.body.classList.add("dragging", `dragging-${drag.kind}`);
    drag.source.classList.add("drag-source");
  }

  function place(x, y) {
    drag.ghost.style.transform = `translate(${x - drag.dx}px, ${y - drag.dy}px) rotate(-3deg)`;
  }

  function end() {
    if (!drag) return;
    if (drag.ghost) drag.ghost.remove();
    if (drag.over) drag.over.classList.remove("drop-over");
    drag.source.classList.remove("drag-source");
    document.body.classList.remove("dragging", `dragging-${drag.kind}`);
    drag = null;
  }

  document.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    const source = event.target.closest("[data-drag]");
    if (!source || !source.dataset.drag) return;
    drag = { source, kind: source.dataset.drag, x: event.clientX, y: event.clientY, started: false, ghost: null, over: null };
  });

  document.addEventListener("pointermove", (event) => {
    if (!drag) return;
    if (!drag.started) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < THRESHOLD) return;
      start(event);
    }
    event.preventDefault();
    if (!drag.source.isConnected || !drag.source.dataset.drag) {
      end(); // the card left the hand, or the move is no longer ours to make
      return;
    }
    place(event.clientX, event.clientY);
    const target = zoneAt(event.clientX, event.clientY);
    const ok = target && dropAllowed(drag.kind, target.dataset.drop) ? target : null;
    if (drag.over !== ok) {
      if (drag.over) drag.over.classList.remove("drop-over");
      if (ok) ok.classList.add("drop-over");
      drag.over = ok;
    }
  }, { passive: false });

  document.addEventListener("pointerup", (event) => {
    if (!drag) return;
    if (!drag.started) {
      drag = null;
      return;
    }
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    const target = zoneAt(event.clientX, event.clientY);
    const { kind, source } = drag;
    const alive = source.isConnected && Boolean(source.dataset.drag);
    end();
    if (!alive || !target || !dropAllowed(kind, target.dataset.drop)) return;
    onDrop(kind, source, target, event.clientX, event.clientY);
  });

  document.addEventListener("pointercancel", end);

  return {
    get active() {
      return Boolean(drag && drag.started);
    },
    get suppressClick() {
      return suppressClick;
    },
    cancel: end,
  };
}
