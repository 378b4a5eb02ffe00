// @ts-check
/**
 * #/match/<id>: the table, for a seated player (their hand, legal cards to click, draw and
 * pass) or a spectator (the public view: no hand). Every change arrives on the match's event
 * stream (no polling); after a lost connection the stream resumes from the last version seen.
 * A refused move (409 stale_version, 422) shows a clear message and reloads the state; a move
 * lost on the network, or met by a gateway's 502, 503 or 504 (a deploy, a restart), waits for the
 * server and goes again with its Idempotency-Key (the page says it was not made where the table
 * moved on meanwhile). A seat may resign (after a confirm step): a bot plays it from then on; the stream's
 * `resigned` event tells the others. Nothing of the state is stored: it lives in this view only.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { recordCommitment, recordHand } from "../fairness.js";
import { t } from "../i18n.js";
import { LiveStream } from "../live.js";

/** A move's POST answered so was not made, or its answer was lost after it: it goes again. */
const GATEWAY = new Set([502, 503, 504]);
/** How many such answers a move meets before the page gives up and says the server failed. */
const GATEWAY_TRIES = 6;
import { currentPlayer, hideError, isOffline, seatName, showError } from "../ui.js";
import { announcer, focusHand, keepFocus, tableKeys } from "./table-keys.js";
import { privatePanel } from "./private.js";
import { challengePage, waitingPanel } from "./table-waiting.js";
import { Playback } from "./table-play.js";
import { turnCue } from "./table-cue.js";
import { MatchEnd } from "./table-results.js";
import { handPanel, placePicker } from "./table-hand.js";
import { movesPanel } from "./table-log.js";
import { MoveBook } from "./table-moves.js";
import { clockText, tableMiddle } from "./table-pile.js";
import { seatRing } from "./table-seats.js";
import { talkPanel } from "./table-talk.js";
import { loadRules, rulesPanel } from "./rules-picker.js";

