// @ts-check
/**
 * Table talk: the preset phrases a seat may say (POST …/talk), shown in the page's language,
 * and the last phrases heard on the match's stream. Once the match is over its stream has
 * closed and the server refuses talk (409): the phrases give way to a line saying so.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { getLang, t } from "../i18n.js";
import { hideError, seatName, showError } from "../ui.js";

/** Table talk's preset phrases, shown in the page's language. */
const PHRASES = /** @type {const} */ (["good_game", "well_played", "oops", "your_turn"]);
/** Phrases heard, at most this many shown (the newest last). */
const TALK_SHOWN = 6;

/**
 * @param {{ matchId: string, seated: boolean, names: () => { match: api.Match, you: number | null } }} args
 * @returns {{ panel: HTMLElement, hear: (data: { seat: number, phrase: string }) => void,
 *   show: (now: "closed" | "open" | "over") => void }}
 */
export function talkPanel({ matchId, seated, names }) {
  /** @type {{ seat: number, phrase: string }[]} heard on the stream, oldest first */
  const heard = [];
  const lines = h("ul", { class: "talk-lines", testid: "talk-lines" });

  /** @param {typeof PHRASES[number]} phrase */
  async function say(phrase) {
    try {
      await api.talk(matchId, phrase);
      hideError();
    } catch (error) {
      showError(error);
    }
  }

  const buttons = seated
    ? h("div", { class: "row talk-buttons" }, PHRASES.map((phrase) => h("button", {
      type: "button", testid: `talk-${phrase}`, onclick: () => say(phrase),
    }, t(`talk.${phrase}`))))
    : null;
  const over = h("p", { class: "talk-over", testid: "talk-over", hidden: true }, t("talk.over"));
  const panel = h("section", { class: "card-panel talk-panel", testid: "talk" },
    h("h2", {}, t("talk.title")), buttons, over, lines);

  /**
   * The panel for the match as it now is: `closed` (waiting, cancelled: nobody to hear),
   * `open`, or `over` (no phrase to say; the panel stays for the lines heard, if any).
   * @param {"closed" | "open" | "over"} now
   */
  function show(now) {
    if (buttons) buttons.hidden = now !== "open";
    over.hidden = now !== "over" || !seated;
    panel.hidden = now === "closed" || (now === "over" && heard.length === 0);
  }

  /** @param {{ seat: number, phrase: string }} data the stream's `talk` event */
  function hear(data) {
    heard.push({ seat: data.seat, phrase: data.phrase });
    heard.splice(0, Math.max(0, heard.length - TALK_SHOWN));
    const { match, you } = names();
    fill(lines, heard.map(({ seat, phrase }) => {
      const who = seat === you ? t("table.you") : match.seats[seat] ? seatName(match.seats[seat]) : String(seat);
      const words = PHRASES.includes(/** @type {any} */ (phrase)) ? t(`talk.${phrase}`) : "…";
      let line = t("talk.line", { name: who, phrase: words });
      // "you" at the start of a line begins it with a capital, by the page's language's casing
      // (a player's own name is shown as they wrote it).
      if (seat === you && line.startsWith(who)) {
        line = line.charAt(0).toLocaleUpperCase(getLang()) + line.slice(1);
      }
      return h("li", { testid: "talk-line", "data-seat": seat, "data-phrase": phrase }, line);
    }));
  }

  return { panel, hear, show };
}
