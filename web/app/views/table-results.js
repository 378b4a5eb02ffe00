// @ts-check
/**
 * The table's result screens. A deal's: who won and how, each seat's cards left card by card
 * with their penalties (the deal reveal's `cards_left`), the ×3 / ×2 of a last 7 or Jack
 * explained (docs/rules.md R-30, R-31), each deal score and total. The match's: the winner,
 * the places and totals, each player's rating change (their rating history's `change`), and
 * rematch, replay and lobby. Every fact is the server's: nothing here is scored. `MatchEnd`
 * reads them for the table and puts each screen in its place.
 */

import * as api from "../api.js";
import { cardFace, cardName, cardText } from "../cards.js";
import { h, fill } from "../dom.js";
import { decimal, t } from "../i18n.js";
import { onMyEvent } from "../my-events.js";
import { seatName, showError } from "../ui.js";

/** How soon a match over but not settled yet is read again, then each time a little later. */
const SETTLE_FIRST_MS = 5000;
const SETTLE_MAX_MS = 30_000;
/** The /me/events events after which such a match is read again at once: a round dealt (the one
 * before is over), a reconnect. */
const SETTLE_EVENTS = new Set(["tournament_round", "ready", "resync"]);

/**
 * A match over whose result the server does not show yet: a table of a duplicate tournament
 * round that other tables still play (docs/api.md "Secrecy across tables": `place` stays null
 * until every table has finished; a match over has each seat's place otherwise).
 * @param {api.Match} match
 */
export function unsettled(match) {
  return (match.status === "finished" || match.status === "abandoned") && match.seats.some((s) => s.place === null);
}

/**
 * A deal over whose result the server does not show yet (another table still plays it).
 * @param {api.Match["deals"][number] | undefined} summary
 */
function withheld(summary) {
  return summary?.status === "over" && summary.winners.length === 0;
}

/**
 * @param {api.Match} match
 * @param {number} seat
 */
function nameOf(match, seat) {
  return match.seats[seat] ? seatName(match.seats[seat]) : String(seat);
}

/** Deal screens drawn so far: each headline's id its own, where several are shown at once. */
let screensDrawn = 0;

/**
 * @param {api.DealResult} result
 * @param {(card: string) => string} [card] how a card is written (its symbol; `cardName`: said)
 */
function why(result, card = cardText) {
  if (result.reason === "stock_exhausted") return t("result.whyStock");
  // The multiplier is the server's (R-31): the words only name it and the card that made it.
  if (result.multiplier > 1 && result.last_card) {
    return t("result.whyMultiplier", { card: card(result.last_card), m: result.multiplier });
  }
  return t("result.why1");
}

/**
 * A line with a card in it, shown with the card's symbol and said in words ("3♠" is read out
 * as "3 of spades", not as a symbol's name).
 * @param {(card: (code: string) => string) => string} line
 */
function saidInWords(line) {
  return [h("span", { "aria-hidden": "true" }, line(cardText)), h("span", { class: "visually-hidden" }, line(cardName))];
}

/**
 * The keys of a modal dialog: Escape is `close`, Tab and Shift+Tab go round its own controls.
 * @param {KeyboardEvent} event
 * @param {() => void} close
 */
function dialogKeys(event, close) {
  const box = event.currentTarget;
  if (!(box instanceof HTMLElement)) return;
  if (event.key === "Escape") {
    event.preventDefault();
    close();
    return;
  }
  if (event.key !== "Tab") return;
  const controls = /** @type {HTMLElement[]} */ (Array.from(box.querySelectorAll("a[href], button:not(:disabled)")));
  if (!controls.length) return;
  const edge = event.shiftKey ? controls[0] : controls[controls.length - 1];
  if (document.activeElement === edge) {
    event.preventDefault();
    (event.shiftKey ? controls[controls.length - 1] : controls[0]).focus();
  }
}

/**
 * A deal's result screen; over the table (`overlay`) a modal dialog: Escape is its Continue,
 * Tab stays within it.
 * @param {{ match: api.Match, number: number, result: api.DealResult | null,
 *   summary: api.Match["deals"][number] | undefined, reveal: api.DealReveal | null,
 *   totals: number[] | null, you: number | null, overlay: boolean, onContinue?: () => void,
 *   onStay?: () => void }} args `onStay`: the player took the dialog in hand (a key other than
 *   Escape, a pointer): it waits for Continue
 */
