// Cards that move: a card flies from the stock, the pile or a seat to where it lands. Nothing
// moves for someone who asked for less motion (prefers-reduced-motion).

import { reducedMotion } from "../lib/dom.js";

export class Motion {
  constructor() {
    this.flights = 0; // started, for the tests
    this.skipped = 0; // not started because of prefers-reduced-motion
  }

  /** Fly `face` (a card, placed fixed) from the middle of rect `from` to the middle of rect `to`. */
  fly(face, from, to, duration = 320) {
    if (!from || !to || !face) return;
    if (reducedMotion()) {
      this.skipped += 1;
      return;
    }
    if (typeof face.animate !== "function") return;
    this.flights += 1;
    // A card the size of the meld and pile cards (table.css --mw, --mh), whatever the target's box.
    const css = getComputedStyle(document.documentElement);
    const width = parseFloat(css.getPropertyValue("--mw")) || 40;
    const height = parseFloat(css.getPropertyValue("--mh")) || 56;
    const left = from.left + from.width / 2 - width / 2;
    const top = from.top + from.height / 2 - height / 2;
    face.classList.add("flying");
    face.setAttribute("aria-hidden", "true");
    Object.assign(face.style, {
      position: "fixed", left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px`,
      margin: "0", zIndex: "900", pointerEvents: "none",
    });
    document.body.append(face);
    const dx = to.left + to.width / 2 - width / 2 - left;
    const dy = to.top + to.height / 2 - height / 2 - top;
    const animation = face.animate(
      [{ transform: "translate(0, 0)" }, { transform: `translate(${dx}px, ${dy}px)` }],
      { duration, easing: "cubic-bezier(.2,.7,.3,1)" },
    );
    const done = () => face.remove();
    animation.addEventListener("finish", done);
    animation.addEventListener("cancel", done);
  }
}
