// @ts-check
/**
 * Web Push on this device (docs/api.md "Notifications"): the service worker (/sw.js, the whole
 * site its scope) shows the server's notices (your turn, a challenge, a tournament round) while
 * no page of the player's is open. Turning it on asks the browser's permission, subscribes with
 * the server's VAPID key and gives the subscription to the server; turning it off removes both,
 * and so does signing out (`forgetDevice`): the next person to use the browser is not told the
 * previous player's turns and challenges. The server's id of this device's subscription is kept
 * in localStorage["pisyedili.push"] while it is on.
 */

import * as api from "./api.js";

/** @typedef {"unsupported" | "server-off" | "denied" | "off" | "on"} PushState */

/** Where this device's subscription, as the server keeps it (`{id, endpoint}`), is kept. */
export const PUSH_KEY = "pisyedili.push";

/** @param {{ id: string, endpoint: string }} row */
function remember(row) {
  localStorage.setItem(PUSH_KEY, JSON.stringify({ id: row.id, endpoint: row.endpoint }));
}

/** @returns {{ id: string, endpoint: string } | null} */
function remembered() {
  try {
    const kept = JSON.parse(localStorage.getItem(PUSH_KEY) ?? "null");
    return kept && typeof kept.id === "string" ? { id: kept.id, endpoint: String(kept.endpoint ?? "") } : null;
  } catch {
    return null;
  }
}

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** @param {string} text base64url */
function bytes(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

async function subscription() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/** This device's state: whether it can, and whether the server keeps its subscription. */
export async function pushState() {
  if (!pushSupported()) return /** @type {PushState} */ ("unsupported");
  const key = await api.vapidKey();
  if (!key.enabled) return /** @type {PushState} */ ("server-off");
  if (Notification.permission === "denied") return /** @type {PushState} */ ("denied");
  const mine = await subscription();
  if (!mine) return /** @type {PushState} */ ("off");
  const row = (await api.pushSubscriptions()).find((kept) => kept.endpoint === mine.endpoint);
  if (row) remember(row);
  return /** @type {PushState} */ (row ? "on" : "off");
}

/** Permission, the worker, the subscription, then the server. @returns {Promise<PushState>} */
export async function pushOn() {
  const key = await api.vapidKey();
  if (!key.enabled || !key.public_key) return "server-off";
  if ((await Notification.requestPermission()) !== "granted") return "denied";
  await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
  const registration = await navigator.serviceWorker.ready;
  const made = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: bytes(key.public_key),
  });
  const json = made.toJSON();
  remember(await api.subscribePush({
    endpoint: String(json.endpoint),
    keys: { p256dh: String(json.keys?.p256dh), auth: String(json.keys?.auth) },
  }));
  return "on";
}

/** The server forgets this device's subscription, and the browser drops it. @returns {Promise<PushState>} */
export async function pushOff() {
  localStorage.removeItem(PUSH_KEY);
  const mine = await subscription();
  if (mine) {
    for (const row of await api.pushSubscriptions()) {
      if (row.endpoint === mine.endpoint) await api.unsubscribePush(row.id);
    }
    await mine.unsubscribe();
  }
  return "off";
}

/**
 * Signing out: the server forgets this device's subscription (asked while the session's token
 * still answers: `signedIn`), and the browser drops it. Nothing of it stops the sign-out.
 * @param {boolean} signedIn false: the token no longer answers (the session ended elsewhere),
 *   the browser's subscription alone is dropped
 */
export async function forgetDevice(signedIn) {
  const kept = remembered();
  localStorage.removeItem(PUSH_KEY);
  /** @type {PushSubscription | null} */
  let mine = null;
  try {
    mine = pushSupported() ? await subscription() : null;
  } catch {
    mine = null;
  }
  if (signedIn) {
    try {
      if (kept) await api.unsubscribePush(kept.id);
      if (mine && mine.endpoint !== kept?.endpoint) {
        for (const row of await api.pushSubscriptions()) {
          if (row.endpoint === mine.endpoint) await api.unsubscribePush(row.id);
        }
      }
    } catch {
      // Gone already, or the server out of reach: the browser's own subscription goes below,
      // after which the push service refuses the server's notices (and it forgets them).
    }
  }
  try {
    await mine?.unsubscribe();
  } catch {
    // The browser refused: nothing more to do here.
  }
}
