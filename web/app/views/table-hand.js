// @ts-check
/**
 * The player's hand panel: the cards (the legal ones raised), the Jack's suit picker on the
 * Jack, Draw (the penalty's cards while sevens are pending, the server's `penalty_cards`) and
 * Pass, the keys' help, and Resign with its confirm step. A card, Draw or Pass the rules do
 * not allow now is dimmed (`aria-disabled`, out of the tab order) but still answers a click or
 * its key: on the player's turn the page says which rule forbids it (HandActions.explain).
 */

import * as api from "../api.js";
import { cardFace, suitName, SUIT_SYMBOL, SUIT_COLOUR } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

const SUITS = /** @type {const} */ (["C", "D", "H", "S"]);

/**
 * @typedef {object} HandActions
 * @property {(action: string, card?: string, suit?: string) => boolean} legal
 * @property {(card: string) => void} play a click on a card
 * @property {(card: string, suit: "C" | "D" | "H" | "S") => void} playJack the Jack with its suit
 * @property {() => void} cancelJack
 * @property {(move: api.MoveBody) => void} send
 * @property {(move: api.MoveBody) => void} explain a move the rules do not allow now, chosen
 * @property {() => void} askResign
 * @property {() => void} keepPlaying
 * @property {() => void} resign
 * @property {() => boolean} lastPerson no other person plays on at the table (resigning ends it)
 * @property {(seat: number) => boolean} absent the turn clock resigned the seat's person
 */

/**
 * "Resign" with its confirm step while the seat plays; once it has resigned, a note.
 * @param {api.State} v
 * @param {boolean} confirming
 * @param {HandActions} act
 */
function resignControls(v, confirming, act) {
  const you = v.you;
  if (you === null) return null;
  if (v.resigned.includes(you)) {
    return v.status === "active"
      ? h("p", { class: "notice", testid: "resigned-note" },
        t(act.absent(you) ? "table.youWereAbsent" : "table.youResigned"))
      : null;
  }
  if (v.status !== "active") return null;
  if (!confirming) {
    return h("div", { class: "resign" },
      h("button", { type: "button", testid: "resign-button", onclick: act.askResign }, t("table.resign")));
  }
  // Its safe choice (data-safe) takes the focus as it opens; Escape chooses it, and the focus
  // goes back to Resign (table-keys.js).
  return h("div", {
    class: "resign confirm", testid: "resign-confirm", role: "alertdialog", "aria-label": t("table.resign"),
    "aria-describedby": "resign-ask", "data-opener": "resign-button",
  },
    h("p", { testid: "resign-ask", id: "resign-ask" }, t(act.lastPerson() ? "table.resignAskLast" : "table.resignAsk")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "danger", testid: "resign-yes", onclick: act.resign }, t("table.resignYes")),
      h("button", { type: "button", testid: "resign-no", "data-safe": "", onclick: act.keepPlaying }, t("table.resignNo"))));
}

/**
 * @param {{ view: api.State, jack: string | null, confirming: boolean, act: HandActions }} args
 *   `jack`: the Jack waiting for its suit
 */
export function handPanel({ view: v, jack, confirming, act }) {
  const legal = act.legal;
  return h("section", { class: "hand-panel" },
    h("h2", {}, t("table.hand")),
    h("div", { class: "hand", testid: "hand", tabIndex: -1, role: "group", "aria-label": t("table.hand") },
      v.hand.map((card) => {
        const ok = legal("play", card);
        return h("button", {
          type: "button",
          class: `card${ok ? " legal" : ""}${jack === card ? " chosen" : ""}`,
          testid: "card",
          "data-card": card,
          "data-legal": ok ? "true" : "false",
          "aria-disabled": ok ? null : "true",
          tabIndex: ok ? 0 : -1,
          onclick: () => (ok ? act.play(card) : act.explain({ action: "play", card })),
        }, cardFace(card));
      })),
    jack ? h("div", { class: "suit-picker", testid: "suit-picker" },
      h("span", {}, t("table.pickSuit")),
      SUITS.map((s) => {
        // A suit the rules forbid now (jack_nomination: different_suit) says why on a click.
        const ok = legal("play", jack, s);
        return h("button", {
          type: "button",
          testid: `suit-${s}`,
          style: `color:${SUIT_COLOUR[s]}`,
          "aria-label": suitName(s),
          "aria-disabled": ok ? null : "true",
          onclick: () => (ok ? act.playJack(jack, s) : act.explain({ action: "play", card: jack, suit: s })),
        }, SUIT_SYMBOL[s]);
      }),
      h("button", { type: "button", onclick: act.cancelJack }, t("table.cancelSuit")))
      : null,
    // Draw, pass and their keys while the match is played (a waiting table has no deal yet).
    v.status !== "active" ? null : h("div", { class: "actions" },
      h("button", {
        type: "button", testid: "draw-button", class: "primary", "aria-keyshortcuts": "D",
        "aria-disabled": legal("draw") ? null : "true",
        onclick: () => (legal("draw") ? act.send : act.explain)({ action: "draw" }),
      }, v.penalty_cards > 0 ? t("table.drawPenalty", { n: v.penalty_cards }) : t("table.draw")),
      h("button", {
        type: "button", testid: "pass-button", "aria-keyshortcuts": "P",
        "aria-disabled": legal("pass") ? null : "true",
        onclick: () => (legal("pass") ? act.send : act.explain)({ action: "pass" }),
      }, t("table.pass"))),
    v.status !== "active" ? null : h("p", { class: "keys-help", testid: "keys-help" }, t("table.keys")),
    resignControls(v, confirming, act));
}

/**
 * The Jack's suit picker on the Jack itself, kept inside the hand's panel.
 * @param {HTMLElement} board
 */
export function placePicker(board) {
  const picker = board.querySelector('[data-testid="suit-picker"]');
  const chosen = board.querySelector(".hand .card.chosen");
  const panel = picker?.parentElement;
  if (!(picker instanceof HTMLElement) || !(chosen instanceof HTMLElement) || !panel) return;
  picker.classList.add("on-card");
  const room = panel.clientWidth - picker.offsetWidth;
  picker.style.left = `${Math.max(0, Math.min(room, chosen.offsetLeft + chosen.offsetWidth / 2 - picker.offsetWidth / 2))}px`;
  picker.style.top = `${chosen.offsetTop + chosen.offsetHeight - 8}px`;
  // All of it on screen (a phone's hand is often at the bottom edge); nothing moves if it is.
  picker.scrollIntoView({ block: "nearest" });
}