export function dealScreen({ match, number, result, summary, reveal, totals, you, overlay, onContinue, onStay }) {
  const winners = result?.winners ?? summary?.winners ?? [];
  const penalties = result?.penalties ?? summary?.penalties ?? [];
  const names = winners.map((w) => (w === you ? t("table.you") : nameOf(match, w))).join(", ");
  // The viewer alone: the verb in the second person (Turkish conjugates it).
  const alone = winners.length === 1 && winners[0] === you;
  const reason = result?.reason ?? summary?.reason;
  const cardsLeft = reveal?.cards_left ?? null;
  const multiplier = result?.multiplier ?? 1;
  // Another table still plays the deal: its cards left, and its replay, come once it is done
  // there too; its result only from the seat's own view of it (`result`), if the page has it.
  const later = withheld(summary) && !reveal?.result;
  const headlineId = `deal-winners-${++screensDrawn}`;
  return h("section", {
    class: `card-panel deal-result result-screen${overlay ? " overlay" : ""}`,
    testid: "deal-result", "data-deal": number, "data-multiplier": result?.multiplier ?? "",
    role: overlay ? "dialog" : "region", "aria-label": t("result.title", { n: number }),
    "aria-modal": overlay ? "true" : null,
    // Its outcome is said with its title (the focus goes to its Continue).
    "aria-describedby": headlineId,
    onkeydown: overlay && onContinue ? (/** @type {KeyboardEvent} */ e) => {
      if (e.key !== "Escape") onStay?.();
      dialogKeys(e, onContinue);
    } : null,
    onpointerdown: overlay ? () => onStay?.() : null,
  },
  h("h2", {}, t("result.title", { n: number })),
  !result && withheld(summary)
    ? h("p", { class: "result-headline", testid: "deal-winners", id: headlineId }, t("result.later"))
    : h("p", { class: "result-headline", testid: "deal-winners", id: headlineId }, reason === "stock_exhausted"
      ? t(alone ? "result.stockYou" : "result.stock", { names })
      : saidInWords((card) => t(alone ? "result.shedYou" : "result.shed",
        { names, card: result?.last_card ? card(result.last_card) : "?" })),
    result && result.multiplier > 1 ? ` · ${t("result.multiplier", { m: result.multiplier })}` : ""),
  result ? h("p", { class: "result-why", testid: "deal-why", "data-multiplier": multiplier },
    saidInWords((card) => why(result, card))) : null,
  h("table", { class: "result-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("result.player")),
      later ? null : h("th", { scope: "col" }, t("result.cards")),
      h("th", { scope: "col" }, t("result.score")),
      totals ? h("th", { scope: "col" }, t("result.total")) : null)),
    h("tbody", {}, penalties.map((points, seat) => {
      const cards = cardsLeft?.[seat] ?? null;
      const hand = result?.hand_penalties?.[seat];
      const won = winners.includes(seat);
      return h("tr", { testid: "deal-seat", "data-seat": seat, "data-penalty": points, class: won ? "won" : "" },
        h("th", { scope: "row" }, nameOf(match, seat), seat === you ? ` (${t("table.you")})` : "",
          won ? ` ★` : ""),
        later ? null : h("td", { class: "left" },
          cards === null ? "…" : cards.length === 0 ? t("result.noCards") :
            h("ul", { class: "left-cards" }, cards.map((c) => h("li", {
              testid: "left-card", "data-card": c.card, "data-points": c.points,
            }, cardFace(c.card), h("span", { class: "points" }, `${c.points}`)))),
          hand !== undefined && cards && cards.length
            ? h("div", { class: "sum" }, result && result.multiplier > 1 && !won
              ? `${hand} × ${result.multiplier} = ${points}` : `= ${hand}`)
            : null),
        h("td", { class: "score", "data-score": points }, String(points)),
        totals ? h("td", { class: "total" }, String(totals[seat] ?? "")) : null);
    }))),
  later ? h("p", { class: "muted", testid: "replay-later" }, t("result.replayLater", { n: number })) : null,
  h("div", { class: "row" },
    later ? null : h("a", { href: `#/replay/${match.id}/${number}`, class: "button", testid: "replay-link" },
      t("table.replay", { n: number })),
    overlay && onContinue
      ? h("button", { type: "button", class: "primary", testid: "deal-continue", onclick: onContinue },
        t("result.continue"))
      : null));
}

