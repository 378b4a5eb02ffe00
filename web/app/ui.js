// @ts-check
/** What every page shares: the error banner, names of players, the signed-in player. */

import * as api from "./api.js";
import { t, has } from "./i18n.js";

/** @type {ReturnType<typeof setTimeout> | null} */
let bannerTimer = null;

/**
 * A clear message for an API error (in the page's language), never a stack or a body.
 * @param {unknown} error
 */
export function messageOf(error) {
  if (error instanceof api.ApiError) {
    if (error.code === "network") return t("err.network");
    if (has(`err.${error.code}`)) return t(`err.${error.code}`);
    return error.message || t("err.server_error");
  }
  return t("err.server_error");
}

/**
 * Show `error` in the banner (data-testid="error-banner") for a while.
 * @param {unknown} error an ApiError, or a message
 */
export function showError(error) {
  const banner = document.querySelector('[data-testid="error-banner"]');
  if (!(banner instanceof HTMLElement)) return;
  banner.textContent = typeof error === "string" ? error : messageOf(error);
  if (error instanceof api.ApiError) banner.dataset.code = error.code;
  banner.hidden = false;
  if (bannerTimer) clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => {
    banner.hidden = true;
  }, 8000);
}

export function hideError() {
  const banner = document.querySelector('[data-testid="error-banner"]');
  if (banner instanceof HTMLElement) banner.hidden = true;
}

/** @type {Promise<api.Player | null> | null} */
let mePromise = null;

/** The signed-in player (null when signed out); asked once per sign-in. */
export function currentPlayer() {
  if (!api.token()) return Promise.resolve(null);
  if (mePromise === null) {
    mePromise = api.me().catch((error) => {
      mePromise = null;
      if (error instanceof api.ApiError && error.status === 401) {
        api.setSession(null, null);
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
 * @param {{ player: api.SeatPlayer | null, seat: number }} seat
 */
export function seatName(seat) {
  return seat.player ? seat.player.display_name : t("table.seat", { n: seat.seat });
}

/** @param {string} iso */
export function shortTime(iso) {
  return new Date(iso).toLocaleString(document.documentElement.lang || "en", {
    dateStyle: "short",
    timeStyle: "short",
  });
}
