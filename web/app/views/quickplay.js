// @ts-check
/**
 * The lobby's "Play now" panel (quick play, POST /queue): a table size, a named rule set (GET
 * /rules/presets), how long to wait and whether bots may fill the table. While the player waits
 * it shows the time left and a Cancel button (POST /queue/leave); once the server seats them
 * (the `queue` event of /me/events, or GET /queue read every few seconds) it goes to the table;
 * a wait that ends with no table says so and shows the form again. A screen reader is told each
 * change of state (waiting, found nobody) in the panel's status line, never the countdown.
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { has, t } from "../i18n.js";
import { onMyEvent } from "../my-events.js";
import { showError } from "../ui.js";
import { presetName } from "./rules-picker.js";

const SEATS = [2, 3, 4, 5, 6];
const WAITS = [10, 30, 60, 120, 300];
const POLL_MS = 3000;
/** A table found this recently is offered again on the lobby (the player left it meanwhile). */
const RECENT_MS = 10 * 60 * 1000;

/** @param {number} seconds */
function waitLabel(seconds) {
  return seconds < 60 ? t("quick.seconds", { n: seconds }) : t("quick.minutes", { n: seconds / 60 });
}

/**
 * A group of radio buttons that look like chips (clicks and the arrow keys choose).
 * @param {string} name
 * @param {string} legend
 * @param {[string, string][]} choices [value, label]
 * @param {string} chosen
 * @param {(value: string) => string | undefined} [about] a choice's meaning (its tooltip)
 */
function chips(name, legend, choices, chosen, about = () => undefined) {
  return h("fieldset", { class: "chips", testid: `quick-${name}` },
    h("legend", {}, legend),
    choices.map(([value, label]) =>
      h("label", { class: "chip", testid: `quick-${name}-${value}`, title: about(value) },
        h("input", { type: "radio", name: `quick-${name}`, value, checked: value === chosen }),
        h("span", {}, label))));
}

/** @param {HTMLElement} box @param {string} name */
function chosen(box, name) {
  const input = box.querySelector(`input[name="quick-${name}"]:checked`);
  return input instanceof HTMLInputElement ? input.value : "";
}

/**
 * The panel, and a function that stops its listening and timers (the lobby's cleanup).
 * @returns {Promise<{ element: HTMLElement, stop: () => void }>}
 */
