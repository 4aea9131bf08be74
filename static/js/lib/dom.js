// Small DOM helpers shared by the site's pages (ES module, no build step).

/** "{name} scarta {card}" with values filled in; unknown keys stay as they are. */
export function fmt(text, values) {
  return String(text).replace(/\{(\w+)\}/g, (m, key) => (key in values ? String(values[key]) : m));
}

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The JSON of a <script type="application/json"> element, or `fallback`. */
export function readJSON(id, fallback = null) {
  const node = document.getElementById(id);
  if (!node) return fallback;
  try {
    return JSON.parse(node.textContent) ?? fallback;
  } catch {
    return fallback;
  }
}

/** Set a node's text only when it changed (no needless layout work, no lost selection). */
export function setText(node, text) {
  if (!node || node.textContent === text) return;
  // A lone text child is changed in place: `textContent =` would throw it away with its layout
  // object and build new ones (a clock ticking or a count changing cost a reattach each time).
  const only = node.firstChild;
  if (text !== "" && only && only === node.lastChild && only.nodeType === 3) only.data = text;
  else node.textContent = text;
}

export function setHidden(node, hidden) {
  if (node && node.hidden !== Boolean(hidden)) node.hidden = Boolean(hidden);
}

export function setAttr(node, name, value) {
  if (!node) return;
  if (value === null || value === undefined || value === false) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== String(value)) {
    node.setAttribute(name, String(value));
  }
}

/**
 * Keyed reconciliation: make `parent`'s children the nodes for `items`, in order, reusing the
 * node already drawn for each key. A reused node keeps its focus and any drag in progress; only
 * nodes out of place are moved. `create(item)` makes a node, `update(node, item)` refreshes it.
 */
export function keyed(parent, items, keyOf, create, update) {
  const keys = items.map((item) => String(keyOf(item)));
  const wanted = new Set(keys);
  // Nodes whose key is gone leave first: left in place they would stand at the walk's cursor,
  // and every node after them would be moved (taken out of the layout and put back) to get past.
  const old = new Map();
  for (const child of [...parent.children]) {
    const key = child.dataset.key;
    if (key !== undefined && wanted.has(key) && !old.has(key)) old.set(key, child);
    else child.remove();
  }
  const active = document.activeElement;
  let cursor = parent.firstElementChild;
  items.forEach((item, i) => {
    const key = keys[i];
    let node = old.get(key);
    if (node) old.delete(key);
    else {
      node = create(item);
      node.dataset.key = key;
    }
    update(node, item);
    if (node === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(node, cursor);
  });
  // Moving a focused node in the DOM drops its focus: give it back.
  if (active && active !== document.activeElement && parent.contains(active)) active.focus({ preventScroll: true });
}

/** Whether the person asked for less motion. */
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}
