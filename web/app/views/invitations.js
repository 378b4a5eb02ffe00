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
 * each invitation is answered from its one row. A challenge's row goes as soon as its match is
 * cancelled (`match_cancelled`) or its invitation's `expires_at` passes (a timer): it could only
 * be refused.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { creatorName, hideError, playerName, showError, shortTime } from "../ui.js";

/** The events after which the list is read again (an invitation added, answered or gone). */
const EVENTS = ["challenge", "tournament_invitation", "tournament_answered", "tournament_cancelled",
  "tournament_withdrawn",
  "match_cancelled", "match_started",
  "resync"];

/** The one who invites (the match's creator), for "… invites you". */
const host = creatorName;

/** The longest a timer waits (setTimeout's own limit, about 24.8 days). */
const LONGEST_MS = 2 ** 31 - 1;

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
  /** @type {Set<string>} the matches cancelled while the page was shown: never listed again */
  const cancelled = new Set();
  /** @type {ReturnType<typeof setTimeout> | null} the next invitation's expiry */
  let expiry = null;
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
    return h("li", { testid: "challenge", "data-match-id": match.id, "data-expires": until,
      class: fresh.has(match.id) ? "fresh" : "" },
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
      const open = (challenges?.results ?? []).filter((m) => !cancelled.has(m.id));
      const rows = [...open.map(matchRow), ...(invited?.results ?? []).map(tournamentRow)];
      fill(list, rows.length === 0 ? h("li", { class: "empty" }, empty) : null, rows);
      const listed = new Set([...open, ...(invited?.results ?? [])].map((r) => r.id));
      if (notice.dataset.about && !listed.has(notice.dataset.about)) notice.hidden = true;
      dropExpired();
    } catch (error) {
      showError(error);
    }
  }

  /**
   * The challenge of `id` goes from the list (cancelled, or its invitation expired).
   * @param {string} id
   */
  function drop(id) {
    for (const row of list.querySelectorAll('[data-testid="challenge"]')) {
      if (row instanceof HTMLElement && row.dataset.matchId === id) row.remove();
    }
    settled(id);
    if (!list.querySelector("li")) fill(list, h("li", { class: "empty" }, empty));
  }

  /** Drops the challenges whose invitation expired, and waits for the next one to. */
  function dropExpired() {
    if (expiry) clearTimeout(expiry);
    expiry = null;
    let next = Infinity;
    for (const row of list.querySelectorAll('[data-testid="challenge"][data-expires]')) {
      if (!(row instanceof HTMLElement)) continue;
      const at = Date.parse(row.dataset.expires ?? "");
      if (at <= api.serverNow()) drop(row.dataset.matchId ?? "");
      else if (at < next) next = at;
    }
    // Once the page is gone (its list no longer shown), nothing waits on.
    if (next < Infinity) {
      expiry = setTimeout(() => { if (list.isConnected) dropExpired(); }, Math.min(next - api.serverNow() + 250, LONGEST_MS));
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
    if (matches && name === "match_cancelled" && data?.match) {
      cancelled.add(String(data.match));
      drop(String(data.match));
    }
    if (EVENTS.includes(name)) refresh();
  }

  refresh();
  const element = h("section", { class: "card-panel invitations" }, h("h2", {}, title), notice, list);
  return { element, onEvent };
}
