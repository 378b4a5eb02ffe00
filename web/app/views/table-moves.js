// @ts-check
/**
 * The match's moves as the table reads them (GET …/moves): every entry read, by seq; the
 * table as each move left it (its `after`, the page's own hand followed card by card); and the
 * shown deal's log as far as the frame on screen.
 */

import * as api from "../api.js";

export class MoveBook {
  /** @param {string} matchId */
  constructor(matchId) {
    this.matchId = matchId;
    /** @type {Map<number, api.MoveEntry>} every move read, by seq */
    this.known = new Map();
    /** the highest seq read (0: none) */
    this.lastSeq = 0;
    /** moves of deals before this one are not wanted */
    this.floorDeal = 0;
    /** @type {api.MoveEntry[]} the shown deal's moves, as far as shown */
    this.log = [];
    this.logDeal = 0;
  }

  /** The moves after the last one read (of this deal or a later one). */
  async readMoves() {
    try {
      const entries = await api.moveLog(this.matchId, { after_seq: this.lastSeq });
      for (const entry of entries) {
        if (entry.deal < this.floorDeal) continue;
        this.known.set(entry.seq, entry);
        this.lastSeq = Math.max(this.lastSeq, entry.seq);
      }
    } catch {
      // A move log this caller may not read (an older server's spectator): the table stands.
    }
  }

  /** @param {api.State} shown the view shown at once: its deal's log from its first move */
  async loadDeal(shown) {
    this.known.clear();
    this.log = [];
    this.logDeal = shown.deal ?? 0;
    this.floorDeal = this.logDeal;
    this.lastSeq = 0;
    if (shown.deal === null) return;
    try {
      const entries = await api.moveLog(this.matchId, { deal: shown.deal });
      for (const entry of entries) {
        this.known.set(entry.seq, entry);
        this.lastSeq = Math.max(this.lastSeq, entry.seq);
      }
    } catch {
      // as readMoves
    }
  }

  /** @param {number} version @returns {api.MoveEntry | null} */
  entryAt(version) {
    for (const entry of this.known.values()) if (entry.version === version) return entry;
    return null;
  }

  /** A move of `seat` in `deal` has been read. @param {number} seat @param {number} deal */
  moved(seat, deal) {
    return Array.from(this.known.values()).some((e) => e.seat === seat && e.deal === deal);
  }

  /**
   * The table as a move left it: its public facts (`after`), the page's own hand followed
   * card by card (back from the newest view within its deal, forward from the previous frame).
   * @param {api.MoveEntry} entry
   * @param {api.State} previous
   * @param {api.State} next
   * @param {api.DealResult | null} result the deal's, once read
   * @returns {api.State}
   */
  moveView(entry, previous, next, result) {
    const after = /** @type {NonNullable<api.MoveEntry["after"]>} */ (entry.after);
    const you = next.you;
    let hand = previous.deal === entry.deal ? previous.hand.slice() : [];
    if (you !== null && entry.deal === next.deal && next.deal !== null) {
      hand = next.hand.slice();
      for (const later of this.known.values()) {
        if (later.seat !== you || later.deal !== entry.deal || (later.version ?? 0) <= (entry.version ?? 0) ||
            (later.version ?? 0) > next.version) continue;
        if (later.action === "play" && later.card) hand.push(later.card);
        for (const card of later.drawn ?? []) hand.splice(hand.indexOf(card), 1);
      }
    } else if (you !== null && entry.seat === you && previous.deal === entry.deal) {
      if (entry.action === "play" && entry.card) hand.splice(hand.indexOf(entry.card), 1);
      hand.push(...(entry.drawn ?? []));
    }
    return {
      ...previous,
      ...after,
      penalty_cards: after.penalty_cards ?? 0,
      version: /** @type {number} */ (entry.version),
      status: "active",
      deal: entry.deal,
      hand,
      legal_moves: [],
      result: after.phase === "deal_over" ? result : null,
      turn_deadline: null,
    };
  }

  /**
   * The log as far as the frame on screen: each move appended as it is shown.
   * @param {api.State} view the frame on screen
   * @param {boolean} real it is the newest view (not a move being played out)
   */
  showUpTo(view, real) {
    const upTo = view.version;
    const entries = Array.from(this.known.values()).sort((a, b) => a.seq - b.seq);
    const last = this.log.length ? this.log[this.log.length - 1].seq : 0;
    for (const entry of entries) {
      if (entry.seq <= last || entry.deal < this.logDeal) continue;
      if (!real && (entry.version === null || entry.version > upTo)) break;
      if (real && entry.version !== null && entry.version > upTo) break;
      if (entry.deal !== this.logDeal) {
        this.log = [];
        this.logDeal = entry.deal;
      }
      this.log.push(entry);
    }
    if (view.deal !== null && view.deal > this.logDeal && !entries.some((e) => e.deal === view.deal)) {
      this.log = [];
      this.logDeal = view.deal;
    }
  }
}
