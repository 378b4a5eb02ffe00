// @ts-check
/**
 * The player's pending invitations, one list with Accept and Decline on each row
 * (docs/api.md "Private tables and challenges", "Tournaments"):
 * - challenges to a private table (GET /matches?invited=true): Accept seats the player and
 *   opens the table;
 * - tournament invitations (GET /tournaments?invited=true): Accept enters the player and opens
 *   the tournament.
 * The lobby lists both, the tournaments page its own. One arriving on the player's event stream
 * (`challenge`, `tournament_invitation`; `onEvent` takes each event of the page's /me/events
 * stream) is read into the list, marked new there, and said once in the panel's status line:
 * each invitation is answered from its one row.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { hideError, playerName, seatName, showError, shortTime } from "../ui.js";

/** The events after which the list is read again (an invitation added, answered or gone). */
const EVENTS = ["challenge", "tournament_invitation", "tournament_answered", "match_cancelled", "match_started",
  "resync"];

/**
 * The first person seated (the one who invites), for "… invites you".
 * @param {api.Match} match
 */
function host(match) {
  const seat = match.seats.find((s) => s.player && !s.player.is_bot);
  return seat ? seatName(seat) : "";
}

/**
 * Accept and Decline of the caller's invitation to a tournament; `done(accepted)` after the answer.
 * @param {string} id
 * @param {(accepted: boolean) => void} done
 */
export function tournamentAnswerButtons(id, done) {
  /**
   * @param {(id: string) => Promise<api.Tournament>} call
   * @param {boolean} accepted
   */
  const answer = async (call, accepted) => {
    try {
      await call(id);
      hideError();
      done(accepted);
    } catch (error) {
      showError(error);
    }
  };
  return [
    h("button", { type: "button", class: "primary", testid: "tournament-accept",
      onclick: () => answer(api.acceptTournament, true) }, t("private.accept")),
    h("button", { type: "button", testid: "tournament-decline",
      onclick: () => answer(api.declineTournament, false) }, t("private.decline")),
  ];
}

/**
 * @param {api.Player} player the player invited
 * @param {{ matches: boolean, tournaments: boolean, title: string, empty: string, testid: string }} options
 *   which kinds it lists, its heading, what it says when there is none, the list's test id
 * @returns {{ element: HTMLElement, onEvent: (name: string, data: any) => void }}
 */
export function invitationsPanel(player, { matches, tournaments, title, empty, testid }) {
  const list = h("ul", { class: "list", testid });
  const notice = h("p", { class: "notice", testid: "invitation-notice", role: "status", hidden: true });
  /** The invitations that arrived while the page was shown: marked until answered. */
  const fresh = new Set();
  let reads = 0;

  /** @param {string} id an invitation answered: its mark and its announcement go */
  function settled(id) {
    fresh.delete(id);
    if (notice.dataset.about === id) notice.hidden = true;
  }

  /** @param {api.Match} match */
  function matchRow(match) {
    const until = match.invitations.find((i) => i.player.id === player.id)?.expires_at;
    /**
     * @param {(id: string) => Promise<api.Match>} call
     * @param {boolean} seat whether it seats the caller (Accept): then the table opens
     */
    const answer = async (call, seat) => {
      try {
        await call(match.id);
        hideError();
        settled(match.id);
        if (seat) {
          location.hash = `#/match/${match.id}`;
          return;
        }
      } catch (error) {
        showError(error);
      }
      refresh();
    };
    return h("li", { testid: "challenge", "data-match-id": match.id, class: fresh.has(match.id) ? "fresh" : "" },
      h("span", { class: "grow" }, t("private.challengeFrom", { name: host(match), n: match.seats.length }),
        " · ", t("lobby.dealsOf", { n: match.deals_total }),
        until ? ` · ${t("private.until", { time: shortTime(until) })}` : ""),
      h("span", { class: "answers" },
        h("button", { type: "button", class: "primary", testid: "challenge-accept",
          onclick: () => answer(api.acceptInvitation, true) }, t("private.accept")),
        h("button", { type: "button", testid: "challenge-decline",
          onclick: () => answer(api.declineInvitation, false) }, t("private.decline"))));
  }

  /** @param {api.Tournament} row */
  function tournamentRow(row) {
    return h("li", { testid: "tournament-invitation", "data-tournament-id": row.id,
      class: fresh.has(row.id) ? "fresh" : "" },
    h("a", { class: "grow", href: `#/tournaments/${row.id}` },
      t("tournaments.invitedBy", { name: row.name, by: playerName(row.organizer) })),
    h("span", { class: "answers" }, tournamentAnswerButtons(row.id, (accepted) => {
      settled(row.id);
      if (accepted) location.hash = `#/tournaments/${row.id}`;
      else refresh();
    })));
  }

  /** Reads the invitations, one read after another having the last word. */
  async function refresh() {
    const serial = ++reads;
    try {
      const [challenges, invited] = await Promise.all([
        matches ? api.challenges() : null,
        tournaments ? api.tournamentInvitations() : null,
      ]);
      if (serial !== reads) return;
      const rows = [...(challenges?.results ?? []).map(matchRow), ...(invited?.results ?? []).map(tournamentRow)];
      fill(list, rows.length === 0 ? h("li", { class: "empty" }, empty) : null, rows);
      const listed = new Set([...(challenges?.results ?? []), ...(invited?.results ?? [])].map((r) => r.id));
      if (notice.dataset.about && !listed.has(notice.dataset.about)) notice.hidden = true;
    } catch (error) {
      showError(error);
    }
  }

  /**
   * Says a new invitation in the status line.
   * @param {string} id
   * @param {() => Promise<string>} text
   */
  async function announce(id, text) {
    fresh.add(id);
    try {
      const said = await text();
      notice.dataset.about = id;
      notice.textContent = said;
      notice.hidden = false;
    } catch {
      // Gone already (cancelled): the list says what is left.
    }
  }

  /**
   * @param {string} name
   * @param {any} data
   */
  function onEvent(name, data) {
    if (matches && name === "challenge" && data?.match) {
      const id = String(data.match);
      announce(id, async () => t("private.notice", { name: host(await api.match(id)) }));
    }
    if (tournaments && name === "tournament_invitation" && data?.tournament) {
      const id = String(data.tournament);
      announce(id, async () => {
        const tournament = await api.tournament(id);
        return t("tournaments.notice", { name: tournament.name, by: playerName(tournament.organizer) });
      });
    }
    if (EVENTS.includes(name)) refresh();
  }

  refresh();
  const element = h("section", { class: "card-panel invitations" }, h("h2", {}, title), notice, list);
  return { element, onEvent };
}