/**
 * The match's result screen. A match over whose result the server does not show yet (other
 * tables of its duplicate round still play its deals): it says so, with the totals the seat's
 * own view has (`totals`), no winner or place, and its deals' replays once they may be shown.
 * @param {{ match: api.Match, role: string, you: number | null,
 *   ratings: Map<number, number | null>, onRematch: () => void, next?: string | null,
 *   totals?: number[] | null }} args
 *   `next`: the match's rematch, once someone asked for it (spectators may watch it)
 */
export function matchScreen({ match, role, you, ratings, onRematch, next = null, totals = null }) {
  if (unsettled(match)) return pendingScreen({ match, role, you, totals, onRematch });
  const ranked = match.seats.slice().sort((a, b) => (a.place ?? 99) - (b.place ?? 99));
  /** @type {Record<string, unknown>} */
  const places = {};
  for (const seat of match.seats) places[`data-place-${seat.seat}`] = seat.place ?? "";
  const abandoned = match.status === "abandoned";
  const firsts = match.seats.filter((s) => s.place === 1);
  const youWon = you !== null && firsts.some((s) => s.seat === you);
  const headline = abandoned ? t("table.abandoned")
    : youWon ? t("match.youWon")
      : t("match.winner", { names: firsts.map((s) => seatName(s)).join(", ") });
  return h("section", { class: "card-panel match-result result-screen", testid: "match-result",
    "data-status": match.status, "data-settled": "true", ...places, role: "region",
    "aria-label": t("table.matchResult") },
  h("h2", { tabIndex: -1 }, t("table.matchResult")),
  h("p", { class: `result-headline${youWon ? " you-won" : ""}`, testid: "match-winner",
    "data-winners": firsts.map((s) => s.seat).join(" ") }, headline),
  h("ol", { class: "places" }, ranked.map((seat) => {
    const change = ratings.get(seat.seat);
    return h("li", { "data-seat": seat.seat, testid: "match-place" },
      h("span", { class: "place-name" },
        t("table.place", { place: seat.place ?? "–", name: seatName(seat), total: seat.total }),
        seat.seat === you ? ` (${t("table.you")})` : "",
        seat.resigned ? ` · ${t(seat.absent ? "table.absent" : "table.resigned")}` : ""),
      // An abandoned match's places count for the ratings too (docs/rules.md "Abandoned").
      change === undefined ? null : h("span", {
        class: `rating-change${change !== null && change < 0 ? " down" : " up"}`, testid: "rating-change",
        "data-change": change ?? "",
      }, change === null ? t("match.ratingPending")
        : t("match.rating", { change: decimal(change, 2, { sign: true }) })));
  })),
  h("div", { class: "row result-actions" },
    role === "seat" && !abandoned ? h("button", { type: "button", class: "primary", testid: "rematch-button",
      onclick: onRematch }, t("table.rematch")) : null,
    role !== "seat" && next ? h("a", { href: `#/match/${next}`, class: "button primary", testid: "watch-rematch-link" },
      t("match.watchRematch")) : null,
    ...replayLinks(match, () => true),
    ...leaveLinks(role)));
}

/**
 * A replay link for each deal nobody plays any more (an abandoned match's deal that was being
 * played too, up to where it stopped: docs/api.md, `deals[]` of `<match>`) that `shown` lets
 * through.
 * @param {api.Match} match
 * @param {(deal: api.Match["deals"][number]) => boolean} shown
 */
function replayLinks(match, shown) {
  return match.deals.filter((d) => (d.status === "over" || d.status === "abandoned") && shown(d)).map((d) =>
    h("a", { href: `#/replay/${match.id}/${d.number}`, class: "button", testid: "match-replay-link",
      "data-deal": d.number, "data-deal-status": d.status },
    t(d.status === "abandoned" ? "table.replayUnfinished" : "table.replay", { n: d.number })));
}

/** The lobby, and a new match for a seated player. @param {string} role */
function leaveLinks(role) {
  return [
    h("a", { href: "#/lobby", class: "button", testid: "lobby-link" }, t("match.lobby")),
    role === "seat" ? h("a", { href: "#/lobby", class: "button", testid: "new-match-link" },
      t("table.newMatch")) : null,
  ];
}

/**
 * The match's screen while other tables of its round still play its deals: over here, its
 * result to come.
 * @param {{ match: api.Match, role: string, you: number | null, totals: number[] | null,
 *   onRematch: () => void }} args
 */
