// @ts-check
/**
 * The turn cue: while it is the page's turn the tab's title starts with "● Your turn"; as the
 * turn comes, an optional sound (off unless the player turned it on: localStorage
 * `pisyedili.sound`), and a browser notification when the tab is hidden (once the player
 * allowed them). The sound is a short tone made by the page (Web Audio), no file.
 */

import { h } from "../dom.js";
import { t } from "../i18n.js";

const SOUND_KEY = "pisyedili.sound";

function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

/** @type {AudioContext | null} */
let audio = null;

function chime() {
  try {
    audio ??= new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.14);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.14 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.14 + 0.13);
      tone.connect(gain).connect(audio.destination);
      tone.start(now + i * 0.14);
      tone.stop(now + i * 0.14 + 0.14);
    }
  } catch {
    // No audio here: the title and the highlight stay.
  }
}

/** The tab's title while a turn awaits the player: "● Your turn · " before `base`. @param {string} base */
export function turnTitle(base) {
  return `● ${t("table.yourTurn")} · ${base}`;
}

/**
 * A browser notification, where the tab is hidden and the player allowed them; one per `tag`
 * (a newer one replaces it).
 * @param {string} title
 * @param {string} body
 * @param {string} tag
 */
export function notifyHidden(title, body, tag) {
  if (!document.hidden || typeof Notification !== "function" || Notification.permission !== "granted") return;
  try {
    new Notification(title, { body, tag });
  } catch {
    // A browser that shows notifications only from a service worker.
  }
}

/** The cue's controls (sound on/off, notifications) and what the table tells it. */
export function turnCue() {
  const base = document.title;
  let yours = false;
  const sound = h("button", { type: "button", testid: "sound-toggle", "aria-pressed": soundOn() ? "true" : "false" });
  const label = () => {
    sound.textContent = soundOn() ? t("table.soundOn") : t("table.soundOff");
    sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  };
  label();
  sound.addEventListener("click", () => {
    try {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    } catch {
      // storage refused: the sound stays as it was
    }
    label();
    if (soundOn()) chime();
  });
  const canNotify = typeof Notification === "function";
  const notify = canNotify && Notification.permission === "default"
    ? h("button", { type: "button", testid: "notify-button", onclick: async () => {
      try {
        await Notification.requestPermission();
      } finally {
        notify?.remove();
      }
    } }, t("table.notify"))
    : null;
  return {
    controls: h("span", { class: "cue-controls" }, sound, notify),
    /** @param {boolean} now it is the page's turn (in the newest view) */
    turn(now) {
      document.title = now ? turnTitle(base) : base;
      if (now && !yours) {
        if (soundOn()) chime();
        notifyHidden(t("table.yourTurn"), base, "pisyedili-turn");
      }
      yours = now;
    },
    stop() {
      document.title = base;
    },
  };
}