/** `seconds` as a clock shows them: "1:05", "23:59:51". @param {number} seconds */
function duration(seconds) {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/**
 * @param {HTMLElement} root
 * @param {string} matchId
 */
export async function tableView(root, matchId) {
  const player = await currentPlayer();
  let match = await api.match(matchId);
  // A private match's invitee who has not answered: the challenge, not a table to watch.
  const challenged = challengePage(root, match, player);
  if (challenged) return challenged;
  const role = player && match.seats.some((s) => s.player?.id === player.id) ? "seat" : "spectator";
  /** @type {api.State | null} the view on screen (a move played out, or the newest) */
  let view = null;
  /** @type {api.State | null} the newest view the server sent */
  let latest = null;
  /** @type {api.State | null} the view of the last frame queued, and its version */
  let queued = null;
  /** the moves read, and the shown deal's log as far as shown */
  const book = new MoveBook(matchId);
  /** the frame on screen is the newest view (not a move being played out) */
  let real = true;
  /** @type {Promise<unknown>} frames are built one view after another */
  let building = Promise.resolve();
  let busy = false;
  /** @type {string | null} the Jack waiting for its suit */
  let jack = null;
  let stopped = false;
  /** the confirm step of "Resign" is open */
  let confirming = false;
  /** @type {LiveStream | null} the match's stream, a WebSocket that takes the moves */
  let stream = null;

  const table = h("section", { class: "table", testid: "table", "data-role": role, "data-match-id": matchId });
  const status = h("span", { class: "connection", testid: "connection-status", "data-state": "reconnecting" },
    t("table.reconnecting"));
  const board = h("div", { class: "board" });
  // Moves read out as they come (screen readers), and the table's keys (table-keys.js).
  const speech = announcer();
  const logPanel = movesPanel(speech);
  let wasYourTurn = false;
  const cue = turnCue();
  // The deals' and the match's result screens (table-results.js).
  const end = new MatchEnd(matchId, role, {
    redraw: () => { if (real) draw(); },
    skip: () => playback.skip(),
    pin: () => playback.pin(),
    stopped: () => stopped,
    focus: () => { if (!focusHand(board)) heading.focus(); },
    holdsFocus: () => document.activeElement === heading || board.contains(document.activeElement),
    // The match over here, read again once the other tables of its round have finished: its
    // places, totals and deals' results are shown from now on.
    settled: async (summary) => {
      match = summary;
      await end.load(() => match);
      if (real) draw();
    },
  });
  const noticeBox = h("p", { class: "notice", testid: "resign-notice", hidden: true });
  // A move made while the connection is lost: sent once it is back.
  const waiting = h("p", { class: "notice", testid: "move-waiting", role: "status", hidden: true },
    t("table.moveWaiting"));
  const privateBox = h("div", { class: "private-box" });
  const talk = talkPanel({ matchId, seated: role === "seat", names: () => ({ match, you: view?.you ?? null }) });
  const heading = h("h1", { class: "visually-hidden", tabIndex: -1 }, t("table.title"));
  // The table's rules, to read at any time (filled once the server's options are read).
  const rulesBox = h("div", { class: "rules-box" });
  loadRules().then((offered) => fill(rulesBox, rulesPanel(match.rules, offered))).catch(() => {});
  table.append(
    heading,
    h("div", { class: "table-head" },
      h("a", { href: "#/lobby" }, t("table.back")), role === "seat" ? cue.controls : null, status),
    noticeBox,
    waiting,
    speech.region,
    privateBox,
    end.top,
    board,
    end.below,
    talk.panel,
    logPanel.panel,
    rulesBox,
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
      // No deadline running: a match without a turn clock says so; one with a clock has none
      // now (a bot on turn, between deals, the match over).
      el.textContent = clockText(match);
      el.dataset.seconds = "";
      return;
    }
    // On the server's clock (this browser's may be minutes off), and never more than a turn.
    const left = Math.round((Date.parse(deadline) - api.serverNow()) / 1000);
    const seconds = Math.max(0, Math.min(match.turn_seconds ?? left, left));
    el.textContent = seconds < 100 ? t("table.clock", { s: seconds })
      : t("table.clockLong", { time: duration(seconds) });
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
      next.resigned.join() !== before.resigned.join() || match.seats.some((s) => s.player === null);
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
      await end.load(() => match);
      draw();
      // The log's words follow the summary (a seat resigned: its moves are the bot's).
      if (view) drawLog();
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
      await book.loadDeal(next);
      playback.push([{ view: next, entry: null, real: true }]);
      noteHand(next);
      return;
    }
    if (next.version <= queued.version) return;
    const from = queued;
    // Another's move is shown with its log entry; the page's own at once (its entry after).
    if (!own && !book.entryAt(next.version)) await book.readMoves();
    /** @type {Frame[]} */
    const frames = [];
    let previous = from;
    for (let v = from.version + 1; v < next.version; v++) {
      const entry = book.entryAt(v);
      const shown = entry?.after
        ? book.moveView(entry, previous, next, end.resultOf(entry.deal))
        : { ...previous, version: v, legal_moves: [] };
      frames.push({ view: shown, entry, real: false });
      previous = shown;
    }
    frames.push({ view: next, entry: book.entryAt(next.version), real: true });
    queued = next;
    if (own) playback.skip();
    playback.push(frames, own);
    if (!book.entryAt(next.version)) {
      // The move that made this version (the page's own, told by its answer): read after.
      await book.readMoves();
      if (real) showLog();
    }
    noteHand(next);
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
    book.showUpTo(view, real);
    drawLog();
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
        !book.moved(seat, shown.deal)) {
      recordHand(matchId, shown.deal, shown.commitment, seat, shown.hand);
    }
  }

  function drawLog() {
    logPanel.draw(book.log, book.logDeal, match, view);
  }

  /** @param {string} action @param {string} [card] @param {string} [suit] */
  function legal(action, card, suit) {
    return (view?.legal_moves ?? []).some((m) =>
      m.action === action && (card === undefined || m.card === card) &&
      (suit === undefined || m.suit === suit));
  }

  /**
   * One move to the server: on the table's WebSocket while it is open, else (or when it closes
   * first) the route, with the same key: applied once either way.
   * @param {api.MoveBody & { version: number }} body
   * @param {string} key
   */
  async function deliver(body, key) {
    try {
      if (!stream?.canMove()) throw new api.ApiError(0, "network", "");
      return await stream.move(body, key);
    } catch (error) {
      if (!(error instanceof api.ApiError) || error.status !== 0) throw error;
      return await api.move(matchId, body, key);
    }
  }

  /**
   * The server's answer to a move the page sent: the table from now on (apply takes it before
   * its first wait), and the page free for the next move while the match's summary and the
   * log load, so a quick key is not lost.
   * @param {api.State} answer
   */
  async function taken(answer) {
    hideError();
    const applied = apply(answer, true);
    busy = false;
    table.dataset.busy = "false";
    await applied;
  }

  /** @param {api.MoveBody} move */
  async function send(move) {
    if (busy || !view) return;
    busy = true;
    table.dataset.busy = "true";
    /** the move went out while the connection was lost: it waited for it */
    let waited = false;
    const seat = view.you;
    const sentAt = view.version;
    try {
      const body = { ...move, version: view.version };
      const key = api.newKey();
      let answer;
      for (let refused = 0; ; ) {
        try {
          answer = await deliver(body, key);
          break;
        } catch (error) {
          const lost = error instanceof api.ApiError && error.status === 0;
          const gateway = error instanceof api.ApiError && GATEWAY.has(error.status);
          if (!(lost || gateway) || stopped || (gateway && ++refused > GATEWAY_TRIES)) throw error;
          // The connection is lost, or a proxy found no server behind it (or gave up waiting
          // for its answer): the move waits for the server (the table read again once it
          // answers), then goes again with the same key. Made on a view that is no longer the
          // newest, it is refused (409), unless the server had it already: the key then
          // answers as the first time (docs/api.md, exactly-once moves).
          waited = true;
          waiting.hidden = false;
          if (lost) showError(error);
          else await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * 2 ** refused)));
          if (stopped) return;
          await reload();
          if (stopped) return;
        }
      }
      waiting.hidden = true;
      await taken(answer);
    } catch (error) {
      waiting.hidden = true;
      // A move that waited for the connection and was refused on its return as the table had
      // moved on (409 stale_version, not_your_turn, match_not_active): not made.
      showError(waited && error instanceof api.ApiError && error.status === 409
        ? t("table.moveNotMade") : error);
      await reload();
      // Refused as the turn clock had played for the player meanwhile: said so, not as a move
      // another tab made first.
      if (error instanceof api.ApiError && error.status === 409 && seat !== null &&
          Array.from(book.known.values()).some((e) => e.seat === seat && e.by_bot && (e.version ?? 0) > sentAt)) {
        showError(t("table.clockPlayed"));
      }
    } finally {
      busy = false;
      table.dataset.busy = "false";
    }
  }

  /** What the server said of a move the legal moves leave out, by version and move: asked once. */
  const refusals = new Map();

  /**
   * A card, Draw or Pass the rules do not allow now, chosen on the player's turn: the server is
   * asked as for any move, and its refusal, the rule that forbids it in the page's language, is
   * shown (a refused move changes nothing). Out of turn nothing is asked.
   * @param {api.MoveBody} move
   */
  async function explain(move) {
    if (busy || !view || view.you === null || view.turn !== view.you || view.status !== "active") return;
    const id = `${view.version} ${move.action} ${move.card ?? ""} ${move.suit ?? ""}`;
    const known = refusals.get(id);
    if (known) {
      showError(known);
      return;
    }
    busy = true;
    table.dataset.busy = "true";
    try {
      // Taken after all (the view shown was older than the server's): the table goes on.
      await taken(await deliver({ ...move, version: view.version }, api.newKey()));
    } catch (error) {
      if (error instanceof api.ApiError && error.code === "illegal_move" && error.detail?.rule) {
        const why = t("table.notAllowed", { why: error.message });
        if (refusals.size >= 20) refusals.clear();
        refusals.set(id, why);
        showError(why);
      } else {
        showError(error);
        await reload();
      }
    } finally {
      busy = false;
      table.dataset.busy = "false";
    }
  }

  /** @param {string} card */
  function clickCard(card) {
    if (!view || !legal("play", card)) return;
    const moves = view.legal_moves.filter((m) => m.action === "play" && m.card === card);
    // A play that names a suit (a Jack's, by the legal moves): the suit is asked first.
    if (moves.some((m) => m.suit)) {
      jack = card;
      draw();
      return;
    }
    send({ action: "play", card });
  }

  /**
   * Read the state again (after a refused move, a network error or a restart).
   * @param {boolean} [first] the table's first read: a refusal that stands (a match closed to
   *   spectators: 403; no such match: 404) is thrown, for the page to say instead of a table
   */
  async function reload(first = false) {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        const [fresh, summary] = await Promise.all([api.state(matchId), api.match(matchId)]);
        match = summary;
        latest = null;
        await apply(fresh);
        return;
      } catch (error) {
        if (first && error instanceof api.ApiError && (error.status === 403 || error.status === 404)) {
          throw error;
        }
        if (error instanceof api.ApiError && error.status >= 400 && error.status < 500) {
          showError(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * 2 ** attempt)));
      }
    }
  }

  /** @type {import("./table-hand.js").HandActions} */
  const handActions = {
    legal,
    play: clickCard,
    explain,
    playJack: (card, suit) => {
      jack = null;
      send({ action: "play", card, suit });
    },
    cancelJack: () => { jack = null; draw(); },
    send,
    askResign: () => { confirming = true; draw(); },
    keepPlaying: () => { confirming = false; draw(); },
    resign,
    absent: (seat) => Boolean(match.seats[seat]?.absent),
    lastPerson: () => match.seats.every((seat, i) =>
      i === view?.you || !seat.player || seat.player.is_bot || seat.resigned || view?.resigned.includes(i)),
  };

  function draw() {
    if (!view) return;
    const v = view;
    table.dataset.version = String(v.version);
    // Table talk while the match is under way (a waiting or cancelled table has nobody to hear;
    // once it is over its stream has closed, and the server refuses talk).
    talk.show(v.status === "waiting" || v.status === "cancelled" ? "closed"
      : v.status === "active" && match.status === "active" ? "open" : "over");
    logPanel.panel.hidden = !v.deal; // no deal dealt yet: no moves
    fill(privateBox, privatePanel(match, () => reload(), player?.id), waitingPanel(match, player));
    table.dataset.status = newest() && match.status === "finished" ? "finished" : v.status;
    const you = v.you;
    const yourTurn = you !== null && v.turn === you && v.status === "active";
    // Said after the moves that gave the turn, which the log reads out as it is drawn next, in
    // the same task (showFrame): "Your turn" then follows the move it answers.
    if (yourTurn && !wasYourTurn) queueMicrotask(() => speech.say(t("table.yourTurn")));
    wasYourTurn = yourTurn;
    if (role === "seat") cue.turn(yourTurn && newest());
    const ring = seatRing(match, v);
    // The newest move on screen asked for a suit (a Jack's `effect`).
    const shownLast = book.log.length ? book.log[book.log.length - 1] : null;
    const asked = shownLast?.effect?.kind === "suit" && shownLast.version === v.version;
    const felt = h("div", { class: "felt", "data-seats": match.seats.length },
      ring.top, ring.left, tableMiddle({ match, view: v, yourTurn, asked }), ring.right, ring.bottom);
    const handBox = role === "seat"
      ? handPanel({ view: v, jack, confirming, act: handActions })
      : h("p", { class: "spectating", testid: "spectating" }, t("table.spectating"));
    const commitment = v.commitment
      ? h("p", { class: "commitment", testid: "commitment", "data-commitment": v.commitment },
          t("table.commitment", { c: v.commitment }))
      : null;
    keepFocus(board, () => fill(board, felt, handBox, commitment));
    placePicker(board);
    drawEnd();
    drawClock();
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

  /** @param {{ seat: number, status: string, absent: boolean }} data the stream's `resigned` event */
  function resigned(data) {
    // The last person resigned: the match is abandoned, which its result says (no bot plays on).
    if (data.status === "abandoned") {
      noticeBox.hidden = true;
      return;
    }
    if (data.seat === view?.you) return; // the page's own: its view says so
    const seat = match.seats[data.seat];
    const name = seat ? seatName(seat) : String(data.seat);
    noticeBox.textContent = t(data.absent ? "table.someoneAbsent" : "table.someoneResigned", { name });
    noticeBox.hidden = false;
    noticeBox.dataset.seat = String(data.seat);
  }

  /** The frame on screen is the newest view the server sent (nothing is being played out). */
  function newest() {
    return real && view !== null && latest !== null && view.version === latest.version;
  }

  function drawEnd() {
    if (view) end.draw({ match, view, real, newest: newest(), latest });
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

  /** @type {number | null} the deal whose result was held over the table */
  let heldDeal = null;
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
    // A deal's result is read before the next deal is played out; under a turn clock for at
    // most a quarter of a turn, which the next deal's first turn may already be spending. Once
    // a deal: a version after its end with no move of its own (the next deal dealt, told with
    // a later view) repeats the result, and is passed at once.
    hold: (frame) => {
      const v = frame.view;
      if (v.phase !== "deal_over" || v.status !== "active") return false;
      if (v.deal === heldDeal) return 0;
      heldDeal = v.deal;
      return match.turn_seconds ? match.turn_seconds * 250 : Infinity;
    },
  });
  const stopKeys = role === "seat" ? tableKeys(board, { cancelJack: () => { jack = null; draw(); } }) : () => {};

  function stop() {
    stopped = true;
    clearTimeout(showing);
    playback.stop();
    cue.stop();
    stopKeys();
    for (const name of ["offline", "online", "pisyedili:reachable"]) window.removeEventListener(name, connectionChanged);
    clearInterval(clock);
    stream?.stop();
  }

  try {
    await reload(true);
  } catch (error) {
    // Not to be watched (a match closed to spectators) or gone: the page says so, as a replay
    // of it would, and nothing asks again.
    stop();
    table.remove();
    throw error;
  }
  clearTimeout(showing);
  showTable();
  stream = new LiveStream(`/matches/${matchId}/events`, ["state", "resigned", "talk"], {
    onEvent: (name, data) => {
      if (name === "state") apply(data);
      else if (name === "resigned") resigned(data);
      else if (name === "talk") talk.hear(data);
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

  return stop;
}
