// @ts-check
/**
 * The seats round the table: the others in turn order from the player's next seat (to the
 * player's left, across the top, to the right), each with its card backs fanned by count, the
 * dealer's button and the turn; the player's own seat at the bottom (a spectator's: seat 0's
 * place). A seat's side is its `data-side`: left, top or right for the others, bottom for the
 * player's own.
 */

import * as api from "../api.js";
import { cardBack } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { seatName } from "../ui.js";

/** Card backs drawn at most per seat (the count says the rest). */
const BACKS_SHOWN = 12;

/**
 * Where each of `n` others sits, in turn order from the player's next seat: the first to the
 * left, the last to the right, the rest across the top (one other: across the table).
 * @param {number} n
 * @returns {("left" | "top" | "right")[]}
 */
export function sides(n) {
  if (n <= 1) return n ? ["top"] : [];
  if (n === 2) return ["left", "right"];
  return ["left", ...Array.from({ length: n - 2 }, () => /** @type {"top"} */ ("top")), "right"];
}

/**
 * One seat.
 * @param {api.Match} match
 * @param {api.State} v
 * @param {api.Match["seats"][number]} seat
 * @param {string} side
 * @param {number} order its place in turn order from the player's next seat
 */
function seatBox(match, v, seat, side, order) {
  const i = seat.seat;
  const you = v.you;
  const count = v.hand_counts[i] ?? 0;
  return h("div", {
    class: `seat${v.turn === i ? " on-turn" : ""}${i === you ? " mine" : ""}`,
    testid: `seat-${i}`,
    "data-side": side,
    "data-order": order,
    style: `--order:${order}`,
    "data-count": count,
    "data-total": v.totals[i] ?? seat.total,
  },
  h("div", { class: "seat-name" },
    v.dealer === i ? h("span", {
      class: "dealer-chip", testid: "dealer-chip", role: "img", title: t("table.dealer"), "aria-label": t("table.dealer"),
    }, "D") : null,
    seat.player ? seatName(seat) : t("table.open"),
    i === you ? ` (${t("table.you")})` : "",
    seat.player?.is_bot ? ` · ${t("table.bot")}` : "",
    v.resigned.includes(i) ? ` · ${t(seat.absent ? "table.absent" : "table.resigned")}` : ""),
  i === you ? null : h("div", { class: "backs", "aria-hidden": "true", "data-count": count },
    Array.from({ length: Math.min(count, BACKS_SHOWN) }, () => cardBack())),
  h("div", { class: "seat-facts" }, t("table.cards", { n: count }), " · ",
    t("table.total", { n: v.totals[i] ?? seat.total })));
}

/**
 * The others round the table (by side) and the player's own seat, for the frame `v`.
 * @param {api.Match} match
 * @param {api.State} v
 * @returns {{ left: HTMLElement, top: HTMLElement, right: HTMLElement, bottom: HTMLElement }}
 */
export function seatRing(match, v) {
  const n = match.seats.length;
  const own = v.you ?? 0;
  const others = Array.from({ length: n - 1 }, (_, k) => (own + 1 + k) % n);
  const placed = sides(others.length);
  /** @type {Record<string, HTMLElement[]>} */
  const by = { left: [], top: [], right: [] };
  others.forEach((i, k) => {
    const seat = match.seats[i];
    if (seat) by[placed[k]].push(seatBox(match, v, seat, placed[k], k));
  });
  const mine = match.seats[own];
  return {
    left: h("div", { class: "side side-left" }, by.left),
    top: h("div", { class: "side side-top" }, by.top),
    right: h("div", { class: "side side-right" }, by.right),
    bottom: h("div", { class: "side side-bottom" }, mine ? seatBox(match, v, mine, "bottom", n - 1) : null),
  };
}
