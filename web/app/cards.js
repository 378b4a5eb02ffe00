// @ts-check
/**
 * Card faces drawn by the page itself as SVG (no image files, nothing downloaded): rank in
 * two corners, the suit's pip in the middle, hearts and diamonds red, clubs and spades dark.
 */

import { h } from "./dom.js";
import { has, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/** @type {Record<string, string>} */
export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
/** @type {Record<string, string>} */
export const SUIT_COLOUR = { C: "#1d5c2f", D: "#c2410c", H: "#c8102e", S: "#111827" };

/**
 * The suit to play as a `<dd>` of the table's facts: its symbol in the suit's colour on a card
 * badge, or a dash in the page's colour while there is none (before the first card).
 * @param {string | null | undefined} suit
 * @param {Record<string, any>} [attrs]
 */
export function suitBadge(suit, attrs = {}) {
  return h("dd", {
    class: "suit-badge", "data-suit": suit ?? "", style: suit ? `color:${SUIT_COLOUR[suit]}` : "", ...attrs,
  }, suit ? SUIT_SYMBOL[suit] : "–");
}

/** @param {string} card e.g. "10H" */
export function rankOf(card) {
  return card.slice(0, -1);
}

/** @param {string} card */
export function suitOf(card) {
  return card.slice(-1);
}

/** "7♠", for text. @param {string} card */
export function cardText(card) {
  return rankOf(card) + (SUIT_SYMBOL[suitOf(card)] ?? "?");
}

/**
 * A card in words in the page's language, for screen readers: "Queen of clubs", "Sinek kızı",
 * "7 of hearts", "Kupa 7".
 * @param {string} card
 */
export function cardName(card) {
  const rank = rankOf(card);
  const words = `card.rank.${rank}`;
  return t("card.name", { rank: has(words) ? t(words) : rank, suit: t(`card.suit.${suitOf(card)}`) });
}

/** A suit in words ("Clubs", "Sinek"), for screen readers. @param {string} suit */
export function suitName(suit) {
  return t(`suit.${suit}`);
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {string} [text]
 */
function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * A card face, 60×84 user units, scaled by CSS; named in words (`cardName`).
 * @param {string} card
 * @returns {SVGSVGElement}
 */
export function cardFace(card) {
  const rank = rankOf(card);
  const suit = suitOf(card);
  const colour = SUIT_COLOUR[suit] ?? "#111827";
  const symbol = SUIT_SYMBOL[suit] ?? "?";
  const face = /** @type {SVGSVGElement} */ (
    svg("svg", { viewBox: "0 0 60 84", class: "card-face", role: "img", "aria-label": cardName(card) })
  );
  face.append(
    svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fffdf7", stroke: "#9ca3af" }),
    svg("text", { x: 6, y: 17, "font-size": 14, "font-weight": 700, fill: colour }, rank),
    svg("text", { x: 6, y: 30, "font-size": 12, fill: colour }, symbol),
    svg("text", { x: 30, y: 55, "font-size": 30, "text-anchor": "middle", fill: colour }, symbol),
  );
  const bottom = svg("g", { transform: "rotate(180 30 42)" });
  bottom.append(
    svg("text", { x: 6, y: 17, "font-size": 14, "font-weight": 700, fill: colour }, rank),
    svg("text", { x: 6, y: 30, "font-size": 12, fill: colour }, symbol),
  );
  face.append(bottom);
  if (rank === "J" || rank === "Q" || rank === "K") {
    face.append(svg("rect", { x: 14, y: 22, width: 32, height: 44, rx: 3, fill: "none",
      stroke: colour, "stroke-width": 1.2 }));
  }
  return face;
}

/** A card's back (the stock). @returns {SVGSVGElement} */
export function cardBack() {
  const back = /** @type {SVGSVGElement} */ (svg("svg", { viewBox: "0 0 60 84", class: "card-face" }));
  back.append(
    svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#1e3a8a", stroke: "#9ca3af" }),
    svg("rect", { x: 7, y: 7, width: 46, height: 70, rx: 4, fill: "none", stroke: "#93c5fd",
      "stroke-width": 1.5 }),
    svg("text", { x: 30, y: 50, "font-size": 18, "text-anchor": "middle", fill: "#93c5fd" }, "7"),
  );
  return back;
}
