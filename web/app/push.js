// @ts-check
/**
 * Web Push on this device (docs/api.md "Notifications"): the service worker (/sw.js, the whole
 * site its scope) shows the server's notices (your turn, a challenge, a tournament round) while
 * no page of the player's is open. Turning it on asks the browser's permission, subscribes with
 * the server's VAPID key and gives the subscription to the server; turning it off removes both.
 */

import * as api from "./api.js";

/** @typedef {"unsupported" | "server-off" | "denied" | "off" | "on"} PushState */

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
  const kept = await api.pushSubscriptions();
  return /** @type {PushState} */ (kept.some((row) => row.endpoint === mine.endpoint) ? "on" : "off");
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
  await api.subscribePush({
    endpoint: String(json.endpoint),
    keys: { p256dh: String(json.keys?.p256dh), auth: String(json.keys?.auth) },
  });
  return "on";
}

/** The server forgets this device's subscription, and the browser drops it. @returns {Promise<PushState>} */
export async function pushOff() {
  const mine = await subscription();
  if (mine) {
    for (const row of await api.pushSubscriptions()) {
      if (row.endpoint === mine.endpoint) await api.unsubscribePush(row.id);
    }
    await mine.unsubscribe();
  }
  return "off";
}
