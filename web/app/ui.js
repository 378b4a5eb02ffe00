// @ts-check
/** What every page shares: the error banner, names of players, the signed-in player. */

import * as api from "./api.js";
import { t, has } from "./i18n.js";
import { forgetRecords } from "./fairness.js";
import { forgetDevice } from "./push.js";

/** @type {ReturnType<typeof setTimeout> | null} */
let bannerTimer = null;
/** The server could not be reached (a request failed, or the browser went offline). */
let offline = false;

/**
 * Codes after which the page reloads what it shows: its own words say so. Any other refusal
 * shows the server's message (in the page's language, Accept-Language) as it is.
 */
const RELOADED = new Set(["stale_version", "illegal_move", "not_your_turn"]);

/** The form's label of a field the API names in a refusal's `detail`. */
const FIELD_LABELS = /** @type {Record<string, string>} */ ({
  username: "auth.username",
  password: "auth.password",
  display_name: "account.name",
  old_password: "account.oldPassword",
  new_password: "account.newPassword",
  seats: "lobby.seats",
  deals: "lobby.deals",
  spectators: "lobby.spectators",
  turn_seconds: "lobby.turnSeconds",
  name: "tournaments.name",
  players: "tournaments.entrants",
  format: "tournaments.format",
  rounds: "tournaments.rounds",
  rules: "lobby.rules",
});

/**
 * A refused body's reasons (`invalid` with a `detail`): each field's, after the label its form
 * gives it, each said once; null when there are none.
 * @param {api.ApiError} error
 */
function reasonsOf(error) {
  if (error.code !== "invalid" || !error.detail) return null;
  /** @type {string[]} */
  const said = [];
  for (const [field, value] of Object.entries(error.detail)) {
    const reasons = [...new Set([value].flat(Infinity).filter((v) => typeof v === "string"))];
    if (!reasons.length) continue;
    const label = FIELD_LABELS[field];
    said.push(label ? `${t(label)}: ${reasons.join(" ")}` : reasons.join(" "));
  }
  return said.length ? said.join(" ") : null;
}

/**
 * A clear message for an API error (in the page's language), never a stack or a body: a
 * refused body's reasons by the form's words for its fields, not the API's field names.
 * @param {unknown} error
 */
export function messageOf(error) {
  if (error instanceof api.ApiError) {
    if (error.code === "network") return t("err.network");
    if (error.code === "session_changed") return t("auth.otherTabChanged");
    const reasons = reasonsOf(error);
    if (reasons) return reasons;
    // An illegal move: the server says why, by the rule that forbids it, in the page's language.
    if (error.code === "illegal_move" && error.message && error.detail?.rule) {
      return t("err.illegal_move_why", { why: error.message });
    }
    if (RELOADED.has(error.code) && has(`err.${error.code}`)) return t(`err.${error.code}`);
    if (error.message && error.status > 0 && error.status < 500 && error.code !== "bad_answer") {
      return error.message;
    }
    if (has(`err.${error.code}`)) return t(`err.${error.code}`);
    return t("err.server_error");
  }
  return t("err.server_error");
}

/** @returns {HTMLElement | null} */
function bannerElement() {
  const banner = document.querySelector('[data-testid="error-banner"]');
  return banner instanceof HTMLElement ? banner : null;
}

/**
 * Show `error` in the banner (data-testid="error-banner") for a while; a lost connection
 * stays shown until the server answers again (or the browser is back online).
 * @param {unknown} error an ApiError, or a message
 */
export function showError(error) {
  const banner = bannerElement();
  if (error instanceof api.ApiError && error.code === "session_changed") {
    return; // another tab signed out or in: the page is drawn again for that (main.js)
  }
  if (error instanceof api.ApiError && error.status === 401 && error.sentToken) {
    // The session ended elsewhere (signed out from another device, a password changed, the
    // account closed): the page is signed out too, and the sign-in page says why (once: the
    // requests that were on their way with the same token are refused too).
    if (error.sentToken === api.token()) endSession(t("auth.signedOutElsewhere"));
    return;
  }
  if (error instanceof api.ApiError && error.status === 401 && !error.anonymous && api.drawnToken()) {
    // Asked without a token by a page that shows someone signed in: that session is gone
    // here too, and the sign-in page says so (never the server's "credentials not provided"
    // under the name of someone no longer signed in).
    endSession(t("auth.signedOutElsewhere"));
    return;
  }
  if (error instanceof api.ApiError && error.code === "network") {
    offline = true;
    drawOffline();
    return;
  }
  if (!banner) return;
  banner.textContent = typeof error === "string" ? error : messageOf(error);
  banner.dataset.code = error instanceof api.ApiError ? error.code : "";
  banner.hidden = false;
  if (bannerTimer) clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => {
    banner.hidden = true;
    drawOffline(); // a lost connection's banner comes back while it is lost
  }, 8000);
}

/**
 * The page of the route shown is drawn again (main.js), as after a change that makes it another
 * page for the player: a seat taken or left at a table, an invitation accepted.
 */
export function redraw() {
  window.dispatchEvent(new Event("pisyedili:redraw"));
}

