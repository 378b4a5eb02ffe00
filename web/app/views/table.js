// @ts-check
/**
 * #/match/<id>: the table, for a seated player (their hand, legal cards to click, draw and
 * pass) or a spectator (the public view: no hand). Every change arrives on the match's event
 * stream (no polling); after a lost connection the stream resumes from the last version seen.
 * A refused move (409 stale_version, 422, a network error) shows a clear message and reloads
 * the state. A seat may resign (after a confirm step): a bot plays it from then on; the stream's
 * `resigned` event tells the others. Nothing of the state is stored: it lives in this view only.
 */

import * as api from "../api.js";
import { cardFace, cardBack, cardText, rankOf, suitOf, SUIT_SYMBOL, SUIT_COLOUR } from "../cards.js";
import { h, fill } from "../dom.js";
import { recordCommitment, recordHand } from "../fairness.js";
import { t } from "../i18n.js";
import { LiveStream } from "../live.js";
import { currentPlayer, hideError, isOffline, seatName, showError } from "../ui.js";
import { announcer, keepFocus, tableKeys } from "./table-keys.js";
import { privatePanel } from "./private.js";
import { Playback } from "./table-play.js";
import { turnCue } from "./table-cue.js";
import { dealScreen, matchScreen, ratingChanges } from "./table-results.js";

const SUITS = ["C", "D", "H", "S"];
/** Table talk's preset phrases (POST …/talk), shown in the page's language. */
const PHRASES = /** @type {const} */ (["good_game", "well_played", "oops", "your_turn"]);
/** Phrases heard, at most this many shown (the newest last). */
const TALK_SHOWN = 6;

