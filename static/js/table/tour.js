// The first visit's short tour over the real table: where to drag to draw, how to meld, lay off
// and discard. Shown once per device (or again from "Come si gioca qui"), only at a practice table
// (nobody but the computer), whose turn clock stops while it is open (`onOpen` / `onClose`: the
// page tells the server). It never blocks the table and never covers the hand: a bubble beside each
// place, with Avanti / Indietro / Salta.

const DONE_KEY = "burraco:tour-done";
const TARGETS = ["#stock", "#discard", "#hand", "#melds-us-wrap", "#discard", "#turn-clock"];

function done() {
  try {
    return localStorage.getItem(DONE_KEY) === "1";
  } catch {
    return true;
  }
}

function finish() {
  try {
    localStorage.setItem(DONE_KEY, "1");
  } catch {
    // shown again next time
  }
}

let current = null;

/** Where the box goes: below the target, else above it, else at the top of the screen, the
 * first of these that fits on the screen without covering the hand (`avoid`). Pure, for tests. */
export function tourTop(rect, height, viewHeight, avoid) {
  const overlaps = (top) => avoid && top < avoid.bottom && top + height > avoid.top;
  const fits = (top) => top >= 8 && top + height <= viewHeight - 8 && !overlaps(top);
  for (const top of [rect.bottom + 10, rect.top - height - 10, 8]) {
    if (fits(top)) return top;
  }
  if (avoid && avoid.top - height - 10 >= 0) return Math.max(0, avoid.top - height - 10);
  return 8;
}

export function startTour(words, { force = false, onOpen = null, onClose = null } = {}) {
  if (!words || !Array.isArray(words.steps) || (!force && done())) return;
  if (current) current.close();
  const steps = words.steps.map((text, i) => ({ text, target: TARGETS[i] })).filter((s) => document.querySelector(s.target));
  if (!steps.length) return;
  const box = document.createElement("div");
  box.id = "tour";
  box.className = "tour";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-labelledby", "tour-text");
  box.innerHTML = '<p class="tour-count" id="tour-count"></p><p class="tour-text" id="tour-text"></p>'
    + '<p class="tour-buttons"><button type="button" class="button small secondary" id="tour-prev"></button>'
    + '<button type="button" class="button small" id="tour-next"></button>'
    + '<button type="button" class="button small linkish" id="tour-skip"></button></p>';
  if (onOpen && words.held) {
    // The clock stands still while the tour is open (a practice table): say so.
    const note = document.createElement("p");
    note.className = "tour-held";
    note.id = "tour-held";
    note.textContent = words.held;
    box.querySelector(".tour-buttons").before(note);
  }
  document.body.append(box);
  box.querySelector("#tour-prev").textContent = words.prev;
  box.querySelector("#tour-skip").textContent = words.skip;
  let index = 0;
  let lit = null;

  function place() {
    const step = steps[index];
    const target = document.querySelector(step.target);
    if (lit) lit.classList.remove("tour-target");
    lit = target;
    target.classList.add("tour-target");
    target.scrollIntoView({ block: "nearest" });
    box.querySelector("#tour-count").textContent = words.count.replace("{i}", index + 1).replace("{n}", steps.length);
    box.querySelector("#tour-text").textContent = step.text;
    box.querySelector("#tour-prev").disabled = index === 0;
    box.querySelector("#tour-next").textContent = index === steps.length - 1 ? words.end : words.next;
    const rect = target.getBoundingClientRect();
    const width = Math.min(320, window.innerWidth - 16);
    box.style.width = `${width}px`;
    const left = Math.max(8, Math.min(window.innerWidth - width - 8, rect.left));
    const hand = document.getElementById("hand");
    const top = tourTop(rect, box.offsetHeight, window.innerHeight, hand ? hand.getBoundingClientRect() : null);
    box.style.left = `${left}px`;
    box.style.top = `${top}px`;
  }

  function close() {
    if (lit) lit.classList.remove("tour-target");
    box.remove();
    window.removeEventListener("resize", place);
    current = null;
    finish();
    if (onClose) onClose();
  }

  box.querySelector("#tour-prev").addEventListener("click", () => {
    index = Math.max(0, index - 1);
    place();
  });
  box.querySelector("#tour-next").addEventListener("click", () => {
    if (index === steps.length - 1) close();
    else {
      index += 1;
      place();
    }
  });
  box.querySelector("#tour-skip").addEventListener("click", close);
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  window.addEventListener("resize", place);
  current = { close };
  if (onOpen) onOpen();
  place();
  box.querySelector("#tour-next").focus({ preventScroll: true });
}
