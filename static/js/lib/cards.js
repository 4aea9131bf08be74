// Cards as people see them: notation helpers, the two sort orders and the HTML card face
// (styled by static/css/table.css .pcard). Shared by the table, the replay and the tests.
// The pure functions work without a DOM (node --test imports this module).

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 }; // colours alternate in the hand
const RANK_ORDER = "3456789TJQKA"; // aces high when sorting; 2s and jokers go last as wilds

export const SORT_MODES = ["suit", "rank"];

export function rankText(card) {
  if (card === "JK") return "JK";
  return card[0] === "T" ? "10" : card[0];
}

/** "10♥", "K♠", "JK": the short form used in the move log. */
export function shortCard(card) {
  return card === "JK" ? "JK" : `${rankText(card)}${SUIT_SYMBOL[card[1]] || ""}`;
}

/** The spoken name of a card: "10 cuori", "2 picche (pinella)", "Jolly". `L` holds the words. */
export function cardLabel(card, L = {}) {
  // The face shows "JK": the name says it too (a button's name must contain what it shows).
  if (card === "JK") return `${L.joker || "Jolly"} JK`;
  const names = { S: L.spades, H: L.hearts, D: L.diamonds, C: L.clubs };
  const text = `${rankText(card)} ${names[card[1]] || card[1]}`;
  return card[0] === "2" ? `${text} (${L.pinella || "pinella"})` : text;
}

function wildGroup(card) {
  if (card === "JK") return 2;
  return card[0] === "2" ? 1 : 0;
}

/** Sort key: by suit then rank ("suit"), or by rank then suit ("rank"); 2s then jokers last. */
export function sortKey(card, mode = "suit") {
  const group = wildGroup(card);
  if (group === 2) return [2, 0, 0];
  const suit = SUIT_ORDER[card[1]] ?? 9;
  if (group === 1) return [1, suit, 0];
  const rank = RANK_ORDER.indexOf(card[0]);
  return mode === "rank" ? [0, rank, suit] : [0, suit, rank];
}

export function compareCards(a, b, mode = "suit") {
  const ka = sortKey(a, mode);
  const kb = sortKey(b, mode);
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
  return 0;
}

export function sortCards(cards, mode = "suit") {
  return [...cards].sort((a, b) => compareCards(a, b, mode));
}

/** Fill `node` with the face of `card`; `wild` marks a card acting as a wild in a meld. */
export function paintFace(node, card, L = {}, wild = false) {
  node.classList.add("pcard");
  node.dataset.card = card;
  const label = cardLabel(card, L) + (wild ? ` (${L.asWild || "fa da jolly"})` : "");
  node.setAttribute("aria-label", label);
  node.title = label;
  node.classList.toggle("as-wild", Boolean(wild));
  if (card === "JK") {
    node.classList.add("joker");
    node.innerHTML = '<span class="idx"><span class="r">JK</span><span class="s">★</span></span><span class="pip">★</span>';
    return node;
  }
  const suit = card[1];
  node.classList.toggle("red", suit === "H" || suit === "D");
  node.classList.toggle("pinella", card[0] === "2");
  const symbol = SUIT_SYMBOL[suit] || "";
  node.innerHTML = `<span class="idx"><span class="r">${rankText(card)}</span><span class="s">${symbol}</span></span>`
    + `<span class="pip">${symbol}</span>`;
  return node;
}

/** A new card face element. A plain picture (span, role img) unless `tag` is "button". */
export function cardFace(card, { tag = "span", labels = {}, wild = false } = {}) {
  const node = document.createElement(tag);
  if (tag !== "button") node.setAttribute("role", "img");
  return paintFace(node, card, labels, wild);
}