function newKey() {
  return typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

/**
 * The move log in words: "Ayşe played 7♠ — you draw 3 or answer with a 7".
 * @param {api.MoveEntry[]} entries one deal's entries, in order
 * @param {api.Match} match
 * @param {api.State | null} view
 * @returns {string[]}
 */
export function describeMoves(entries, match, view) {
  const rules = /** @type {Record<string, unknown>} */ (match.rules ?? {});
  const seats = match.seats.length;
  const suppressed = rules.opening === "club_round" ? seats : 1; // no effect
  let plays = 0;
  let sevens = 0;
  return entries.map((entry, i) => {
    const seat = match.seats[entry.seat];
    const name = entry.seat === view?.you ? t("table.you") : seat ? seatName(seat) : String(entry.seat);
    let text;
    if (entry.action === "play" && entry.card) {
      plays += 1;
      text = t("log.played", { name, card: cardText(entry.card) });
      const rank = rankOf(entry.card);
      if (plays > suppressed) {
        if (rank === "7") {
          sevens += 1;
          const cards = rules.seven_chain_growth === "doubling" ? 3 * 2 ** (sevens - 1) : 3 * sevens;
          const last = i === entries.length - 1;
          const you = last && view !== null && view.you !== null && view.turn === view.you &&
            view.pending_sevens > 0;
          text += t(you ? "log.sevenYou" : "log.sevenNext", { n: cards });
        } else if (rank === "J" && entry.suit) {
          text += t("log.jack", { suit: SUIT_SYMBOL[entry.suit] ?? entry.suit });
        } else if (rank === "8" || (rank === "A" && rules.ace_mode === "skip_next") ||
                   (rank === "10" && seats === 2 && rules.two_player_reverse === "skip")) {
          text += t("log.eight");
        } else if (rank === "10" && seats > 2) {
          text += t("log.ten");
        } else if (rank === "A") {
          text += t("log.ace");
        }
      } else if (rank === "J" && entry.suit) {
        text += t("log.jack", { suit: SUIT_SYMBOL[entry.suit] ?? entry.suit });
      }
    } else if (entry.action === "draw") {
      sevens = 0;
      text = entry.drawn_count === 1 ? t("log.drew", { name }) : t("log.drewN", { name, n: entry.drawn_count });
      // A player's own drawn cards only: another seat's never reach the page.
      if (entry.seat === view?.you && entry.drawn && entry.drawn.length) {
        text += ` (${entry.drawn.map(cardText).join(", ")})`;
      }
    } else {
      text = t("log.passed", { name });
    }
    if (entry.by_bot && seat?.player && !seat.player.is_bot) {
      // A person's seat: the turn clock's move, or the bot's once they resigned.
      text += seat.resigned ? t("log.resigned") : t("log.clock");
    }
    return text;
  });
}

/**
 * @param {HTMLElement} root
 * @param {string} matchId
 */
export async function tableView(root, matchId) {
  const player = await currentPlayer();
  let match = await api.match(matchId);
  const role = player && match.seats.some((s) => s.player?.id === player.id) ? "seat" : "spectator";
  /** @type {api.State | null} the view on screen (a move played out, or the newest) */
  let view = null;
  /** @type {api.State | null} the newest view the server sent */
  let latest = null;
  /** @type {api.State | null} the view of the last frame queued, and its version */
  let queued = null;
  /** @type {api.MoveEntry[]} the shown deal's moves, as far as shown */
  let log = [];
  let logDeal = 0;
  /** @type {Map<number, api.MoveEntry>} every move read, by seq */
  const known = new Map();
  /** the highest seq read (0: none); moves of deals before `floorDeal` are not wanted */
  let lastSeq = 0;
  let floorDeal = 0;
  /** the frame on screen is the newest view (not a move being played out) */
  let real = true;
  /** @type {Promise<unknown>} frames are built one view after another */
  let building = Promise.resolve();
  let busy = false;
  /** @type {string | null} the Jack waiting for its suit */
  let jack = null;
  /** @type {Map<number, api.DealResult>} */
  const results = new Map();
  /** @type {Map<number, api.DealReveal>} each deal's reveal once over (its cards left) */
  const reveals = new Map();
  /** @type {Map<number, number | null> | null} each seat's rating change, once the match is over */
  let ratings = null;
  /** the deal whose result screen was put away (Continue) */
  let dismissed = 0;
  let stopped = false;
  /** the confirm step of "Resign" is open */
  let confirming = false;
  /** @type {{ seat: number, phrase: string }[]} table talk heard on the stream, oldest first */
  const heard = [];
  /** @type {LiveStream | null} the match's stream, a WebSocket that takes the moves */
  let stream = null;

  const table = h("section", { class: "table", testid: "table", "data-role": role, "data-match-id": matchId });
  const status = h("span", { class: "connection", testid: "connection-status", "data-state": "reconnecting" },
    t("table.reconnecting"));
  const board = h("div", { class: "board" });
  const logList = h("ol", { class: "move-log", testid: "move-log" });
  // Moves read out as they come (screen readers), and the table's keys (table-keys.js).
  const speech = announcer();
  /** the last move read out: its deal and seq (what the page showed first is not read) */
  let spoken = { deal: 0, seq: -1 };
  let wasYourTurn = false;
  const cue = turnCue();
  const endBox = h("div", { class: "end" });
  // The match's result screen comes first on the page once it is over.
  const resultTop = h("div", { class: "result-top" });
  const noticeBox = h("p", { class: "notice", testid: "resign-notice", hidden: true });
  const privateBox = h("div", { class: "private-box" });
  const talkLines = h("ul", { class: "talk-lines", testid: "talk-lines" });
  const talkPanel = h("section", { class: "card-panel talk-panel", testid: "talk" },
    h("h2", {}, t("talk.title")),
    role === "seat"
      ? h("div", { class: "row talk-buttons" }, PHRASES.map((phrase) => h("button", {
        type: "button", testid: `talk-${phrase}`, onclick: () => say(phrase),
      }, t(`talk.${phrase}`))))
      : null,
    talkLines);
  table.append(
    h("h1", { class: "visually-hidden" }, t("table.title")),
    h("div", { class: "table-head" },
      h("a", { href: "#/lobby" }, t("table.back")), role === "seat" ? cue.controls : null, status),
    noticeBox,
    speech.region,
    privateBox,
    resultTop,
    board,
    endBox,
    talkPanel,
    h("section", { class: "card-panel log-panel" }, h("h2", {}, t("table.log")), logList),
  );
  // Shown once drawn with its state and log (nothing then moves under the player's eyes), or
  // after a while without them (a server that does not answer yet).
  const showTable = () => root.append(table);
  const showing = setTimeout(showTable, 1500);

  const clock = setInterval(() => drawClock(), 1000);

  function drawClock() {
    const el = table.querySelector('[data-testid="turn-clock"]');
    if (!(el instanceof HTMLElement)) return;
    const deadline = view?.turn_deadline ?? null;
    if (!deadline || view?.status !== "active") {
      el.textContent = t("table.noClock");
      el.dataset.seconds = "";
      return;
    }
    const seconds = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    el.textContent = t("table.clock", { s: seconds });
    el.dataset.seconds = String(seconds);
  }

  /**
   * @typedef {{ view: api.State, entry: api.MoveEntry | null, real: boolean }} Frame
   * A version to show: a move played out (its entry's public facts) or a view the server sent.
   */

  /**
   * @param {api.State} next
   * @param {boolean} [own] the answer to the page's own move: shown as soon as it is built
   */
  async function apply(next, own = false) {
    if (stopped) return;
    if (latest && next.version < latest.version && next.match === latest.match) return;
    const before = latest;
    latest = next;
    const changed = !before || next.deal !== before.deal || next.status !== before.status ||
      next.phase !== before.phase || next.totals.join() !== before.totals.join() ||
      match.seats.some((s) => s.player === null);
    // The deal's commitment as shown from its start, kept for its replay's check (fairness.js).
    // While it is played only: once it is over its seed is out, and a record proves nothing.
    const playing = next.status === "active" && next.phase !== "deal_over" && next.phase !== "match_over";
    if (playing && next.deal !== null && next.commitment) {
      recordCommitment(matchId, next.deal, next.commitment, next.you);
    }
    const built = building.then(() => build(next, before === null, own));
    building = built.catch(() => {});
    if (changed) {
      try {
        match = await api.match(matchId);
      } catch (error) {
        showError(error);
      }
      await loadResults();
      if ((match.status === "finished" || match.status === "abandoned") && ratings === null) {
        ratings = new Map();
        loadRatings();
      }
      draw();
    }
    await built;
  }

  /**
   * Queue the frames from the last one queued up to `next`: each move in between played out
   * from the log (its `version` and `after`), a version without a move held as it was.
   * @param {api.State} next
   * @param {boolean} fresh the first view, or one read again: shown at once with its deal's log
   * @param {boolean} [own] the page's own move: what is being played out is finished first
   */
  async function build(next, fresh, own = false) {
    if (stopped) return;
    if (fresh || !queued || next.match !== queued.match) {
      playback.queue = [];
      playback.skip();
      queued = next;
      await loadDealLog(next);
      playback.push([{ view: next, entry: null, real: true }]);
      noteHand(next);
      return;
    }
    if (next.version <= queued.version) return;
    const from = queued;
    // Another's move is shown with its log entry; the page's own at once (its entry after).
    if (!own && !entryAt(next.version)) await readMoves();
    /** @type {Frame[]} */
    const frames = [];
    let previous = from;
    for (let v = from.version + 1; v < next.version; v++) {
      const entry = entryAt(v);
      const shown = entry?.after ? moveView(entry, previous, next) : { ...previous, version: v, legal_moves: [] };
      frames.push({ view: shown, entry, real: false });
      previous = shown;
    }
    frames.push({ view: next, entry: entryAt(next.version), real: true });
    queued = next;
    if (own) playback.skip();
    playback.push(frames, own);
    if (!entryAt(next.version)) {
      // The move that made this version (the page's own, told by its answer): read after.
      await readMoves();
      if (real) showLog();
    }
    noteHand(next);
  }

  /** @param {number} version @returns {api.MoveEntry | null} */
  function entryAt(version) {
    for (const entry of known.values()) if (entry.version === version) return entry;
    return null;
  }

  /**
   * The table as a move left it: its public facts (`after`), the page's own hand followed
   * card by card (back from the newest view within its deal, forward from the previous frame).
   * @param {api.MoveEntry} entry
   * @param {api.State} previous
   * @param {api.State} next
   * @returns {api.State}
   */
  function moveView(entry, previous, next) {
    const after = /** @type {NonNullable<api.MoveEntry["after"]>} */ (entry.after);
    const you = next.you;
    let hand = previous.deal === entry.deal ? previous.hand.slice() : [];
    if (you !== null && entry.deal === next.deal && next.deal !== null) {
      hand = next.hand.slice();
      for (const later of known.values()) {
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
      version: /** @type {number} */ (entry.version),
      status: "active",
      deal: entry.deal,
      hand,
      legal_moves: [],
      result: after.phase === "deal_over" ? results.get(entry.deal) ?? null : null,
      turn_deadline: null,
    };
  }

  /** @param {Frame} frame */
  function showFrame(frame) {
    if (stopped) return;
    if (view?.version !== frame.view.version) jack = null;
    view = frame.view;
    real = frame.real;
    draw();
    showLog();
  }

  /** The log as far as the frame on screen: each move appended as it is shown. */
  function showLog() {
    if (!view) return;
    const upTo = view.version;
    const entries = Array.from(known.values()).sort((a, b) => a.seq - b.seq);
    const last = log.length ? log[log.length - 1].seq : 0;
    for (const entry of entries) {
      if (entry.seq <= last || entry.deal < logDeal) continue;
      if (!real && (entry.version === null || entry.version > upTo)) break;
      if (real && entry.version !== null && entry.version > upTo) break;
      if (entry.deal !== logDeal) {
        log = [];
        logDeal = entry.deal;
      }
      log.push(entry);
    }
    if (view.deal !== null && view.deal > logDeal && !entries.some((e) => e.deal === view?.deal)) {
      log = [];
      logDeal = view.deal;
    }
    drawLog();
  }

  /** The moves after the last one read (of this deal or a later one). */
  async function readMoves() {
    try {
      const entries = await api.moveLog(matchId, { after_seq: lastSeq });
      for (const entry of entries) {
        if (entry.deal < floorDeal) continue;
        known.set(entry.seq, entry);
        lastSeq = Math.max(lastSeq, entry.seq);
      }
    } catch {
      // A move log this caller may not read (an older server's spectator): the table stands.
    }
  }

  /** @param {api.State} shown the view shown at once: its deal's log from its first move */
  async function loadDealLog(shown) {
    known.clear();
    log = [];
    logDeal = shown.deal ?? 0;
    floorDeal = logDeal;
    lastSeq = 0;
    if (shown.deal === null) return;
    try {
      const entries = await api.moveLog(matchId, { deal: shown.deal });
      for (const entry of entries) {
        known.set(entry.seq, entry);
        lastSeq = Math.max(lastSeq, entry.seq);
      }
    } catch {
      // as readMoves
    }
  }

  /**
   * No move of this seat in its deal's log as read after that view: its hand is the one it
   * was dealt (fairness.js).
   * @param {api.State} shown
   */
  function noteHand(shown) {
    const seat = shown.you;
    if (seat !== null && shown.deal !== null && shown.commitment && shown.status === "active" &&
        shown.phase !== "deal_over" && shown.phase !== "match_over" &&
        !Array.from(known.values()).some((e) => e.seat === seat && e.deal === shown.deal)) {
      recordHand(matchId, shown.deal, shown.commitment, seat, shown.hand);
    }
  }

  async function loadResults() {
    const over = match.deals.filter((d) => d.status === "over" && !results.has(d.number));
    for (const d of over.slice(-1)) {
      try {
        const reveal = await api.deal(matchId, d.number);
        if (reveal.result) results.set(d.number, reveal.result);
        reveals.set(d.number, reveal);
      } catch {
        // The summary of the match still tells the winners and penalties.
      }
    }
  }

  function drawLog() {
    const words = describeMoves(log, match, view);
    const first = spoken.seq < 0;
    if (spoken.deal !== logDeal) {
      if (!first) speech.say(t("log.newDeal", { n: logDeal }));
      spoken = { deal: logDeal, seq: 0 };
    }
    log.forEach((entry, i) => {
      if (entry.seq <= spoken.seq) return;
      if (!first) speech.say(words[i]);
      spoken.seq = entry.seq;
    });
    fill(logList,
      h("li", { class: "log-deal" }, t("log.newDeal", { n: logDeal })),
      words.map((text, i) => h("li", { testid: "move-log-entry", "data-seq": log[i].seq, value: i + 1 }, text)));
    logList.scrollTop = logList.scrollHeight;
  }

  /** @param {string} action @param {string} [card] @param {string} [suit] */
  function legal(action, card, suit) {
    return (view?.legal_moves ?? []).some((m) =>
      m.action === action && (card === undefined || m.card === card) &&
      (suit === undefined || m.suit === suit));
  }

  /** @param {api.MoveBody} move */
  async function send(move) {
    if (busy || !view) return;
    busy = true;
    table.dataset.busy = "true";
    try {
      const body = { ...move, version: view.version };
      const key = newKey();
      let answer;
      try {
        // On the table's WebSocket while it is open, else (or when it closes first) the route,
        // with the same key: applied once either way.
        if (!stream?.canMove()) throw new api.ApiError(0, "network", "");
        answer = await stream.move(body, key);
      } catch (error) {
        if (!(error instanceof api.ApiError) || error.status !== 0) throw error;
        answer = await api.move(matchId, body, key);
      }
      hideError();
      // The answer is the table from now on (apply takes it before its first wait): the next
      // move may go while the match's summary and the log load, so a quick key is not lost.
      const applied = apply(answer, true);
      busy = false;
      table.dataset.busy = "false";
      await applied;
    } catch (error) {
      showError(error);
      await reload();
    } finally {
      busy = false;
      table.dataset.busy = "false";
    }
  }

  /** @param {string} card */
  function clickCard(card) {
    if (!view || !legal("play", card)) return;
    const moves = view.legal_moves.filter((m) => m.action === "play" && m.card === card);
    if (rankOf(card) === "J" && moves.some((m) => m.suit)) {
      jack = card;
      draw();
      return;
    }
    send({ action: "play", card });
  }

  /** Read the state again (after a refused move, a network error or a restart). */
  async function reload() {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        const [fresh, summary] = await Promise.all([api.state(matchId), api.match(matchId)]);
        match = summary;
        latest = null;
        await apply(fresh);
        return;
      } catch (error) {
        if (error instanceof api.ApiError && error.status >= 400 && error.status < 500) {
          showError(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * 2 ** attempt)));
      }
    }
  }

  function draw() {
    if (!view) return;
    const v = view;
    table.dataset.version = String(v.version);
    // Table talk once the match is under way (a waiting or cancelled table has nobody to hear).
    talkPanel.hidden = v.status === "waiting" || v.status === "cancelled";
    fill(privateBox, privatePanel(match, () => reload()));
    table.dataset.status = newest() && match.status === "finished" ? "finished" : v.status;
    const n = match.seats.length;
    const you = v.you;
    const yourTurn = you !== null && v.turn === you && v.status === "active";
    if (yourTurn && !wasYourTurn) speech.say(t("table.yourTurn"));
    wasYourTurn = yourTurn;
    if (role === "seat") cue.turn(yourTurn && newest());
    const turnSeat = v.turn === null ? null : match.seats[v.turn];
    const seatRow = h("div", { class: "seats" },
      match.seats.map((seat) => {
        const i = seat.seat;
        return h("div", {
          class: `seat${v.turn === i ? " on-turn" : ""}${i === you ? " mine" : ""}`,
          testid: `seat-${i}`,
          // In turn order from the player's next seat round the table, the player's own last.
          style: you === null ? "" : `order:${i === you ? n : (i - you + n) % n}`,
          "data-count": v.hand_counts[i] ?? 0,
          "data-total": v.totals[i] ?? seat.total,
        },
        h("div", { class: "seat-name" }, seat.player ? seatName(seat) : t("table.open"),
          i === you ? ` (${t("table.you")})` : "",
          seat.player?.is_bot ? ` · ${t("table.bot")}` : "",
          v.resigned.includes(i) ? ` · ${t("table.resigned")}` : "",
          v.dealer === i ? h("span", { class: "dealer-chip", testid: "dealer-chip", title: t("table.dealer") },
            ` · ${t("table.dealer")}`) : ""),
        i === you ? null : h("div", { class: "backs", "aria-hidden": "true", "data-count": v.hand_counts[i] ?? 0 },
          Array.from({ length: Math.min(v.hand_counts[i] ?? 0, 12) }, () => cardBack())),
        h("div", { class: "seat-facts" }, t("table.cards", { n: v.hand_counts[i] ?? 0 }), " · ",
          t("table.total", { n: v.totals[i] ?? seat.total })));
      }));
    const top = v.top_card;
    const suit = v.active_suit;
    const middle = h("div", { class: "middle" },
      h("div", { class: "pile", testid: "pile-top", "data-card": top ?? "" },
        h("div", { class: "label" }, t("table.pile")), top ? cardFace(top) : h("div", { class: "slot" }),
        top && rankOf(top) === "J" && suit ? h("div", { class: "named-suit", testid: "named-suit", "data-suit": suit },
          t("table.named", { suit: SUIT_SYMBOL[suit] })) : null),
      h("div", { class: "stock" }, cardBack(),
        h("div", { testid: "stock-count", "data-count": v.stock_count }, t("table.stock", { n: v.stock_count }))),
      h("dl", { class: "facts" },
        h("dt", {}, t("table.activeSuit")),
        h("dd", { testid: "active-suit", "data-suit": suit ?? "", style: suit ? `color:${SUIT_COLOUR[suit]}` : "" },
          suit ? SUIT_SYMBOL[suit] : "–"),
        h("dt", {}, t("table.pending", { n: "" }).replace(/[:\s]+$/, "")),
        h("dd", { testid: "pending-sevens", "data-count": v.pending_sevens }, String(v.pending_sevens),
          v.pending_sevens > 0 ? h("span", { class: "sevens-stack", "aria-hidden": "true" },
            Array.from({ length: v.pending_sevens }, () => h("span", { class: "seven-chip" }, "7"))) : null),
        h("dt", {}, t("table.direction")),
        h("dd", { testid: "direction", "data-direction": v.direction, class: "direction" },
          v.direction === 1 ? t("dir.cw") : t("dir.ccw")),
        h("dt", {}, t("table.deal", { n: v.deal ?? 0, m: v.deals_total }).split(" ")[0]),
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
        h("div", { testid: "turn-clock" }, t("table.noClock"))),
    );
    /** @type {HTMLElement} */
    let handBox;
    if (role === "seat") {
      const penalty = v.pending_sevens > 0;
      handBox = h("section", { class: "hand-panel" },
        h("h2", {}, t("table.hand")),
        h("div", { class: "hand", testid: "hand", tabindex: -1, "aria-label": t("table.hand") },
          v.hand.map((card) => {
            const ok = legal("play", card);
            return h("button", {
              type: "button",
              class: `card${ok ? " legal" : ""}${jack === card ? " chosen" : ""}`,
              testid: "card",
              "data-card": card,
              "data-legal": ok ? "true" : "false",
              disabled: !ok,
              onclick: () => clickCard(card),
            }, cardFace(card));
          })),
        jack ? h("div", { class: "suit-picker", testid: "suit-picker" },
          h("span", {}, t("table.pickSuit")),
          SUITS.map((s) => h("button", {
            type: "button",
            testid: `suit-${s}`,
            style: `color:${SUIT_COLOUR[s]}`,
            disabled: !legal("play", jack ?? "", s),
            onclick: () => {
              const card = jack;
              jack = null;
              if (card) send({ action: "play", card, suit: /** @type {"C"|"D"|"H"|"S"} */ (s) });
            },
          }, SUIT_SYMBOL[s])),
          h("button", { type: "button", onclick: () => { jack = null; draw(); } }, t("table.cancelSuit")))
          : null,
        h("div", { class: "actions" },
          h("button", {
            type: "button", testid: "draw-button", class: "primary", "aria-keyshortcuts": "D",
            disabled: !legal("draw"),
            onclick: () => send({ action: "draw" }),
          }, penalty ? t("table.drawPenalty", { n: penaltyCards(v.pending_sevens) }) : t("table.draw")),
          h("button", {
            type: "button", testid: "pass-button", "aria-keyshortcuts": "P",
            disabled: !legal("pass"),
            onclick: () => send({ action: "pass" }),
          }, t("table.pass"))),
        h("p", { class: "keys-help", testid: "keys-help" }, t("table.keys")),
        resignControls(v));
    } else {
      handBox = h("p", { class: "spectating", testid: "spectating" }, t("table.spectating"));
    }
    const commitment = v.commitment
      ? h("p", { class: "commitment", testid: "commitment", "data-commitment": v.commitment },
          t("table.commitment", { c: v.commitment }))
      : null;
    keepFocus(board, () => fill(board, seatRow, middle, handBox, commitment));
    placePicker();
    drawEnd();
    drawClock();
  }

  /** The Jack's suit picker on the Jack itself, kept inside the hand's panel. */
  function placePicker() {
    const picker = board.querySelector('[data-testid="suit-picker"]');
    const chosen = board.querySelector(".hand .card.chosen");
    const panel = picker?.parentElement;
    if (!(picker instanceof HTMLElement) || !(chosen instanceof HTMLElement) || !panel) return;
    picker.classList.add("on-card");
    const room = panel.clientWidth - picker.offsetWidth;
    picker.style.left = `${Math.max(0, Math.min(room, chosen.offsetLeft + chosen.offsetWidth / 2 - picker.offsetWidth / 2))}px`;
    picker.style.top = `${chosen.offsetTop + chosen.offsetHeight - 8}px`;
  }

  /**
   * "Resign" with its confirm step while the seat plays; once it has resigned, a note.
   * @param {api.State} v
   */
  function resignControls(v) {
    const you = v.you;
    if (you === null) return null;
    if (v.resigned.includes(you)) {
      return v.status === "active"
        ? h("p", { class: "notice", testid: "resigned-note" }, t("table.youResigned"))
        : null;
    }
    if (v.status !== "active") return null;
    if (!confirming) {
      return h("div", { class: "resign" },
        h("button", { type: "button", testid: "resign-button", onclick: () => { confirming = true; draw(); } },
          t("table.resign")));
    }
    return h("div", { class: "resign confirm", testid: "resign-confirm", role: "alertdialog" },
      h("p", {}, t("table.resignAsk")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "danger", testid: "resign-yes", onclick: resign }, t("table.resignYes")),
        h("button", { type: "button", testid: "resign-no", onclick: () => { confirming = false; draw(); } },
          t("table.resignNo"))));
  }

  async function resign() {
    if (busy) return;
    busy = true;
    confirming = false;
    try {
      match = await api.resign(matchId);
      hideError();
    } catch (error) {
      showError(error);
    } finally {
      busy = false;
    }
    await reload();
  }

  /** @param {{ seat: number, status: string }} data the stream's `resigned` event */
  function resigned(data) {
    if (data.seat === view?.you) return; // the page's own: its view says so
    const seat = match.seats[data.seat];
    noticeBox.textContent = t("table.someoneResigned", { name: seat ? seatName(seat) : String(data.seat) });
    noticeBox.hidden = false;
    noticeBox.dataset.seat = String(data.seat);
  }

  /** @param {typeof PHRASES[number]} phrase */
  async function say(phrase) {
    try {
      await api.talk(matchId, phrase);
      hideError();
    } catch (error) {
      showError(error);
    }
  }

  /** @param {{ seat: number, phrase: string }} data the stream's `talk` event */
  function hear(data) {
    heard.push({ seat: data.seat, phrase: data.phrase });
    heard.splice(0, Math.max(0, heard.length - TALK_SHOWN));
    fill(talkLines, heard.map(({ seat, phrase }) => {
      const who = seat === view?.you ? t("table.you") : match.seats[seat] ? seatName(match.seats[seat]) : String(seat);
      const words = PHRASES.includes(/** @type {any} */ (phrase)) ? t(`talk.${phrase}`) : "…";
      return h("li", { testid: "talk-line", "data-seat": seat, "data-phrase": phrase },
        t("talk.line", { name: who, phrase: words }));
    }));
  }

  /** @param {number} k */
  function penaltyCards(k) {
    return /** @type {Record<string, unknown>} */ (match.rules).seven_chain_growth === "doubling" ? 3 * 2 ** (k - 1) : 3 * k;
  }

  /** Each player's rating change by the match: its settlement may follow its end by a moment. */
  async function loadRatings() {
    for (let attempt = 0; attempt < 6 && !stopped; attempt++) {
      ratings = await ratingChanges(match);
      if (real) draw();
      if (![...ratings.values()].some((c) => c === null)) return;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
    }
  }

  /** The frame on screen is the newest view the server sent (nothing is being played out). */
  function newest() {
    return real && view !== null && latest !== null && view.version === latest.version;
  }

  /** The match is over and its end is on screen. */
  function newestOver() {
    return newest() && (match.status === "finished" || match.status === "abandoned");
  }

  function drawEnd() {
    const v = view;
    if (!v) return;
    const over = match.deals.filter((d) => d.status === "over");
    const last = over[over.length - 1];
    // A deal that has just ended (its last move on screen): its result over the table.
    const ending = v.phase === "deal_over" && v.deal !== null && v.status === "active" && !newestOver();
    /** @type {HTMLElement | null} */
    let dealBox = null;
    const number = ending ? /** @type {number} */ (v.deal) : last?.number ?? 0;
    if (number && (ending || last)) {
      const result = (ending && v.result ? v.result : results.get(number)) ?? null;
      const overlay = ending && dismissed !== number;
      dealBox = dealScreen({
        match, number, result, summary: match.deals.find((d) => d.number === number),
        reveal: reveals.get(number) ?? null,
        totals: real && !ending ? v.totals : null,
        you: v.you, overlay,
        onContinue: () => { dismissed = number; playback.skip(); draw(); },
      });
    }
    /** @type {HTMLElement | null} */
    let matchBox = null;
    if (v.status === "finished" || v.status === "abandoned" ||
        (newest() && (match.status === "finished" || match.status === "abandoned"))) {
      matchBox = matchScreen({ match, role, you: v.you, ratings: ratings ?? new Map(), onRematch: rematch });
    }
    const overlaid = dealBox?.classList.contains("overlay") ?? false;
    fill(resultTop, matchBox, overlaid ? dealBox : null);
    fill(endBox, overlaid ? null : dealBox);
  }

  async function rematch() {
    try {
      const next = await api.rematch(matchId);
      location.hash = `#/match/${next.id}`;
    } catch (error) {
      showError(error);
    }
  }

  /** @type {"live" | "reconnecting"} */
  let streamState = "reconnecting";
  /** @param {"live" | "reconnecting"} state the stream's; offline, the badge says reconnecting */
  function setStatus(state) {
    streamState = state;
    const shown = isOffline() ? "reconnecting" : state;
    status.dataset.state = shown;
    status.textContent = shown === "live" ? t("table.live") : t("table.reconnecting");
  }
  const connectionChanged = () => setStatus(streamState);
  for (const name of ["offline", "online", "pisyedili:reachable"]) window.addEventListener(name, connectionChanged);

  /** @type {Playback<Frame>} */
  const playback = new Playback(table, {
    show: showFrame,
    travel: (frame) => {
      const entry = frame.entry;
      if (!entry || entry.action === "pass") return null;
      const seat = board.querySelector(`[data-testid="seat-${entry.seat}"]`);
      if (entry.action === "play") {
        return { from: seat, to: board.querySelector('[data-testid="pile-top"]'), card: entry.card };
      }
      return { from: board.querySelector(".stock"), to: seat, card: null };
    },
    hold: (frame) => frame.view.phase === "deal_over" && frame.view.status === "active",
  });
  const stopKeys = role === "seat" ? tableKeys(board, { cancelJack: () => { jack = null; draw(); } }) : () => {};
  await reload();
  clearTimeout(showing);
  showTable();
  stream = new LiveStream(`/matches/${matchId}/events`, ["state", "resigned", "talk"], {
    onEvent: (name, data) => {
      if (name === "state") apply(data);
      else if (name === "resigned") resigned(data);
      else if (name === "talk") hear(data);
      else if (name === "close") {
        setStatus("live");
        api.match(matchId).then((m) => { match = m; draw(); }).catch(() => {});
      }
    },
    onStatus: (state) => {
      setStatus(state);
      if (state === "live" && !view) reload();
    },
    onError: (error) => showError(error),
  }, view ? /** @type {api.State} */ (view).version : null, { socket: role === "seat" });

  return () => {
    stopped = true;
    playback.stop();
    cue.stop();
    stopKeys();
    for (const name of ["offline", "online", "pisyedili:reachable"]) window.removeEventListener(name, connectionChanged);
    clearInterval(clock);
    stream?.stop();
  };
}
