// @ts-check
/**
 * Table talk: the preset phrases a seat may say (POST …/talk), shown in the page's language,
 * and the last phrases heard on the match's stream.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { hideError, seatName, showError } from "../ui.js";

/** Table talk's preset phrases, shown in the page's language. */
const PHRASES = /** @type {const} */ (["good_game", "well_played", "oops", "your_turn"]);
/** Phrases heard, at most this many shown (the newest last). */
const TALK_SHOWN = 6;

/**
 * @param {{ matchId: string, seated: boolean, names: () => { match: api.Match, you: number | null } }} args
 * @returns {{ panel: HTMLElement, hear: (data: { seat: number, phrase: string }) => void }}
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

  const panel = h("section", { class: "card-panel talk-panel", testid: "talk" },
    h("h2", {}, t("talk.title")),
    seated
      ? h("div", { class: "row talk-buttons" }, PHRASES.map((phrase) => h("button", {
        type: "button", testid: `talk-${phrase}`, onclick: () => say(phrase),
      }, t(`talk.${phrase}`))))
      : null,
    lines);

  /** @param {{ seat: number, phrase: string }} data the stream's `talk` event */
  function hear(data) {
    heard.push({ seat: data.seat, phrase: data.phrase });
    heard.splice(0, Math.max(0, heard.length - TALK_SHOWN));
    const { match, you } = names();
    fill(lines, heard.map(({ seat, phrase }) => {
      const who = seat === you ? t("table.you") : match.seats[seat] ? seatName(match.seats[seat]) : String(seat);
      const words = PHRASES.includes(/** @type {any} */ (phrase)) ? t(`talk.${phrase}`) : "…";
      return h("li", { testid: "talk-line", "data-seat": seat, "data-phrase": phrase },
        t("talk.line", { name: who, phrase: words }));
    }));
  }

  return { panel, hear };
}
