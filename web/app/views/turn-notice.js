// @ts-check
/**
 * Turns elsewhere: on any page but the table in question, a notice under the header says where
 * the player's move is awaited (their /me/events `your_turn`: "Your turn at your table with
 * Ana, Greedy bot 1 · Go to the table") and that a round of their tournament is dealt
 * (`tournament_round`, with their table), or that they sit it out (a bye: the event names no
 * table; its line leads to the tournament's page, and goes when that page is shown or the
 * tournament's next round is dealt to them); meanwhile the tab's title starts with "● Your turn"
 * (on a table's page, that table's own cue keeps the title), and a hidden tab gets a browser
 * notification once the player allowed them. A challenge to a private table (`challenge`) is
 * told so too, on any page but the lobby (which lists it with its answers): its line leads to
 * the match's page, which offers Accept and Decline. Each (re)connect also reads which of the
 * player's tables await their move, and which challenges their answer, so a page opened after
 * the turn came tells it too, and a table left on the player's turn is told once the page shown
 * is another. A line goes when its table is opened, its match ends (or is cancelled), the move
 * is made (or the challenge answered, or its invitation expires) elsewhere (read again on each
 * page shown, and every 30 s), or it is dismissed.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { onMyEvent } from "../my-events.js";
import { creatorName, currentPlayer, tableNames } from "../ui.js";
import { notifyHidden, turnTitle } from "./table-cue.js";

/**
 * @typedef {{ kind: "turn" | "round" | "challenge" | "bye", match: string, text: string, href?: string }} Line
 * `match`: the line's key, a match's id (a bye's: `byeKey` of its tournament); `href`: where
 * it leads, if not to the match's page
 */

/** The most matches under way read for turns (MAX_ACTIVE_MATCHES_PER_PLAYER's default). */
const ACTIVE = 20;
/** How often the lines are read again while there are any (and the tab is seen). */
const RECHECK_MS = 30_000;

/** @type {Map<string, Line>} by match */
const lines = new Map();
const element = h("div", { class: "notice turn-notice", testid: "turn-notice", role: "status", hidden: true });
/** @type {string | null} the match whose table the page shows */
let shown = null;
/** @type {string | null} the bye line of the tournament whose page is shown */
let shownBye = null;
/** the page shown is the lobby (which lists the challenges itself) */
let onLobby = false;
/** @type {string | null} whose lines they are (the session's token) */
let owner = null;
/** @type {string | null} the player's id, once read */
let myId = null;

/** Every read of the server for the lines, one after another: a read asked for after a move
 * (a page shown) ends after a read asked for before it (an event's), and so has the last word. */
let work = Promise.resolve();
/** @param {() => Promise<void>} job */
function serially(job) {
  work = work.then(job).catch(() => {});
}