export async function quickPlayPanel() {
  const presets = await api.rulePresets().catch(() => [{ name: "classic", rules: {} }]);
  const body = h("div", { testid: "quick-body" });
  // What changed (the wait began, or ended with no table), said once: a live region of its own,
  // there from the start (so each change is announced), without the countdown or the buttons.
  const said = h("p", { class: "visually-hidden", role: "status", testid: "quick-said" });
  const panel = h("section", { class: "card-panel quick-play", testid: "quick-play" },
    h("h2", {}, t("quick.title")), said, body);
  /** @type {(() => void) | null} stops listening to the player's events */
  let unlisten = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let ticker = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let poller = null;
  let stopped = false;

  function quiet() {
    unlisten?.();
    unlisten = null;
    if (ticker) clearInterval(ticker);
    if (poller) clearInterval(poller);
    ticker = poller = null;
  }

  /**
   * Show `content` in the panel; where the focus was in it (Play now, Cancel), it goes to
   * `control`, the panel's new main control.
   * @param {HTMLElement} content
   * @param {HTMLElement | null} control
   */
  function show(content, control) {
    const focused = body.contains(document.activeElement);
    fill(body, content);
    if (focused) control?.focus();
  }

  /** The choices the form offers first: the last entry's (its wait ended, it was left). */
  let last = { seats: "2", preset: "classic", wait: "30", bots: true };

  /** @param {string} [notice] */
  function showForm(notice) {
    quiet();
    const form = h("form", {
      class: "quick-form",
      onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); join(form); },
    },
    h("p", { class: "muted" }, t("quick.intro")),
    notice ? h("p", { class: "notice", testid: "quick-notice" }, notice) : null,
    chips("seats", t("quick.seats"), SEATS.map((n) => [String(n), String(n)]), last.seats),
    chips("preset", t("quick.rules"), presets.map((p) => [p.name, presetName(p.name)]), last.preset,
      (name) => (has(`preset.about.${name}`) ? t(`preset.about.${name}`) : undefined)),
    chips("wait", t("quick.wait"), WAITS.map((s) => [String(s), waitLabel(s)]), last.wait),
    h("label", { class: "check", testid: "quick-bots-label" },
      h("input", { type: "checkbox", testid: "quick-bots", checked: last.bots }),
      " ", t("quick.bots")),
    h("button", { type: "submit", class: "primary big", testid: "quick-play-button" }, t("quick.play")));
    show(form, form.querySelector('[data-testid="quick-play-button"]'));
    said.textContent = notice ?? "";
  }

  /** @param {HTMLElement} form */
  async function join(form) {
    const bots = form.querySelector('[data-testid="quick-bots"]');
    try {
      const entry = await api.joinQueue({
        seats: Number(chosen(form, "seats")),
        preset: /** @type {any} */ (chosen(form, "preset")),
        wait_seconds: Number(chosen(form, "wait")),
        bots_allowed: bots instanceof HTMLInputElement && bots.checked,
      });
      follow(entry);
    } catch (error) {
      if (error instanceof api.ApiError && error.code === "already_queued") {
        follow(await api.queue());
        return;
      }
      showError(error);
    }
  }

  /** What the entry says: wait, go to the table, or the form again (none: never queued).
   * @param {api.QueueEntry | null} entry */
  function follow(entry) {
    if (stopped) return;
    if (entry) {
      last = {
        seats: String(entry.seats),
        preset: entry.preset && presets.some((p) => p.name === entry.preset) ? entry.preset : last.preset,
        wait: WAITS.includes(entry.wait_seconds) ? String(entry.wait_seconds) : last.wait,
        bots: entry.bots_allowed,
      };
    }
    if (entry === null) {
      showForm();
    } else if (entry.status === "seated" && entry.match) {
      quiet();
      location.hash = `#/match/${entry.match}`;
    } else if (entry.status === "waiting") {
      if (!ticker) showWaiting(entry);
    } else {
      showForm(entry.status === "expired" ? t("quick.expired") : undefined);
    }
  }

  /** @param {api.QueueEntry} entry */
  function showWaiting(entry) {
    quiet();
    const deadline = Date.parse(entry.deadline);
    const left = h("span", { testid: "quick-left" });
    const tick = () => {
      left.textContent = t("quick.left", { n: Math.max(0, Math.ceil((deadline - api.serverNow()) / 1000)) });
    };
    tick();
    const cancel = h("button", { type: "button", testid: "quick-cancel", onclick: () => leave() }, t("quick.cancel"));
    const waiting = t("quick.waiting", { seats: entry.seats, rules: presetName(entry.preset ?? "custom") });
    show(
      h("div", { class: "quick-waiting", testid: "quick-waiting" },
        h("span", { class: "spinner", "aria-hidden": "true" }),
        h("p", { class: "grow" },
          waiting,
          " ", left,
          entry.bots_allowed ? h("span", { class: "muted" }, " · ", t("quick.botsAfter")) : null),
        cancel),
      cancel);
    said.textContent = waiting;
    ticker = setInterval(tick, 1000);
    unlisten = onMyEvent((name, data) => {
      if (name === "queue") follow(/** @type {api.QueueEntry} */ (data));
    });
    poller = setInterval(() => { api.queue().then(follow, () => {}); }, POLL_MS);
  }

  async function leave() {
    try {
      follow(await api.leaveQueue());
    } catch (error) {
      if (error instanceof api.ApiError && error.code === "not_queued") {
        follow(await api.queue());
        return;
      }
      showError(error);
    }
  }

  showForm();
  try {
    const entry = await api.queue();
    if (entry?.status === "waiting") follow(entry);
    else if (entry?.status === "seated" && entry.match && entry.ended_at
             && api.serverNow() - Date.parse(entry.ended_at) < RECENT_MS
             && (await api.match(entry.match)).status === "active") {
      // Seated while away from the lobby: the way to that table.
      body.prepend(h("p", { class: "notice", testid: "quick-seated" }, t("quick.seated"), " ",
        h("a", { href: `#/match/${entry.match}`, testid: "quick-seated-link" }, t("quick.toTable"))));
    }
  } catch {
    // The entry could not be read: the form.
  }
  return {
    element: panel,
    stop: () => {
      stopped = true;
      quiet();
    },
  };
}
