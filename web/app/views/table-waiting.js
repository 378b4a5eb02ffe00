// @ts-check
/**
 * A match's page (#/match/<id>) while it waits for players:
 * - `waitingPanel`, above the table: a visitor signed in takes an open seat of a public table
 *   ("Join this table": POST …/join, then the page is the seat's table); one signed out signs in
 *   first and comes back to the table; a seated person leaves (POST …/leave), and its creator
 *   (`match.creator`) cancels the match (POST …/cancel: then the lobby, which says so);
 * - `challengePage`, instead of the table: the page of a private match for a person it invites
 *   and who has not answered (the link of the `challenge` notice, web/sw.js, and of the notice
 *   under the header): who invites, Accept (then the seat's table) and Decline (then a line that
 *   says so, and the way to the lobby); a cancelled or expired invitation says so.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { onMyEvent } from "../my-events.js";
import { creatorName, hideError, messageOf, redraw, sayNext, shortTime, showError } from "../ui.js";
import { returnAfterSignIn } from "./private.js";

/** The longest a timer waits (setTimeout's own limit, about 24.8 days). */
const LONGEST_MS = 2 ** 31 - 1;

/**
 * @param {api.Match} match
 * @param {string | null | undefined} id
 */
function seatedIn(match, id) {
  return Boolean(id) && match.seats.some((s) => s.player?.id === id);
}

/**
 * A request of the panel's buttons: they are disabled meanwhile; a refusal is shown.
 * @param {HTMLElement} box the buttons' box
 * @param {() => Promise<void>} work
 */
async function busy(box, work) {
  const buttons = [...box.querySelectorAll("button")];
  for (const button of buttons) button.disabled = true;
  try {
    await work();
  } catch (error) {
    showError(error);
    for (const button of buttons) button.disabled = false;
  }
}

/**
 * What the person viewing a waiting table may do there; null when there is nothing (the match
 * started or is over, a private table's visitor).
 * @param {api.Match} match
 * @param {api.Player | null} player the person signed in
 * @returns {HTMLElement | null}
 */
export function waitingPanel(match, player) {
  if (match.status !== "waiting") return null;
  const open = match.open_seats ?? match.seats.filter((s) => s.player === null).length;
  const actions = h("div", { class: "row" });
  const panel = h("section", { class: "card-panel waiting-panel", testid: "waiting-panel" });

  if (player && seatedIn(match, player.id)) {
    const creator = match.creator === player.id;
    // The creator leaves only a table someone else sits at (it is handed to them); alone, they
    // cancel it.
    const others = match.seats.some((s) => s.player && !s.player.is_bot && s.player.id !== player.id);
    const leave = async () => {
      const left = await api.leave(match.id);
      hideError();
      if (left.status === "cancelled") {
        sayNext(t("waiting.cancelled"));
        location.hash = "#/lobby";
      } else if (match.private) {
        sayNext(t("waiting.left"));
        location.hash = "#/lobby"; // the table is no longer theirs to see
      } else {
        sayNext(t("waiting.left"));
        redraw();
      }
    };
    const cancel = async () => {
      await api.cancel(match.id);
      hideError();
      sayNext(t("waiting.cancelled"));
      location.hash = "#/lobby";
    };
    fill(actions,
      !creator || others
        ? h("button", { type: "button", testid: "table-leave", onclick: () => busy(actions, leave) },
          t("waiting.leave"))
        : null,
      creator
        ? h("button", { type: "button", class: "danger", testid: "table-cancel", onclick: () => busy(actions, cancel) },
          t("waiting.cancel"))
        : null);
    fill(panel,
      h("p", { testid: "waiting-about" },
        t(creator ? (others ? "waiting.aboutCreatorHandOver" : "waiting.aboutCreator") : "waiting.aboutSeated")),
      actions);
    return panel;
  }

  if (match.private || open === 0) return null;
  if (!player) {
    fill(panel,
      h("p", { testid: "waiting-about" }, t("waiting.signInAbout", { n: open })),
      h("div", { class: "row" },
        h("a", { href: "#/login", class: "button primary", testid: "table-sign-in",
          onclick: () => returnAfterSignIn(`#/match/${match.id}`) }, t("waiting.signIn"))));
    return panel;
  }
  const join = async () => {
    await api.join(match.id);
    hideError();
    redraw(); // the page is the seat's table
  };
  fill(actions,
    h("button", { type: "button", class: "primary", testid: "table-join", onclick: () => busy(actions, join) },
      t("waiting.join")));
  fill(panel, h("p", { testid: "waiting-about" }, t("waiting.joinAbout", { n: open })), actions);
  return panel;
}

/**
 * The page of a private match for a person it invites, who has not answered: drawn in `root`
 * instead of the table. Null when the match is none such for `player`.
 * @param {HTMLElement} root
 * @param {api.Match} match
 * @param {api.Player | null} player
 * @returns {(() => void) | null} what stops it
 */
export function challengePage(root, match, player) {
  if (!player || !match.private || match.status !== "waiting" || seatedIn(match, player.id)) return null;
  const invitation = match.invitations.find((i) => i.player.id === player.id && i.status === "pending");
  const until = invitation ? Date.parse(invitation.expires_at) : NaN;
  if (!invitation || !(until > api.serverNow())) return null;

  const name = creatorName(match);
  const status = h("p", { testid: "challenge-status", role: "status" });
  const answers = h("div", { class: "row answers", testid: "challenge-answers" });
  let over = false;

  /** The invitation is no longer to answer: `text` says why, and the way to the lobby. */
  function ended(/** @type {string} */ text) {
    over = true;
    answers.remove();
    fill(status, text, " ", h("a", { href: "#/lobby", testid: "challenge-lobby" }, t("table.back")));
  }

  /**
   * @param {(id: string) => Promise<api.Match>} call
   * @param {() => void} done
   */
  const answer = (call, done) => busy(answers, async () => {
    try {
      await call(match.id);
    } catch (error) {
      // Answered elsewhere, expired, or the table filled or cancelled meanwhile: said for good.
      if (error instanceof api.ApiError && error.status === 409) {
        ended(messageOf(error));
        return;
      }
      throw error;
    }
    hideError();
    done();
  });

  fill(answers,
    h("button", { type: "button", class: "primary", testid: "challenge-accept",
      onclick: () => answer(api.acceptInvitation, () => redraw()) }, t("private.accept")),
    h("button", { type: "button", testid: "challenge-decline",
      onclick: () => answer(api.declineInvitation, () => ended(t("challenge.declined", { name }))) },
    t("private.decline")));
  root.append(h("section", { class: "card-panel challenge-page", testid: "challenge-page", "data-match-id": match.id },
    h("h1", {}, t("challenge.title")),
    h("p", { testid: "challenge-from" }, t("private.challengeFrom", { name, n: match.seats.length }),
      " · ", t("lobby.dealsOf", { n: match.deals_total }), " · ", t("private.until", { time: shortTime(invitation.expires_at) })),
    h("p", { class: "muted" }, t("challenge.about")),
    answers,
    status));

  const expiry = setTimeout(() => {
    if (!over) ended(t("challenge.expired"));
  }, Math.min(until - api.serverNow() + 500, LONGEST_MS));
  const unlisten = onMyEvent((event, data) => {
    if (!over && event === "match_cancelled" && String(data?.match) === match.id) ended(t("challenge.cancelled", { name }));
  });
  return () => {
    clearTimeout(expiry);
    unlisten();
  };
}