function pendingScreen({ match, role, you, totals, onRematch }) {
  const hidden = match.deals.filter(withheld);
  return h("section", { class: "card-panel match-result result-screen", testid: "match-result",
    "data-status": match.status, "data-settled": "false", role: "region", "aria-label": t("table.matchResult") },
  h("h2", { tabIndex: -1 }, t("table.matchResult")),
  h("p", { class: "result-headline", testid: "match-winner", "data-winners": "" }, t("match.overHere")),
  h("p", { class: "result-why", testid: "match-pending", role: "status" }, t("match.resultsLater")),
  // The seat's own view has the table's totals (the seats' boxes show them); a place has none.
  totals ? h("ul", { class: "places", "aria-label": t("match.tableTotals") }, match.seats.map((seat) =>
    h("li", { "data-seat": seat.seat, testid: "match-place", "data-total": totals[seat.seat] ?? "" },
      h("span", { class: "place-name" },
        t("match.tableTotal", { name: seatName(seat), total: totals[seat.seat] ?? "" }),
        seat.seat === you ? ` (${t("table.you")})` : "",
        seat.resigned ? ` · ${t(seat.absent ? "table.absent" : "table.resigned")}` : "")))) : null,
  hidden.length ? h("p", { class: "muted", testid: "match-replay-later" }, t("match.replayLater")) : null,
  h("div", { class: "row result-actions" },
    role === "seat" && match.status === "finished" ? h("button", { type: "button", class: "primary",
      testid: "rematch-button", onclick: onRematch }, t("table.rematch")) : null,
    ...replayLinks(match, (d) => !withheld(d)),
    ...leaveLinks(role)));
}

/** The rows of a player's history read for a match's row: its first page's, then the next's. */
const HISTORY_FIRST = 10;
const HISTORY_MORE = 45;

/**
 * A player's rating change by the match: its row of the player's history (newest first, by
 * `finished_at`), read page by page as far as the match or HISTORY_FIRST + HISTORY_MORE rows.
 * null while the match is not settled yet (no row at its place); undefined when the player
 * has played more matches since than that (nothing to say), or the history cannot be read.
 * @param {string} playerId
 * @param {api.Match} match
 * @returns {Promise<number | null | undefined>}
 */
