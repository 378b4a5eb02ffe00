// @ts-check
/**
 * The move log in words: "Ayşe played 7♠ — the next player draws 3 or answers with a 7". What
 * each move did is the server's (the entry's `effect`): nothing here works a rule out. The
 * table's log panel reads each new move out (its `aria-live` announcer), its cards and suits in
 * words ("Ayşe played 7 of spades").
 */

import * as api from "../api.js";
import { cardName, cardText, SUIT_SYMBOL, suitName } from "../cards.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { seatName } from "../ui.js";

/**
 * A seat as the log names it: "you" for the viewer's own.
 * @param {api.Match} match
 * @param {number} seat
 * @param {number | null} you
 */
function who(match, seat, you) {
  if (seat === you) return t("table.you");
  const s = match.seats[seat];
  return s ? seatName(s) : String(seat);
}

/**
 * The words of a play's effect (the server's `effect`).
 * @param {api.MoveEntry["effect"]} effect
 * @param {api.Match} match
 * @param {api.State | null} view
 * @param {boolean} last the newest entry (the one the view is at)
 * @param {boolean} mine the viewer's own move (the verbs' second person: Turkish conjugates them)
 * @param {boolean} aloud for the announcer: a suit in words, not its symbol
 */
function effectWords(effect, match, view, last, mine, aloud) {
  if (!effect) return "";
  const you = view?.you ?? null;
  switch (effect.kind) {
    case "seven": {
      // The viewer is the one to answer it now.
      const answer = last && you !== null && view?.turn === you && (view?.pending_sevens ?? 0) > 0;
      return t(answer ? "log.sevenYou" : "log.sevenNext", { n: effect.cards });
    }
    case "skip":
      return effect.seat === null ? "" : t(effect.seat === you ? "log.skipYou" : "log.skip",
        { name: who(match, effect.seat, you) });
    case "reverse":
      return t("log.reverse");
    case "suit":
      if (!effect.suit) return "";
      return t(mine ? "log.jackYou" : "log.jack",
        { suit: aloud ? suitName(effect.suit).toLowerCase() : SUIT_SYMBOL[effect.suit] ?? effect.suit });
    case "again":
      return t(mine ? "log.againYou" : "log.again");
    case "opening":
      return t("log.opening");
    default:
      return "";
  }
}

/**
 * @param {api.MoveEntry[]} entries one deal's entries, in order
 * @param {api.Match} match
 * @param {api.State | null} view the view on screen (null: a replay, nobody's)
 * @param {boolean} [aloud] for the announcer: cards and suits in words, not symbols
 * @returns {string[]}
 */
export function describeMoves(entries, match, view, aloud = false) {
  const you = view?.you ?? null;
  const card = aloud ? cardName : cardText;
  return entries.map((entry, i) => {
    const seat = match.seats[entry.seat];
    const name = who(match, entry.seat, you);
    // The viewer's own moves in the second person ("you drew", Turkish "çektin").
    const mine = entry.seat === you;
    const key = (/** @type {string} */ base) => (mine ? `${base}You` : base);
    let text;
    if (entry.action === "play" && entry.card) {
      text = t(key("log.played"), { name, card: card(entry.card) }) +
        effectWords(entry.effect, match, view, i === entries.length - 1, mine, aloud);
    } else if (entry.action === "draw") {
      text = entry.drawn_count === 1 ? t(key("log.drew"), { name })
        : t(key("log.drewN"), { name, n: entry.drawn_count });
      if (entry.effect?.kind === "penalty") text += t("log.penalty");
      // A player's own drawn cards only: another seat's never reach the page.
      if (entry.seat === you && entry.drawn && entry.drawn.length) {
        text += ` (${entry.drawn.map(card).join(", ")})`;
      }
    } else {
      text = t(key("log.passed"), { name });
    }
    if (entry.by_bot && seat?.player && !seat.player.is_bot) {
      // A person's seat: the turn clock's move, or the bot's once they resigned (the view on
      // screen knows of a resignation before the match's summary is read again; a match
      // without a turn clock has no other bot's move for a person).
      const gone = seat.resigned || (view?.resigned ?? []).includes(entry.seat) || !match.turn_seconds;
      text += gone ? t("log.resigned") : t("log.clock");
    }
    return text;
  });
}

/**
 * The table's "Moves" panel: the shown deal's log, each move read out once as it comes (what
 * the page showed first is not read).
 * @param {{ say: (text: string) => void }} speech the table's announcer (table-keys.js)
 */
export function movesPanel(speech) {
  // A scrolled list the keyboard can scroll too (focusable, named).
  const list = h("ol", { class: "move-log", testid: "move-log", tabIndex: 0, "aria-label": t("table.log") });
  const panel = h("section", { class: "card-panel log-panel" }, h("h2", {}, t("table.log")), list);
  /** the last move read out: its deal and seq */
  let spoken = { deal: 0, seq: -1 };

  /**
   * @param {api.MoveEntry[]} log the shown deal's moves, as far as shown
   * @param {number} deal its number
   * @param {api.Match} match
   * @param {api.State | null} view the frame on screen
   */
  function draw(log, deal, match, view) {
    const words = describeMoves(log, match, view);
    const first = spoken.seq < 0;
    if (spoken.deal !== deal) {
      if (!first) speech.say(t("log.newDeal", { n: deal }));
      spoken = { deal, seq: 0 };
    }
    const aloud = log.some((entry) => entry.seq > spoken.seq) ? describeMoves(log, match, view, true) : [];
    log.forEach((entry, i) => {
      if (entry.seq <= spoken.seq) return;
      if (!first) speech.say(aloud[i]);
      spoken.seq = entry.seq;
    });
    fill(list,
      h("li", { class: "log-deal" }, t("log.newDeal", { n: deal })),
      words.map((text, i) => h("li", { testid: "move-log-entry", "data-seq": log[i].seq, value: i + 1 }, text)));
    list.scrollTop = list.scrollHeight;
  }

  return { panel, draw };
}