/** @type {string | null} what the next page drawn says first (main.js calls `drawNextMessage`) */
let nextMessage = null;

/**
 * The next page drawn says `message` first.
 * @param {string} message
 */
export function sayNext(message) {
  nextMessage = message;
}

/** Says the message left for the page now drawn, if any. */
export function drawNextMessage() {
  if (nextMessage === null) return;
  const message = nextMessage;
  nextMessage = null;
  showError(message);
}

export function hideError() {
  const banner = bannerElement();
  if (banner && !offline) banner.hidden = true;
}

/** The banner of a lost connection, while it is lost (each page draws it again). */
export function drawOffline() {
  const banner = bannerElement();
  if (!banner || !offline) return;
  if (bannerTimer) clearTimeout(bannerTimer);
  bannerTimer = null;
  banner.textContent = t("err.network");
  banner.dataset.code = "network";
  banner.hidden = false;
}

/** Whether the connection is known lost. */
export function isOffline() {
  return offline || !navigator.onLine;
}

function connectionBack() {
  if (!offline) return;
  offline = false;
  const banner = bannerElement();
  if (banner && banner.dataset.code === "network") banner.hidden = true;
  window.dispatchEvent(new Event("pisyedili:reachable"));
}

api.onReachable(connectionBack);
window.addEventListener("offline", () => {
  offline = true;
  drawOffline();
});
window.addEventListener("online", connectionBack);

/** @type {Promise<api.Player | null> | null} */
let mePromise = null;

/** The signed-in player (null when signed out); asked once per sign-in. */
export function currentPlayer() {
  if (!api.token()) return Promise.resolve(null);
  if (mePromise === null) {
    mePromise = api.me().catch((error) => {
      mePromise = null;
      if (error instanceof api.ApiError && error.status === 401) {
        showError(error); // the session ended elsewhere: signed out here, saying so
        return null;
      }
      throw error;
    });
  }
  return mePromise;
}

export function forgetPlayer() {
  mePromise = null;
}

/**
 * The page signed out (the token forgotten, the player to be read again) and the sign-in page
 * opened, which says `message` first when there is one. A session that another tab signed in
 * meanwhile is kept: it is not the one that ended.
 * @param {string | null} [message]
 */
export function endSession(message = null) {
  if (api.token() === api.drawnToken()) {
    api.setSession(null, null);
    // The token no longer answers: the browser drops its push subscription, so that the next
    // person to use it is not told this player's turns (the push service then refuses the
    // server's notices, and the server forgets the subscription).
    forgetDevice(false);
    // Nor are the digests of the hands it was dealt left for them (web/app/fairness.js).
    forgetRecords();
  }
  forgetPlayer();
  nextMessage = message;
  location.hash = "#/login";
}

/**
 * A bot strategy's name in the page's language (its API name when the page does not know it).
 * @param {string} strategy
 */
export function botName(strategy) {
  return has(`bot.${strategy}`) ? t(`bot.${strategy}`) : strategy;
}

/**
 * A player's name; a bot's (the server names it "<strategy> bot <n>") and a deleted account's
 * (the server's "Deleted player") in the page's language.
 * @param {api.SeatPlayer} player
 */
export function playerName(player) {
  if (!player.is_bot && player.display_name === "Deleted player") return t("player.deleted");
  const bot = player.is_bot ? /^(\S+) bot (\d+)$/.exec(player.display_name) : null;
  return bot ? t("bot.named", { name: botName(bot[1]), n: bot[2] }) : player.display_name;
}

/**
 * @param {{ player: api.SeatPlayer | null, seat: number }} seat
 */
export function seatName(seat) {
  return seat.player ? playerName(seat.player) : t("table.seat", { n: seat.seat });
}

/**
 * Who sits at a match's table, by name ("open" for a seat nobody has taken), leaving out the
 * player `except` (the viewer, when the others are meant).
 * @param {api.Match} match
 * @param {string | null} [except]
 */
export function tableNames(match, except = null) {
  return match.seats.filter((seat) => !except || seat.player?.id !== except)
    .map((seat) => (seat.player ? seatName(seat) : t("table.open"))).join(", ");
}

/**
 * The name of who created a match (who invites to a private one): its `creator`'s seat, else
 * its first person seated.
 * @param {api.Match} match
 */
export function creatorName(match) {
  const seat = match.seats.find((s) => s.player?.id === match.creator) ??
    match.seats.find((s) => s.player && !s.player.is_bot);
  return seat ? seatName(seat) : "";
}

/** @param {string} iso */
export function shortTime(iso) {
  return new Date(iso).toLocaleString(dateLocale(), { dateStyle: "short", timeStyle: "short" });
}

/**
 * The locale dates are written in: the browser's own for the page's language where it has one
 * (en-GB: 07/12/2026, 20:34; en-US: 12/7/26, 8:34 PM), else the page's language.
 */
function dateLocale() {
  const lang = document.documentElement.lang || "en";
  const own = (navigator.languages ?? [navigator.language]).find(
    (tag) => typeof tag === "string" && tag.toLowerCase().split("-")[0] === lang);
  return own ?? lang;
}
