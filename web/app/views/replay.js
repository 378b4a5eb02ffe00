// @ts-check
/**
 * #/replay/<match>/<deal>: a finished deal step by step with every hand open (one abandoned
 * with its match: up to where it stopped, said so), and its
 * fairness checked in the browser (fairness.js): SHA-256 of the revealed seed is the
 * commitment this browser recorded when the deal started, the R-4 shuffle dealt as R-5 gives
 * the viewer the hand it was shown then, and the replay's own commitment and hands agree with
 * the seed. What was not recorded here (another device) is said, not assumed.
 *
 * The arrow keys step it (Left, Right; Home, End) while the focus is in it or on nothing, each
 * position said politely (the step line is a live region). The position is kept in the page's
 * history entry: drawn again (the language switched) or come back to, it stays where it was.
 */

/**
 * The position kept in the history entry for this deal's replay, else 0.
 * @param {string} matchId
 * @param {number} number
 * @param {number} last
 */
function keptIndex(matchId, number, last) {
  const kept = history.state?.replay;
  if (!kept || kept.match !== matchId || kept.deal !== number) return 0;
  const index = Number(kept.index);
  return Number.isInteger(index) ? Math.min(Math.max(index, 0), last) : 0;
}

/** @param {EventTarget | null} target */
function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

import * as api from "../api.js";
import { cardFace, cardText, suitBadge } from "../cards.js";
import { h, fill } from "../dom.js";
import { checkReplay } from "../fairness.js";
import { t } from "../i18n.js";
import { currentPlayer, seatName, shortTime } from "../ui.js";
import { describeMoves } from "./table-log.js";

/**
 * @param {HTMLElement} root
 * @param {string} matchId
 * @param {string} dealNumber
 */