/** The match of a table page's route, if the route is one. @param {string} hash */
function tableOf(hash) {
  return hash.match(/^#\/match\/([0-9a-fA-F-]{36})$/)?.[1] ?? null;
}

/** The key of a tournament's bye line. @param {string} tournament */
function byeKey(tournament) {
  return `bye:${tournament}`;
}

/** The bye line of a tournament page's route, if the route is one. @param {string} hash */
function byeOf(hash) {
  const tournament = hash.match(/^#\/tournaments\/([0-9a-fA-F-]{36})$/)?.[1];
  return tournament ? byeKey(tournament) : null;
}

function draw() {
  if (shown) lines.delete(shown);
  if (shownBye) lines.delete(shownBye);
  if (onLobby) for (const [id, line] of lines) if (line.kind === "challenge") lines.delete(id);
  fill(element, [...lines.values()].map((line) =>
    h("p", { class: "turn-line", testid: `turn-${line.kind}`, "data-match-id": line.match },
      h("span", { class: "grow" }, line.text),
      h("span", { class: "turn-actions" },
        h("a", { class: "button primary", href: line.href ?? `#/match/${line.match}`, testid: "turn-go" },
          t(line.kind === "challenge" ? "notice.toChallenge" : line.kind === "bye" ? "notice.toTournament"
            : "notice.toTable")),
        h("button", { type: "button", class: "dismiss", testid: "turn-dismiss", "aria-label": t("notice.dismiss"),
          onclick: () => { lines.delete(line.match); draw(); } }, "×")))));
  element.hidden = lines.size === 0;
  const turns = [...lines.values()].some((line) => line.kind === "turn" || line.kind === "round");
  if (!shown) document.title = turns ? turnTitle(t("app.title")) : t("app.title");
}

/**
 * Drops the lines whose move was made meanwhile (on another device or page) or whose match is
 * over: read again on each page shown and each (re)connect of the stream.
 */
async function recheck() {
  const asked = [...lines.values()];
  const stale = await Promise.all(asked.map(async (line) => {
    try {
      if (line.kind === "bye") return false; // told until dismissed, or replaced by the next round
      if (line.kind === "challenge") return !(await challengeOpen(line.match));
      const state = await api.state(line.match);
      return state.status !== "active" || (line.kind === "turn" && state.turn !== state.you);
    } catch {
      return false;
    }
  }));
  let changed = false;
  asked.forEach((line, i) => {
    if (stale[i] && lines.get(line.match) === line) changed = lines.delete(line.match) || changed;
  });
  if (changed) draw();
}

/**
 * @param {Line} line
 * @param {boolean} [news] just told (a browser notification where the tab is hidden)
 */
function add(line, news = true) {
  if (line.match === shown || line.match === shownBye) return;
  lines.set(line.match, line);
  draw();
  if (news) notifyHidden(line.text, t("app.title"), `pisyedili-${line.match}`);
}

/** @param {string} id */
async function playersOf(id) {
  try {
    return tableNames(await api.match(id), myId);
  } catch {
    return "";
  }
}

/**
 * The tables awaiting the player's move (their matches under way: at most `ACTIVE` of them,
 * which is the server's own limit by default), read on each (re)connect of the stream: a turn
 * that came while no page listened is told too.
 */
async function discover() {
  try {
    const player = await currentPlayer();
    if (!player) return;
    myId = player.id;
    const [mine, invited] = await Promise.all([
      api.matches({ player: player.id, status: "active", limit: ACTIVE }),
      api.challenges(),
    ]);
    // The challenges awaiting an answer (told elsewhere than the lobby, which lists them).
    for (const m of invited.results) {
      if (m.id !== shown && !onLobby && !lines.has(m.id)) {
        add({ kind: "challenge", match: m.id, text: t("notice.challengeFrom", { name: creatorName(m) }) }, false);
      }
    }
    await Promise.all(mine.results.filter((m) => m.id !== shown && !lines.has(m.id)).map(async (m) => {
      const state = await api.state(m.id);
      if (state.status === "active" && state.turn === state.you && !lines.has(m.id)) {
        add({ kind: "turn", match: m.id, text: t("notice.yourTurnAt", { players: tableNames(m, myId) }) }, false);
      }
    }));
  } catch {
    // The next connect reads again; the events meanwhile are told as they come.
  }
}

/**
 * @param {string} id a match whose `your_turn` came, or whose table the page just left
 * @param {boolean} [news] just told (see `add`)
 */
async function told(id, news = true) {
  if (id === shown) return;
  // Told late (the stream caught up after the move was made elsewhere): nothing to say.
  myId ??= (await currentPlayer().catch(() => null))?.id ?? null;
  let refused = false;
  const read = api.state(id).catch((error) => {
    // No table of the player's to read (a match closed to them, a challenge not accepted):
    // nothing awaits their move there. Out of reach, the turn is told all the same.
    refused = error instanceof api.ApiError && error.status >= 400 && error.status < 500;
    return null;
  });
  const [state, who] = await Promise.all([read, playersOf(id)]);
  if (refused || (state && (state.status !== "active" || state.turn !== state.you))) return;
  add({ kind: "turn", match: id, text: who ? t("notice.yourTurnAt", { players: who }) : t("notice.yourTurn") }, news);
}

/**
 * Whether the player's invitation to the private match `id` awaits their answer still.
 * @param {string} id
 * @returns {Promise<api.Match | null>} the match, if so
 */
async function challengeOpen(id) {
  myId ??= (await currentPlayer().catch(() => null))?.id ?? null;
  const match = await api.match(id).catch(() => null);
  const mine = match?.invitations.find((i) => i.player.id === myId);
  return match?.status === "waiting" && mine?.status === "pending" && Date.parse(mine.expires_at) > api.serverNow()
    ? match
    : null;
}

/** @param {string} id a private match whose `challenge` came */
async function challenged(id) {
  if (id === shown || onLobby) return;
  const match = await challengeOpen(id);
  if (match && !onLobby) add({ kind: "challenge", match: id, text: t("notice.challengeFrom", { name: creatorName(match) }) });
}

onMyEvent((name, data) => {
  if (name === "your_turn" && data?.match) {
    serially(() => told(String(data.match)));
  } else if (name === "challenge" && data?.match) {
    serially(() => challenged(String(data.match)));
  } else if (name === "tournament_round" && Array.isArray(data?.matches) && data?.tournament) {
    const bye = byeKey(String(data.tournament));
    // A round of the tournament dealt: a bye of an earlier one is over.
    lines.delete(bye);
    if (data.matches.length) {
      add({ kind: "round", match: String(data.matches[0]), text: t("notice.tournamentRound", { round: data.round }) });
    } else {
      // A round the player sits out (a bye): no table, the tournament's page.
      add({ kind: "bye", match: bye, href: `#/tournaments/${data.tournament}`,
        text: t("notice.tournamentBye", { round: data.round }) });
    }
    draw();
  } else if ((name === "match_finished" || name === "match_cancelled") && data?.match) {
    if (lines.delete(String(data.match))) draw();
  } else if (name === "ready" || name === "resync") {
    serially(recheck);
    serially(discover);
  }
});

// A move made on another device tells this page nothing: the lines are read again meanwhile.
setInterval(() => {
  if (lines.size && !document.hidden) serially(recheck);
}, RECHECK_MS);

/**
 * The notice's element for the page (the same one across pages), drawn for the route shown.
 * @param {string} hash
 */
export function turnNotice(hash) {
  if (api.token() !== owner) { // signed out, or another player signed in
    lines.clear();
    myId = null;
  }
  owner = api.token();
  const left = shown;
  shown = tableOf(hash);
  shownBye = byeOf(hash);
  onLobby = hash === "#/lobby";
  draw();
  serially(recheck);
  // A table left on the player's turn is awaiting their move still: told here as elsewhere.
  if (left && left !== shown && owner) serially(() => told(left, false));
  return element;
}
