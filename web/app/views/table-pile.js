// @ts-check
/**
 * The middle of the table: the pile with its top card, the suit a Jack asked for, the pending
 * sevens as a stack of 7s with the cards they cost (the server's `penalty_cards`), the stock,
 * the direction of play as an arrow round the pile, the facts in words, and whose turn it is.
 */

import * as api from "../api.js";
import { cardBack, cardFace, suitBadge, suitOf, SUIT_SYMBOL, SUIT_COLOUR } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { seatName } from "../ui.js";

/** Sevens drawn at most in the stack (the count says the rest). */
const SEVENS_SHOWN = 8;

/**
 * The turn clock's line while no deadline runs: "No turn clock" only for a match without one;
 * under a clock (a bot on turn, between deals, the match over) nothing, its line kept.
 * @param {api.Match} match
 */
export function clockText(match) {
  return match.turn_seconds ? "\u00a0" : t("table.noClock");
}

/**
 * @param {{ match: api.Match, view: api.State, yourTurn: boolean, asked: boolean }} args
 *   `asked`: the newest move on screen was a Jack's (its `effect` named the suit)
 */
export function tableMiddle({ match, view: v, yourTurn, asked }) {
  const top = v.top_card;
  const suit = v.active_suit;
  // The suit to follow is not the top card's, or a Jack has just asked for it.
  const named = Boolean(top && suit && (suitOf(top) !== suit || asked));
  const turnSeat = v.turn === null ? null : match.seats[v.turn];
  const clockwise = v.direction === 1;
  const sevens = v.pending_sevens;
  return h("div", { class: "middle" },
    h("div", { class: "pile-area" },
      h("div", {
        class: `direction-ring ${clockwise ? "cw" : "ccw"}`, testid: "direction-arrow",
        "data-direction": v.direction, role: "img",
        "aria-label": `${t("table.direction")}: ${clockwise ? t("dir.cw") : t("dir.ccw")}`,
      }, h("span", { class: "arrow", "aria-hidden": "true" }, clockwise ? "↻" : "↺")),
      h("div", { class: "pile", testid: "pile-top", "data-card": top ?? "" },
        h("div", { class: "label" }, t("table.pile")), top ? cardFace(top) : h("div", { class: "slot" }),
        named && suit ? h("div", {
          class: "named-suit", testid: "named-suit", "data-suit": suit, style: `color:${SUIT_COLOUR[suit]}`,
        }, t("table.named", { suit: SUIT_SYMBOL[suit] })) : null,
        // Over the pile's corner, so that nothing moves as the sevens come and go.
        sevens > 0 ? h("div", {
          class: "sevens-stack", testid: "sevens-stack", "data-count": sevens, "data-cards": v.penalty_cards,
        },
        h("div", { class: "sevens-cards", "aria-hidden": "true" },
          Array.from({ length: Math.min(sevens, SEVENS_SHOWN) }, (_, k) =>
            h("span", { class: "seven-card", style: `--k:${k}` }, "7"))),
        h("div", { class: "sevens-cost" }, t("table.sevensCost", { n: v.penalty_cards }))) : null),
      // No stock before the first deal (a table waiting for its players).
      v.deal ? h("div", { class: "stock" }, cardBack(),
        h("div", { testid: "stock-count", "data-count": v.stock_count }, t("table.stock", { n: v.stock_count })))
        : null),
    h("dl", { class: "facts" },
      h("dt", {}, t("table.activeSuit")),
      suitBadge(suit, { testid: "active-suit" }),
      h("dt", {}, t("table.pendingLabel")),
      h("dd", { testid: "pending-sevens", "data-count": sevens }, String(sevens)),
      h("dt", {}, t("table.direction")),
      h("dd", { testid: "direction", "data-direction": v.direction, class: "direction" },
        clockwise ? t("dir.cw") : t("dir.ccw")),
      h("dt", {}, t("table.dealLabel")),
      h("dd", {}, t("table.deal", { n: v.deal ?? "–", m: v.deals_total })),
    ),
    h("div", { class: "turn-box" },
      h("div", {
        testid: "turn-indicator",
        class: yourTurn ? "your-turn" : "",
        "data-turn-seat": v.turn ?? "",
        "data-your-turn": yourTurn ? "true" : "false",
      },
      v.status === "waiting" ? t(match.private ? "private.waiting" : "table.waiting")
        : yourTurn ? t("table.yourTurn")
          : turnSeat ? t("table.turn", { name: seatName(turnSeat) }) : t("table.noTurn")),
      h("div", { testid: "turn-clock" }, clockText(match))));
}