async function changeBy(playerId, match) {
  const finished = match.finished_at ? Date.parse(match.finished_at) : NaN;
  /** @type {string | undefined} */
  let cursor;
  for (const limit of [HISTORY_FIRST, HISTORY_MORE]) {
    const page = await api.history(playerId, { limit, cursor });
    for (const row of page.results) {
      // A private match the viewer may not see has no id (`match: null`): another's.
      if (row.match === match.id) return row.change ?? null;
      // Past where the match's row would be: it is not there yet.
      if (Date.parse(row.finished_at) < finished) return null;
    }
    if (!page.next) return null;
    cursor = new URL(page.next, location.href).searchParams.get("cursor") ?? undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}

/**
 * Each seat's rating change by the match (its player's rating history): null while the match
 * is not settled yet; no entry for a seat whose change is not known (see `changeBy`). The
 * changes in `known` are kept as they are, not read again.
 * @param {api.Match} match
 * @param {Map<number, number | null>} [known]
 * @returns {Promise<Map<number, number | null>>}
 */
export async function ratingChanges(match, known = new Map()) {
  /** @type {Map<number, number | null>} */
  const changes = new Map();
  await Promise.all(match.seats.map(async (seat) => {
    if (!seat.player) return;
    const had = known.get(seat.seat);
    if (had !== undefined && had !== null) {
      changes.set(seat.seat, had);
      return;
    }
    try {
      const change = await changeBy(seat.player.id, match);
      if (change !== undefined) changes.set(seat.seat, change);
    } catch {
      // The places stand without it.
    }
  }));
  return changes;
}

/**
 * The table's end screens: each deal's result read once it is over (its reveal: the cards
 * left), the players' rating changes once the match is, and where the screens go: the match's
 * first on the page, a deal's that has just ended over the table, the last deal's below it.
 */
export class MatchEnd {
  /**
   * @param {string} matchId
   * @param {"seat" | "spectator"} role
   * @param {{ redraw: () => void, skip: () => void, pin: () => void, stopped: () => boolean,
   *   focus: () => void, holdsFocus: () => boolean, settled: (match: api.Match) => Promise<void> }} table
   *   `pin`: a deal's result stays until its Continue (the player reads it: a key or a pointer
   *   in it); `focus`: the focus back on the table (a deal's result over it closed); `holdsFocus`: the
   *   focus is on the table (its hand, its heading); `settled`: the match read once its result
   *   is shown (see `awaitSettlement`), for the table to take and draw
   */
  constructor(matchId, role, table) {
    this.matchId = matchId;
    this.role = role;
    this.table = table;
    /** @type {Map<number, api.DealResult>} */
    this.results = new Map();
    /** @type {Map<number, api.DealReveal>} each deal's reveal once over (its cards left) */
    this.reveals = new Map();
    /** @type {Map<number, number | null> | null} each seat's rating change, once the match is over */
    this.ratings = null;
    /** the deal whose result screen was put away (Continue) */
    this.dismissed = 0;
    /** whether a frame was drawn with the match under way: its end is then brought into view */
    this.playing = false;
    /** @type {string | null} the match's rematch, once someone asked for it (read again) */
    this.nextMatch = null;
    /** the finished match is read again for its rematch (a spectator's page) */
    this.following = false;
    /** the match over is read again until its result is shown (see `awaitSettlement`) */
    this.settling = false;
    // The match's result screen comes first on the page once it is over.
    this.top = h("div", { class: "result-top" });
    this.below = h("div", { class: "end" });
  }

  /** @param {number} deal @returns {api.DealResult | null} */
  resultOf(deal) {
    return this.results.get(deal) ?? null;
  }

  /**
   * The newest deal over's reveal, and once the match is over its ratings.
   * @param {() => api.Match} match the match's summary as the table has it now
   */
  async load(match) {
    const summary = match();
    // A deal another table still plays has no result to read yet (its reveal withholds it).
    const over = summary.deals.filter((d) => d.status === "over" && !this.results.has(d.number) && !withheld(d));
    for (const d of over.slice(-1)) {
      try {
        const reveal = await api.deal(this.matchId, d.number);
        if (reveal.result) this.results.set(d.number, reveal.result);
        this.reveals.set(d.number, reveal);
      } catch {
        // The summary of the match still tells the winners and penalties.
      }
    }
    if (unsettled(summary)) {
      // Not settled before every table of the round has finished: no rating changes yet.
      this.awaitSettlement();
    } else if ((summary.status === "finished" || summary.status === "abandoned") && this.ratings === null) {
      this.ratings = new Map();
      this.loadRatings(match);
    }
    if (summary.status === "finished" && this.role !== "seat" && !summary.next_match) this.followRematch();
  }

  /**
   * A spectator's page of a finished match: the match read again (more seldom as time goes by,
   * not while the page is hidden) until someone has asked for its rematch, which may then be
   * watched. Its stream has closed with the match: nothing else would tell.
   */
  async followRematch() {
    if (this.following) return;
    this.following = true;
    for (let attempt = 0; !this.table.stopped(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(60_000, 4000 * 1.5 ** attempt)));
      if (this.table.stopped()) return;
      if (document.hidden) continue;
      try {
        const summary = await api.match(this.matchId);
        if (summary.next_match) {
          this.nextMatch = summary.next_match;
          if (!this.table.stopped()) this.table.redraw();
          return;
        }
      } catch {
        // Read again later.
      }
    }
  }

  /**
   * A match over here whose result waits for the other tables of its duplicate round: read
   * again (a little more seldom each time, not while the page is hidden, at once when the
   * player's events tell of a round dealt or a reconnect) until it shows its places; then the
   * table takes it, and its deals' results and the rating changes are read.
   */
  async awaitSettlement() {
    if (this.settling) return;
    this.settling = true;
    /** @type {() => void} */
    let wake = () => {};
    const stopListening = onMyEvent((name) => { if (SETTLE_EVENTS.has(name)) wake(); });
    try {
      for (let attempt = 0; !this.table.stopped(); attempt++) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, Math.min(SETTLE_MAX_MS, SETTLE_FIRST_MS * 1.2 ** attempt));
          wake = () => { clearTimeout(timer); resolve(undefined); };
        });
        if (this.table.stopped()) return;
        if (document.hidden) continue;
        /** @type {api.Match} */
        let summary;
        try {
          summary = await api.match(this.matchId);
        } catch {
          continue; // read again later
        }
        if (!unsettled(summary)) {
          if (!this.table.stopped()) await this.table.settled(summary);
          return;
        }
      }
    } finally {
      stopListening();
      this.settling = false;
    }
  }

  /**
   * Each player's rating change by the match: its settlement may follow its end by a moment.
   * @param {() => api.Match} match
   */
  async loadRatings(match) {
    for (let attempt = 0; attempt < 6 && !this.table.stopped(); attempt++) {
      this.ratings = await ratingChanges(match(), this.ratings ?? new Map());
      this.table.redraw();
      if (![...this.ratings.values()].some((c) => c === null)) return;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
    }
  }

  /**
   * The screens for the frame on screen.
   * @param {{ match: api.Match, view: api.State, real: boolean, newest: boolean, latest: api.State | null }} args
   *   `real`: the frame is a view the server sent; `newest`: the newest one; `latest`: the
   *   newest view the server sent
   */
  draw({ match, view: v, real, newest, latest }) {
    const over = match.deals.filter((d) => d.status === "over");
    const last = over[over.length - 1];
    const matchOver = match.status === "finished" || match.status === "abandoned";
    // A deal that has just ended (its last move on screen): its result over the table.
    const ending = v.phase === "deal_over" && v.deal !== null && v.status === "active" && !(newest && matchOver);
    /** @type {HTMLElement | null} */
    let dealBox = null;
    const number = ending ? /** @type {number} */ (v.deal) : last?.number ?? 0;
    if (number && (ending || last)) {
      // The seat's own view tells its deal's result (the match's summary may withhold it while
      // other tables still play the deal).
      const result = (ending && v.result ? v.result : this.results.get(number)) ??
        (real && v.deal === number ? v.result : null) ?? null;
      // The totals after the deal are the server's once it has scored it: a deal's ending view
      // still has those before it (the scoring is the next version), the newest view of the
      // next deal (or of the match it finished) those after.
      const scored = latest !== null && (latest.deal === number + 1 ||
        (latest.deal === number && latest.status === "finished"));
      dealBox = dealScreen({
        match, number, result, summary: match.deals.find((d) => d.number === number),
        reveal: this.reveals.get(number) ?? null,
        totals: real && !ending ? v.totals : ending && scored ? /** @type {api.State} */ (latest).totals : null,
        you: v.you, overlay: ending && this.dismissed !== number,
        onContinue: () => { this.dismissed = number; this.table.skip(); this.table.redraw(); },
        onStay: () => this.table.pin(),
      });
    }
    /** @type {HTMLElement | null} */
    let matchBox = null;
    if (v.status === "finished" || v.status === "abandoned" || (newest && matchOver)) {
      matchBox = matchScreen({
        match, role: this.role, you: v.you, ratings: this.ratings ?? new Map(), onRematch: () => this.rematch(),
        next: match.next_match ?? this.nextMatch, totals: latest?.totals ?? null,
      });
    }
    const overlaid = dealBox?.classList.contains("overlay") ?? false;
    // A deal's result over the table takes the focus as it comes (on Continue), keeps it across
    // redraws and gives it back to the table as it goes.
    const shown = this.top.querySelector(".overlay");
    const active = document.activeElement;
    const focused = shown && active instanceof HTMLElement && shown.contains(active) ? active.dataset.testid : null;
    // The match's result takes the focus as it comes, where the focus was on the table (never
    // from what the player does elsewhere on the page), and keeps it across redraws.
    const had = this.top.querySelector('[data-testid="match-result"]');
    const inMatch = had && active instanceof HTMLElement && had.contains(active) ? active : null;
    const fromTable = !had && (focused !== null || this.table.holdsFocus());
    fill(this.top, matchBox, overlaid ? dealBox : null);
    fill(this.below, overlaid ? null : dealBox);
    if (overlaid && dealBox && (!shown || focused !== null)) {
      const again = focused ? dealBox.querySelector(`[data-testid="${focused}"]`) : null;
      const target = again ?? dealBox.querySelector('[data-testid="deal-continue"]');
      if (target instanceof HTMLElement) target.focus();
    } else if (matchBox && (inMatch || fromTable)) {
      const deal = inMatch?.dataset.deal;
      const again = inMatch?.dataset.testid
        ? matchBox.querySelector(`[data-testid="${inMatch.dataset.testid}"]${deal ? `[data-deal="${deal}"]` : ""}`)
        : null;
      const target = again ?? matchBox.querySelector("h2");
      if (target instanceof HTMLElement) target.focus({ preventScroll: true });
    } else if (!overlaid && focused !== null) {
      this.table.focus();
    }
    // The match ends while it is watched (its last move, a resignation): its result, first on
    // the page, is scrolled to, wherever the table was scrolled.
    if (matchBox && this.playing) matchBox.scrollIntoView({ block: "start" });
    this.playing = !matchBox;
  }

  async rematch() {
    try {
      // Asked second, the caller is seated in the rematch the first asked for (the server's).
      const next = await api.rematch(this.matchId);
      location.hash = `#/match/${next.id}`;
    } catch (error) {
      showError(error);
    }
  }
}
