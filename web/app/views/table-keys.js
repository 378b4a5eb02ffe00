// @ts-check
/**
 * The table by keyboard and screen reader: the arrow keys choose a card of the hand (a legal
 * one: the others cannot be played), Enter plays it (the focused button's own click), D draws,
 * P passes, Escape takes back a Jack whose suit is not named yet; in the Jack's suit picker the
 * arrows choose the suit; in Resign's confirm step Escape keeps playing. Every move, own and others', is read out through an aria-live region
 * in the page's language. Focus stays on the chosen card (or its place) across redraws.
 */

import { h } from "../dom.js";

/** How many announcements the live region keeps (older ones are removed). */
const KEPT = 6;

/**
 * A polite live region (visually hidden) and what adds a line to it.
 * @returns {{ region: HTMLElement, say: (text: string) => void }}
 */
export function announcer() {
  const region = h("div", {
    class: "visually-hidden",
    testid: "announcer",
    role: "log",
    "aria-live": "polite",
    "aria-atomic": "false",
  });
  return {
    region,
    say(text) {
      if (!text) return;
      region.append(h("p", {}, text));
      while (region.childElementCount > KEPT) region.firstElementChild?.remove();
    },
  };
}

/**
 * What identifies a focusable control of the board across redraws.
 * @param {Element | null} el
 * @returns {{ card: string | null, testid: string | null, index: number } | null}
 */
function identify(el) {
  if (!(el instanceof HTMLElement)) return null;
  const card = el.dataset.card ?? null;
  const all = card ? Array.from(el.parentElement?.children ?? []) : [];
  return { card, testid: el.dataset.testid ?? null, index: all.indexOf(el) };
}

/**
 * Redraw `board` with `redraw()` and give the focus back to what had it: the same card, else
 * the card now at its place (or the nearest legal one), else the same button. A card played
 * leaves the focus on the hand while no card can be played; when one can again, the card at
 * the place played from (or the nearest), else Draw or Pass. A confirm step that opens takes
 * the focus, on its safe choice, and gives it back to the control that opened it as it closes.
 * @param {HTMLElement} board
 * @param {() => void} redraw
 */
export function keepFocus(board, redraw) {
  const active = document.activeElement;
  const had = active && board.contains(active) ? identify(active) : null;
  // The place in the hand of the card last focused, for when the hand alone holds the focus.
  if (had?.card) board.dataset.place = String(had.index);
  const open = board.querySelector('[role="alertdialog"]');
  // The control that opened the confirm step the focus is in (its `data-opener`).
  const opener = open instanceof HTMLElement && active && open.contains(active) ? open.dataset.opener : null;
  redraw();
  const dialog = board.querySelector('[role="alertdialog"]');
  // A confirm step that opens takes the focus, on its safe choice.
  if (dialog && !open) {
    const safe = dialog.querySelector("[data-safe]") ?? dialog.querySelector("button");
    if (safe instanceof HTMLElement) safe.focus();
    return;
  }
  if (!had) return;
  /** @type {HTMLElement | null} */
  let target = null;
  const suits = picker(board);
  // One that closes gives it back to the control that opened it, where that is still there.
  const back = !dialog && opener ? board.querySelector(`[data-testid="${opener}"]`) : null;
  if (pressable(back)) target = /** @type {HTMLButtonElement} */ (back);
  else if (suits.length && !had.testid?.startsWith("suit-")) target = suits[0]; // a Jack's suit to name
  else if (had.card || had.testid === "hand") {
    const cards = legalCards(board);
    target = cards.find((c) => c.dataset.card === had.card) ?? null;
    if (!target && cards.length) {
      const place = had.card ? had.index : Number(board.dataset.place ?? 0);
      const all = Array.from(board.querySelectorAll('[data-testid="hand"] [data-testid="card"]'));
      const near = all.slice(Math.max(0, place)).find((c) => cards.includes(/** @type {HTMLButtonElement} */ (c)));
      target = /** @type {HTMLElement | null} */ (near ?? cards[cards.length - 1]);
    }
    target ??= moveButtons(board)[0] ?? null;
  }
  if (!target && had.testid) {
    const same = board.querySelector(`[data-testid="${had.testid}"]`);
    if (pressable(same)) target = /** @type {HTMLButtonElement} */ (same);
  }
  target ??= picker(board)[0] ?? legalCards(board)[0] ?? null;
  if (target) {
    target.focus();
    return;
  }
  // The hand holds the focus for its cards, where it is: the page is not scrolled to it (the
  // match's result, once it is over, stays in view).
  const hand = board.querySelector('[data-testid="hand"]');
  if (hand instanceof HTMLElement) hand.focus({ preventScroll: true });
}

