// @ts-check
/**
 * Private tables and challenges (docs/api.md "Private tables and challenges"):
 * - `inviteePicker`: people to invite, found by player search (GET /players?search=…), for the
 *   new-match form and the new-tournament form;
 * - `privateChoice`: the new-match form's "Private table" choice, with people to invite;
 * - the invitations to answer are listed by `invitationsPanel` (invitations.js);
 * - `privatePanel`: a waiting private table's join link and invitations (its creator's), or
 *   what the table waits for (anyone else's);
 * - `joinView`: #/join/<id>/<code>, a join link: it seats the person, after sign-in if need be.
 * A page that a sign-in comes back to (a join link, a table to join, opened signed out) is kept
 * for the sign-in page reached from it only: left for any other page, it is forgotten, and a
 * later sign-in opens the lobby (never a table the person did not ask for then).
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { currentPlayer, hideError, showError } from "../ui.js";
import { playerSearch } from "./players.js";

/** Where a sign-in returns to (a join link, or a table to join, opened while signed out). */
const AFTER_SIGN_IN = "pisyedili.after-sign-in";
/** The pages a sign-in may return to. */
const RETURNS = /^#\/(join|match)\//;

// A page loaded at another route than the sign-in page: a return left by an earlier one (a
// reload elsewhere, a tab restored) is not this page's.
if (location.hash !== "#/login") sessionStorage.removeItem(AFTER_SIGN_IN);

/**
 * The sign-in page reached from here comes back to `hash` once signed in.
 * @param {string} hash
 */
export function returnAfterSignIn(hash) {
  sessionStorage.setItem(AFTER_SIGN_IN, hash);
}

/**
 * The page that keeps a return (the join page, the sign-in page) is left: the return holds only
 * when the sign-in page comes next (the sign-in reached from it, a language switch there).
 */
export function keepReturnOnlyForSignIn() {
  if (location.hash !== "#/login") sessionStorage.removeItem(AFTER_SIGN_IN);
}

/** The hash a sign-in goes to: the page it was reached from (see above), once; else the lobby. */
export function afterSignIn() {
  const saved = sessionStorage.getItem(AFTER_SIGN_IN);
  sessionStorage.removeItem(AFTER_SIGN_IN);
  return saved && RETURNS.test(saved) ? saved : "#/lobby";
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
 * The new-match form's private choice: a checkbox, and once ticked, the people to invite: at
 * most the open seats (those the form leaves to a person, not to a bot), never the creator.
 * @param {HTMLSelectElement} spectators the form's spectators choice (a private table: none)
 * @param {() => number} openSeats the seats the form leaves open (to a person)
 * @param {string} you the creator's player id
 * @returns {{ element: HTMLElement, body: () => { private?: boolean, invite?: string[] } }}
 */
export function privateChoice(spectators, openSeats, you) {
  const picker = inviteePicker({
    id: "invite-search",
    prefix: "create",
    full: (count) => {
      const n = openSeats();
      if (n === 0) return t("private.noOpenSeat");
      return count >= n ? t("private.full", { n }) : null;
    },
    exclude: [you],
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
 * A waiting private table's panel. Its creator's: the join link to copy, the invitations and
 * their answers, and more people to invite. Anyone else's (seated by the link or an
 * invitation): what the table waits for.
 * @param {api.Match} match
 * @param {() => void} changed after an invitation is sent
 * @param {string | null} [you] the viewer's player id
 * @returns {HTMLElement | null}
 */
export function privatePanel(match, changed, you = null) {
  if (!match.private || match.status !== "waiting") return null;
  const code = match.join_code; // its creator's only
  if (!code || match.creator !== you) {
    const seated = you !== null && match.seats.some((s) => s.player?.id === you);
    return h("section", { class: "card-panel private-panel", testid: "private-panel" },
      h("h2", {}, t("private.label")),
      h("p", { testid: "private-about" }, t(seated ? "private.seatedHere" : "private.guest")));
  }
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
  // Nobody seated, nor invited and still to answer, is offered again.
  const taken = [
    ...match.seats.flatMap((s) => (s.player ? [s.player.id] : [])),
    ...match.invitations.filter((i) => i.status === "pending").map((i) => i.player.id),
  ];
  const more = code
    ? playerSearch({ id: "invite-more", exclude: taken, onPick: async (found) => {
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
  root.append(h("section", { class: "card-panel" }, h("h1", {}, t("private.label")), message));
  if (!api.token() || !(await currentPlayer())) {
    returnAfterSignIn(location.hash);
    fill(message, t("private.signInToJoin"), " ", h("a", { href: "#/login", testid: "join-sign-in" }, t("nav.login")));
    return keepReturnOnlyForSignIn;
  }
  try {
    const match = await api.join(id, decodeURIComponent(code));
    location.replace(`#/match/${match.id}`);
  } catch (error) {
    showError(error);
    fill(message, h("a", { href: "#/lobby" }, t("table.back")));
  }
}
