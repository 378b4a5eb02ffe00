// @ts-check
/**
 * Private tables and challenges (docs/api.md "Private tables and challenges"):
 * - `inviteePicker`: people to invite, found by player search (GET /players?search=…), for the
 *   new-match form and the new-tournament form;
 * - `privateChoice`: the new-match form's "Private table" choice, with people to invite;
 * - the invitations to answer are listed by `invitationsPanel` (invitations.js);
 * - `privatePanel`: a waiting private table's join link (its creator's only) and invitations;
 * - `joinView`: #/join/<id>/<code>, a join link: it seats the person, after sign-in if need be.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { currentPlayer, hideError, showError } from "../ui.js";
import { playerSearch } from "./players.js";

/** Where a sign-in returns to (a join link opened while signed out). */
const AFTER_SIGN_IN = "pisyedili.after-sign-in";

/** The hash a sign-in goes to: a join link opened signed out, once; else the lobby. */
export function afterSignIn() {
  const saved = sessionStorage.getItem(AFTER_SIGN_IN);
  sessionStorage.removeItem(AFTER_SIGN_IN);
  return saved && saved.startsWith("#/join/") ? saved : "#/lobby";
}

/**
 * A match's join link, to share: opening it seats whoever has it.
 * @param {string} id
 * @param {string} code
 */
export function joinLink(id, code) {
  return `${location.origin}${location.pathname}#/join/${id}/${encodeURIComponent(code)}`;
}

/**
 * People to invite, found by player search (GET /players?search=…): the search box, and the
 * list of those picked so far (`<prefix>-invitees`), each with a button to remove them.
 * @param {{ id: string, prefix: string, full?: (count: number) => string | null, exclude?: string[] }} options
 *   `full`: a message when no one more fits (`count` picked already), else null; `exclude`: the
 *   ids of players the search never offers
 * @returns {{ search: HTMLElement, chips: HTMLElement, picked: () => api.FoundPlayer[] }}
 */
export function inviteePicker({ id, prefix, full, exclude }) {
  /** @type {api.FoundPlayer[]} */
  const invited = [];
  const chips = h("ul", { class: "list invitees", testid: `${prefix}-invitees` });
  // The search box is a form of its own: its submit stays its own, never the enclosing form's.
  const search = h("div", { onsubmit: (/** @type {Event} */ e) => e.stopPropagation() },
    playerSearch({ id, onPick: add, exclude }));

  function drawChips() {
    fill(chips,
      invited.length === 0 ? h("li", { class: "empty" }, t("private.noneInvited")) : null,
      invited.map((found) => h("li", { testid: `${prefix}-invitee`, "data-username": found.username },
        h("span", { class: "grow" }, `@${found.username}`),
        h("button", { type: "button", testid: `${prefix}-invitee-remove`,
          onclick: () => { invited.splice(invited.indexOf(found), 1); drawChips(); } }, t("private.remove")))));
  }

  /** @param {api.FoundPlayer} found */
  function add(found) {
    if (invited.some((p) => p.id === found.id)) return;
    const message = full?.(invited.length);
    if (message) {
      showError(message);
      return;
    }
    hideError();
    invited.push(found);
    drawChips();
  }

  drawChips();
  return {
    search,
    chips,
    picked: () => [...invited],
  };
}

/**
 * The new-match form's private choice: a checkbox, and once ticked, the people to invite.
 * @param {HTMLSelectElement} seats the form's seat count
 * @param {HTMLSelectElement} spectators the form's spectators choice (a private table: none)
 * @returns {{ element: HTMLElement, body: () => { private?: boolean, invite?: string[] } }}
 */
