// @ts-check
/**
 * The table's moves played out one at a time. A stream event may tell a version several moves
 * past the one on screen (bots answer within milliseconds); the moves in between come from the
 * move log, whose entries carry the match's `version` after each move and the table's public
 * facts then (`after`). Each version is shown in turn: the card travels from the seat to the
 * pile (or a card's back from the stock to the seat) at the page's pace, faster while several
 * wait; a click on the table finishes the frames queued by then at once (each version still
 * drawn, without travel), and those queued after it are played out as usual. With `prefers-reduced-motion` nothing travels and each version is shown briefly.
 *
 * The pace is `localStorage["pisyedili.pace"]`: the milliseconds of one move (default 400). A held
 * frame (a deal's result over the table) stays HOLD_MOVES moves' time, or less where the hook says
 * so; a click (its Continue) ends it sooner. Reading takes as long with reduced motion.
 */

import { cardBack, cardFace } from "../cards.js";
import { h } from "../dom.js";

/** One move's time, ms, unless the page's pace says otherwise. */
export const DEFAULT_PACE = 400;

/** How many moves' time a held frame stays: 8 s at the default pace, to read a deal's result. */
export const HOLD_MOVES = 20;

/** The pace of this page: ms per move (localStorage `pisyedili.pace`, else DEFAULT_PACE). */
export function pace() {
  let stored = null;
  try {
    stored = localStorage.getItem("pisyedili.pace");
  } catch {
    // storage refused: the default
  }
  const ms = Number(stored);
  return stored !== null && Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_PACE;
}

function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * @template F
 * @typedef {object} PlaybackHooks
 * @property {(frame: F) => void} show draw one frame (synchronously)
 * @property {(frame: F) => { from: Element | null, to: Element | null, card: string | null } | null} travel
 *   what travels for a frame: from where to where, the card's face (null: its back)
 * @property {(frame: F) => number | false} [hold] a frame that waits longer (a deal's result):
 *   the longest it may wait, ms (Infinity: HOLD_MOVES moves' time; 0: not at all), or false
 */

/** @template F */
export class Playback {
  /**
   * @param {HTMLElement} table the element a click on which skips ahead
   * @param {PlaybackHooks<F>} hooks
   */
  constructor(table, hooks) {
    this.table = table;
    this.hooks = hooks;
    /** @type {F[]} */
    this.queue = [];
    this.running = false;
    /** how many frames at the head of the queue are shown at once, without travel or wait */
    this.atOnce = 0;
    /** @type {(() => void) | null} ends the current wait early */
    this.wake = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} ends the current wait in time */
    this.timer = undefined;
    /** @type {Animation[]} */
    this.flying = [];
    this.stopped = false;
    this.onClick = () => {
      if (this.queue.length || this.flying.length) this.skip();
    };
    table.addEventListener("click", this.onClick, true);
  }

  /** Frames waiting (the current one excluded). */
  get waiting() {
    return this.queue.length;
  }

  /**
   * @param {F[]} frames shown in order after those queued
   * @param {boolean} [now] these too are shown at once (after those waiting), without travel
   */
  push(frames, now = false) {
    this.queue.push(...frames);
    if (now) this.atOnce = this.queue.length;
    if (!this.running) this.run();
  }

  /**
   * The current wait (a deal's result being read) ends only when skipped (its Continue), not
   * in time: the player took it in hand (WCAG 2.2.1).
   */
  pin() {
    clearTimeout(this.timer);
  }

  /** Every frame waiting now is shown at once, without travel (not those pushed later). */
  skip() {
    this.atOnce = this.queue.length;
    for (const animation of this.flying) animation.finish();
    this.wake?.();
  }

  async run() {
    this.running = true;
    try {
      while (this.queue.length && !this.stopped) {
        const frame = /** @type {F} */ (this.queue.shift());
        this.hooks.show(frame);
        if (this.atOnce > 0) {
          this.atOnce -= 1;
          continue;
        }
        const base = pace();
        const hold = this.hooks.hold?.(frame) ?? false;
        // Faster while several wait: 400 ms alone, 280 ms with two behind, 130 ms with nine.
        const behind = Math.max(1, this.queue.length);
        let ms;
        if (hold !== false) {
          ms = Math.min(base * HOLD_MOVES, hold); // read, not watched: as long with reduced motion
        } else {
          ms = base / Math.min(3, Math.sqrt(behind));
          if (reducedMotion()) ms = Math.min(ms, 120);
          else this.fly(frame, ms * 0.85);
        }
        // The next frame waits its turn; a frame that travels is seen to land.
        await this.wait(ms);
      }
    } finally {
      this.running = false;
      this.atOnce = 0;
    }
  }

  /** @param {number} ms */
  wait(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.timer = timer;
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve(undefined);
      }
      this.wake = done;
    });
  }

  /**
   * The frame's card from its seat to the pile (or from the stock to the seat).
   * @param {F} frame
   * @param {number} ms
   */
  fly(frame, ms) {
    const path = this.hooks.travel(frame);
    if (!path || !path.from || !path.to || ms < 40 || typeof Element.prototype.animate !== "function") return;
    const a = path.from.getBoundingClientRect();
    const b = path.to.getBoundingClientRect();
    if (!a.width || !b.width) return;
    const width = 56;
    const x0 = a.left + a.width / 2 - width / 2;
    const y0 = a.top + a.height / 2 - 40;
    const x1 = b.left + b.width / 2 - width / 2;
    const y1 = b.top + b.height / 2 - 40;
    const card = h("div", { class: "flying-card", testid: "flying-card", "aria-hidden": "true" },
      path.card ? cardFace(path.card) : cardBack());
    card.style.left = `${x0}px`;
    card.style.top = `${y0}px`;
    document.body.append(card);
    const animation = card.animate([
      { transform: "translate(0, 0) scale(0.8)", opacity: 0.6 },
      { transform: `translate(${x1 - x0}px, ${y1 - y0}px) scale(1)`, opacity: 1 },
    ], { duration: ms, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" });
    this.flying.push(animation);
    const gone = () => {
      card.remove();
      this.flying = this.flying.filter((x) => x !== animation);
    };
    animation.onfinish = gone;
    animation.oncancel = gone;
  }

  stop() {
    this.stopped = true;
    this.queue = [];
    this.skip();
    this.table.removeEventListener("click", this.onClick, true);
  }
}