export async function replayView(root, matchId, dealNumber) {
  const number = Number(dealNumber);
  const [replay, match, viewer] = await Promise.all([
    api.replay(matchId, number), api.match(matchId), currentPlayer().catch(() => null)]);
  const positions = replay.positions;
  const last = positions.length - 1;
  let index = keptIndex(matchId, number, last);
  // Not at the table: no hand of the viewer's to speak of.
  const seated = viewer !== null && match.seats.some((s) => s.player?.id === viewer.id);
  const moves = /** @type {api.MoveEntry[]} */ (positions.slice(1).map((p) => ({
    seq: p.move?.seq ?? p.index,
    deal: number,
    seat: p.move?.seat ?? p.seat ?? 0,
    action: /** @type {api.MoveEntry["action"]} */ (p.move?.action ?? "pass"),
    card: p.move?.card ?? null,
    suit: p.move?.suit ?? null,
    drawn: null,
    drawn_count: p.move?.drawn?.length ?? 0,
    by_bot: false,
    at: "",
    version: null,
    after: null,
    effect: p.move?.effect ?? null,
  })));
  const words = describeMoves(moves, match, null);
  // Said in words (suits named, not drawn), shown with the cards' symbols.
  const spoken = describeMoves(moves, match, null, true);

  const fairness = h("p", { class: "fairness", testid: "fairness-status", "data-result": "" },
    t("fairness.checking"));
  const fairnessChecks = h("ul", { class: "fairness-checks", testid: "fairness-checks" });
  const step = h("div", { class: "replay-step", testid: "replay-step", role: "status",
    "aria-live": "polite", "aria-atomic": "true" });
  const stage = h("div", { class: "replay-stage" });

  function draw() {
    if (history.state?.replay?.index !== index) {
      history.replaceState({ ...history.state, replay: { match: matchId, deal: number, index } }, "");
    }
    const position = positions[index];
    const s = position.state;
    step.dataset.index = String(index);
    step.dataset.last = String(index === last);
    fill(step,
      index === 0 ? t("replay.start", { i: 1, n: positions.length }) : t("replay.step", { i: index + 1, n: positions.length }),
      index > 0 ? h("span", { class: "replay-move" }, " — ",
        h("span", { "aria-hidden": "true" }, words[index - 1]),
        h("span", { class: "visually-hidden" }, spoken[index - 1])) : null);
    fill(stage,
      h("div", { class: "middle" },
        h("div", { class: "pile", testid: "replay-top", "data-card": s.top_card ?? "" },
          h("div", { class: "label" }, t("table.pile")), s.top_card ? cardFace(s.top_card) : h("div", { class: "slot" })),
        h("dl", { class: "facts" },
          h("dt", {}, t("table.activeSuit")),
          suitBadge(s.active_suit),
          h("dt", {}, t("table.direction")), h("dd", {}, s.direction === 1 ? t("dir.cw") : t("dir.ccw")),
          h("dt", {}, t("table.stockLabel")), h("dd", {}, String(s.stock_count)),
          h("dt", {}, t("table.pendingLabel")), h("dd", {}, String(s.pending_sevens)))),
      s.hands.map((hand, seat) => h("div", {
        class: `seat replay-seat${s.turn === seat ? " on-turn" : ""}`,
      },
      h("div", { class: "seat-name" }, match.seats[seat] ? seatName(match.seats[seat]) : String(seat),
        " · ", t("table.cards", { n: hand.length })),
      h("div", { class: "hand small", testid: `replay-hand-${seat}`, "data-count": hand.length },
        hand.map((card) => h("span", { class: "card", "data-card": card, title: cardText(card) }, cardFace(card)))))));
    const focused = document.activeElement;
    prev.disabled = index === 0;
    next.disabled = index === last;
    end.disabled = index === last;
    // A step button the focus was on that can no longer be pressed (at the start, at the end)
    // hands the focus to the one that can: Back at the end, Next at the start.
    if (focused instanceof HTMLButtonElement && focused.disabled && [prev, next, end].includes(focused)) {
      (focused === prev ? next : prev).focus();
    }
  }

  const prev = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "replay-prev",
    onclick: () => go(index - 1) }, t("replay.prev")));
  const next = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "replay-next", class: "primary",
    onclick: () => go(index + 1) }, t("replay.next")));
  const end = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "replay-end",
    onclick: () => go(last) }, t("replay.end")));

  /** @param {number} to */
  function go(to) {
    index = Math.min(last, Math.max(0, to));
    draw();
  }

  const section = h("section", { class: "replay" },
    h("div", { class: "table-head" },
      h("a", { href: `#/match/${matchId}`, testid: "replay-to-match" }, t("replay.toMatch")),
      h("h1", {}, t("replay.title", { n: number }))),
    h("section", { class: "fairness-panel" }, fairness, fairnessChecks),
    h("p", { class: "commitment" }, t("table.commitment", { c: replay.commitment })),
    h("p", { class: "commitment" }, t("replay.seed", { s: replay.seed })),
    // No result: the deal was abandoned with its match (docs/api.md, the replay).
    replay.result === null ? h("p", { class: "notice", testid: "replay-unfinished" }, t("replay.unfinished")) : null,
    h("div", { class: "row replay-controls" }, prev, next, end),
    step,
    stage);
  root.append(section);
  draw();

  /** @param {KeyboardEvent} event */
  function keys(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    const target = event.target;
    if (!(target instanceof Node) || !(target === document.body || section.contains(target))) return;
    const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    go(to);
  }
  document.addEventListener("keydown", keys);
  const stop = () => document.removeEventListener("keydown", keys);

  try {
    const handSize = Number(/** @type {Record<string, unknown>} */ (replay.rules ?? {}).hand_size ?? 7);
    const verdict = await checkReplay(matchId, number, {
      seed: replay.seed,
      commitment: replay.commitment,
      seat_count: replay.seat_count,
      opener: replay.opener,
      hand_size: handSize,
      hands_at_start: replay.hands_at_start,
    });
    const record = verdict.record;
    const seat = record?.seat ?? null;
    const when = record ? shortTime(new Date(record.at).toISOString()) : "";
    fairness.dataset.result = verdict.result;
    fairness.classList.add(verdict.result);
    // Watched from no seat: the seed is checked, no hand of the viewer's is.
    fairness.textContent = t(verdict.result === "verified" && record !== null && seat === null
      ? "fairness.verifiedWatched" : `fairness.${verdict.result}`);
    fill(fairnessChecks, verdict.checks.map((check) => {
      const state = check.ok === true ? "ok" : check.ok === false ? "bad" : "none";
      const key = check.name !== "recorded_hand" ? `check.${check.name}.${state}`
        : record !== null && seat === null ? "check.recorded_hand.watcher"
          // Nothing recorded here, and no seat at the table: no hand was ever the viewer's.
          : record === null && !seated ? "check.recorded_hand.visitor" : `check.${check.name}.${state}`;
      const name = seat !== null && match.seats[seat] ? seatName(match.seats[seat]) : String(seat ?? "");
      return h("li", { testid: "fairness-check", "data-check": check.name, "data-ok": state, class: state },
        h("span", { class: "mark", "aria-hidden": "true" }, state === "ok" ? "✓" : state === "bad" ? "✗" : "?"),
        " ", t(key, { when, seat: name }));
    }),
    record ? h("li", { class: "commitment", testid: "recorded-commitment" },
      t("fairness.recorded", { c: record.commitment })) : null);
  } catch (error) {
    stop();
    throw error;
  }
  return stop;
}