/**
 * The focus on the hand: the Jack's suits, else a card that can be played, else Draw or Pass,
 * else the hand itself; false without a hand (a spectator's table).
 * @param {HTMLElement} board
 */
export function focusHand(board) {
  const hand = board.querySelector('[data-testid="hand"]');
  const target = picker(board)[0] ?? legalCards(board)[0] ?? moveButtons(board)[0] ?? hand;
  if (!(target instanceof HTMLElement)) return false;
  target.focus();
  return true;
}

/** A button that does what it says now (not disabled, not dimmed). @param {Element | null} el */
function pressable(el) {
  return el instanceof HTMLButtonElement && !el.disabled && el.getAttribute("aria-disabled") !== "true";
}

/** @param {ParentNode} board */
function legalCards(board) {
  return /** @type {HTMLButtonElement[]} */ (
    Array.from(board.querySelectorAll('[data-testid="hand"] button[data-testid="card"][data-legal="true"]'))
  );
}

/** Draw and Pass, those that can be pressed. @param {ParentNode} board */
function moveButtons(board) {
  return /** @type {HTMLButtonElement[]} */ (
    Array.from(board.querySelectorAll(
      '[data-testid="draw-button"]:not([aria-disabled="true"]), [data-testid="pass-button"]:not([aria-disabled="true"])'))
  );
}

/** @param {ParentNode} board */
function picker(board) {
  return /** @type {HTMLButtonElement[]} */ (
    Array.from(board.querySelectorAll('[data-testid="suit-picker"] button:not([aria-disabled="true"])'))
  );
}

/**
 * Listen for the table's keys while the view is shown; what stops listening.
 * @param {HTMLElement} board the board holding the hand, the suit picker and the move buttons
 * @param {{ cancelJack: () => void }} actions
 * @returns {() => void}
 */
export function tableKeys(board, actions) {
  /** @param {KeyboardEvent} event */
  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
    const target = event.target;
    if (target instanceof HTMLElement &&
        (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
    // A modal dialog over the table (a deal's result) has its own keys.
    if (target instanceof HTMLElement && target.closest('[aria-modal="true"]')) return;
    // While a confirm step is open (Resign's) the keys are its own: Escape is its safe choice,
    // the table's keys do nothing, and Enter or Space on a card of the hand does not play it.
    const dialog = board.querySelector('[role="alertdialog"]');
    if (dialog) {
      const safe = dialog.querySelector("[data-safe]");
      if (event.key === "Escape" && safe instanceof HTMLButtonElement) {
        event.preventDefault();
        safe.click();
      } else if (target instanceof HTMLElement && !target.closest('[role="alertdialog"]') &&
          target.closest('[data-testid="hand"]') && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
      }
      return;
    }
    const suits = picker(board);
    const choices = suits.length ? suits : legalCards(board);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (step !== undefined) {
      if (!choices.length) return;
      event.preventDefault();
      const at = choices.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
      const next = at < 0 ? (step > 0 ? 0 : choices.length - 1) : (at + step + choices.length) % choices.length;
      choices[next].focus();
      return;
    }
    if (event.key === "Escape" && suits.length) {
      event.preventDefault();
      actions.cancelJack();
      return;
    }
    if (event.repeat) return;
    const key = event.key.toLowerCase();
    const button = key === "d" || event.code === "KeyD" ? "draw-button"
      : key === "p" || event.code === "KeyP" ? "pass-button" : null;
    if (!button) return;
    const el = board.querySelector(`[data-testid="${button}"]`);
    if (el instanceof HTMLButtonElement && !el.disabled) {
      event.preventDefault();
      el.click();
    }
  }
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