export function privateChoice(seats, spectators) {
  const picker = inviteePicker({
    id: "invite-search",
    prefix: "create",
    full: (count) => (count >= Number(seats.value) - 1 ? t("private.full", { n: Number(seats.value) - 1 }) : null),
  });
  const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "create-private", testid: "create-private" }));
  const details = h("div", { class: "private-invite", testid: "create-private-details", hidden: true },
    h("p", { class: "muted" }, t("private.about")),
    h("h3", {}, t("private.invite")),
    picker.search,
    h("h3", {}, t("private.invited")), picker.chips);

  box.addEventListener("change", () => {
    details.hidden = !box.checked;
    // A private table is watched by nobody unless its creator allows it.
    spectators.value = box.checked ? "none" : "public";
  });
  const element = h("div", { class: "private-choice" },
    h("label", { class: "check", for: "create-private" }, box, " ", t("private.label")),
    details);
  return {
    element,
    body: () => (box.checked ? { private: true, invite: picker.picked().map((p) => p.username) } : {}),
  };
}

/**
 * A waiting private table's panel: the join link to copy (its creator only), the invitations
 * and their answers, and (its creator) more people to invite.
 * @param {api.Match} match
 * @param {() => void} changed after an invitation is sent
 * @returns {HTMLElement | null}
 */
export function privatePanel(match, changed) {
  if (!match.private || match.status !== "waiting") return null;
  const code = match.join_code;
  /** @type {HTMLElement | null} */
  let linkRow = null;
  if (code) {
    const link = /** @type {HTMLInputElement} */ (h("input", { type: "text", readOnly: true, testid: "join-link",
      id: "join-link", value: joinLink(match.id, code) }));
    const copied = h("span", { class: "muted", testid: "join-link-copied", hidden: true }, t("private.copied"));
    linkRow = h("div", {},
      h("label", { for: "join-link" }, t("private.link")),
      h("div", { class: "row" }, link,
        h("button", { type: "button", testid: "join-link-copy", onclick: async () => {
          link.select();
          try {
            await navigator.clipboard.writeText(link.value);
          } catch {
            document.execCommand("copy"); // no clipboard permission: the selection is copied
          }
          copied.hidden = false;
        } }, t("private.copy")), copied),
      h("p", { class: "muted" }, t("private.linkAbout")));
  }
  const invitations = h("ul", { class: "list", testid: "invitations" },
    match.invitations.length === 0 ? h("li", { class: "empty" }, t("private.noneInvited")) : null,
    match.invitations.map((i) => h("li", { testid: "invitation", "data-username": i.player.username,
      "data-status": i.status },
    h("span", { class: "grow" }, i.player.display_name, " ", h("span", { class: "muted" }, `@${i.player.username}`)),
    h("span", { class: `status status-${i.status}` }, t(`private.status.${i.status}`)))));
  const more = code
    ? playerSearch({ id: "invite-more", onPick: async (found) => {
      try {
        await api.invite(match.id, [found.username]);
        hideError();
        changed();
      } catch (error) {
        showError(error);
      }
    } })
    : null;
  return h("section", { class: "card-panel private-panel", testid: "private-panel" },
    h("h2", {}, t("private.label")), linkRow,
    h("h3", {}, t("private.invited")), invitations,
    more ? h("h3", {}, t("private.inviteMore")) : null, more);
}

/**
 * #/join/<id>/<code>: take a seat at a private table by its join link, then open the table.
 * Signed out, the link waits for the sign-in.
 * @param {HTMLElement} root
 * @param {string} id
 * @param {string} code
 */
export async function joinView(root, id, code) {
  const message = h("p", { testid: "join-status" }, t("private.joining"));
  root.append(h("section", { class: "card-panel" }, h("h2", {}, t("private.label")), message));
  if (!api.token() || !(await currentPlayer())) {
    sessionStorage.setItem(AFTER_SIGN_IN, location.hash);
    fill(message, t("private.signInToJoin"), " ", h("a", { href: "#/login", testid: "join-sign-in" }, t("nav.login")));
    return;
  }
  try {
    const match = await api.join(id, decodeURIComponent(code));
    location.replace(`#/match/${match.id}`);
  } catch (error) {
    showError(error);
    fill(message, h("a", { href: "#/lobby" }, t("table.back")));
  }
}
