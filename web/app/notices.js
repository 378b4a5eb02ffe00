// @ts-check
/**
 * What a Web Push notice (docs/api.md "Notifications": a kind, a match or tournament id, the
 * moment past which it is moot, a short text; never a card) shows as a browser notification:
 * the service worker's (web/sw.js) words, in the browser's language, and where a click leads.
 */

import { preferredLang, strings } from "./i18n.js";

const KEYS = {
  your_turn: "notice.yourTurn",
  challenge: "notice.challenge",
  tournament_round: "notice.tournamentRound",
  tournament_invitation: "notice.tournamentInvitation",
};

/**
 * @param {{ type?: string, match?: string, tournament?: string, round?: number, text?: string,
 *   turn_deadline?: string | null, expires_at?: string | null }} notice
 * @param {readonly string[]} languages the browser's, first preferred (navigator.languages)
 * @returns {{ title: string, body: string, url: string, tag: string }}
 */
export function noticeShown(notice, languages) {
  const lang = preferredLang(languages.length ? languages : ["en"]);
  const words = strings(lang);
  const key = KEYS[/** @type {keyof typeof KEYS} */ (notice.type)];
  let body = ((key && words[key]) ?? notice.text ?? "").replace("{round}", String(notice.round ?? ""));
  // The moment a turn's clock plays it, or a challenge expires, in the device's own time.
  const moot = notice.turn_deadline ?? notice.expires_at;
  const at = moot ? new Date(moot) : null;
  if (at && !Number.isNaN(at.getTime())) {
    const own = languages.find((tag) => tag.toLowerCase().split("-")[0] === lang) ?? lang;
    const time = at.toLocaleTimeString(own, { hour: "2-digit", minute: "2-digit" });
    body += " " + words[notice.turn_deadline ? "notice.turnUntil" : "notice.challengeUntil"].replace("{time}", time);
  }
  const tournament = notice.type === "tournament_round" || notice.type === "tournament_invitation";
  return {
    title: words["app.title"],
    body,
    url: tournament ? `/#/tournaments/${notice.tournament}` : `/#/match/${notice.match}`,
    tag: tournament ? `tournament-${notice.tournament}` : `match-${notice.match}`,
  };
}
