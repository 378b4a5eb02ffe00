// @ts-check
/**
 * #/lobby: the open matches to join (first, so a phone shows them above the form), create a
 * match (seats, deals, bots or open seats, a named rule set or every option, spectators), my
 * matches, and the matches being played (watch). It refreshes when
 * the player's own event stream (/me/events) says a match started or finished. Above them, the
 * player's invitations to answer, to private tables and to tournaments (invitations.js).
 * The matches being played are read again every LIVE_EVERY ms while the page is visible (and
 * as it becomes visible again): no stream tells of a match seated full at its creation (bots,
 * rematches, tournament tables) nor of one that ended.
 */

import * as api from "../api.js";
import { h, fill, select } from "../dom.js";
import { has, t } from "../i18n.js";
import { LiveStream } from "../live.js";
import { onMyEvent } from "../my-events.js";
import { quickPlayPanel } from "./quickplay.js";
import { botName, currentPlayer, showError, shortTime, tableNames } from "../ui.js";
import { invitationsPanel } from "./invitations.js";
import { privateChoice } from "./private.js";
import { describeRules, loadRules, rulesPicker } from "./rules-picker.js";

/** How often the matches being played are read again, while the page is visible. */
const LIVE_EVERY = 20_000;

/**
 * @param {api.Match} match
 */
function openSeats(match) {
  return match.open_seats ?? match.seats.filter((seat) => seat.player === null).length;
}

/** @param {HTMLElement} root */
export async function lobbyView(root) {
  const [player, offered] = await Promise.all([currentPlayer(), loadRules()]);
  /** The table's rule set by its preset's name, or "Custom" and what it changes. @param {api.Match} m */
  const rulesOf = (m) => {
    if (!offered.options.length) return null;
    const told = describeRules(m.rules, offered);
    return h("span", { testid: "lobby-rules", "data-preset": told.preset ?? "custom", title: told.changes },
      " · ", told.preset ? told.name : `${told.name} (${told.changes})`);
  };
  const openList = h("ul", { class: "list", testid: "lobby-list" });
  const mineList = h("ul", { class: "list", testid: "my-matches" });
  const liveList = h("ul", { class: "list", testid: "live-matches" });
  /** @type {Set<string>} the matches the player sits in, as last read */
  let seatedIn = new Set();

  /** @param {api.Match[]} live the matches being played */
  function drawLive(live) {
    // A match closed to spectators is not the lobby's to show (but to its seats).
    const shown = live.filter((m) => m.spectators !== "none" || seatedIn.has(m.id));
    fill(
      liveList,
      shown.length === 0 ? h("li", { class: "empty" }, t("lobby.noLive")) : null,
      shown.map((m) =>
        h("li", { testid: "live-match", "data-match-id": m.id },
          h("span", { class: "grow" }, tableNames(m), " · ", t("table.deal", { n: m.current_deal ?? 0, m: m.deals_total })),
          h("a", { href: `#/match/${m.id}`, class: "button", testid: "watch-link" }, t("lobby.watch")))),
    );
  }

  /** The matches being played, alone. */
  async function refreshLive() {
    try {
      drawLive((await api.matches({ status: "active", limit: 20 })).results);
    } catch {
      // Kept as they were: read again at the next turn.
    }
  }

  async function refresh() {
    try {
      const [open, live, mine] = await Promise.all([
        api.matches({ status: "waiting", limit: 50 }),
        api.matches({ status: "active", limit: 20 }),
        player ? api.matches({ player: player.id, limit: 30 }) : Promise.resolve(null),
      ]);
      seatedIn = new Set((mine?.results ?? []).map((m) => m.id));
      // A private table is never the lobby's: the invitations (invitations.js) list it.
      open.results = open.results.filter((m) => !m.private);
      fill(
        openList,
        open.results.length === 0 ? h("li", { class: "empty" }, t("lobby.noOpen")) : null,
        open.results.map((m) =>
          h(
            "li",
            { testid: "lobby-match", "data-match-id": m.id, "data-open-seats": openSeats(m) },
            h("span", { class: "grow" }, tableNames(m), " · ", t("lobby.openSeats", { n: openSeats(m) }),
              " · ", t("lobby.dealsOf", { n: m.deals_total }), rulesOf(m)),
            seatedIn.has(m.id)
              ? h("a", { href: `#/match/${m.id}`, class: "button" }, t("lobby.play"))
              : h("button", {
                  testid: "join-button",
                  type: "button",
                  class: "primary",
                  disabled: !player,
                  onclick: () => joinMatch(m.id),
                }, t("lobby.join")),
          ),
        ),
      );
      drawLive(live.results);
      if (!mine) {
        fill(mineList, h("li", { class: "empty" }, t("lobby.signIn")));
        return;
      }
      fill(
        mineList,
        mine.results.length === 0 ? h("li", { class: "empty" }, t("lobby.noMine")) : null,
        mine.results.map((m) => {
          const status = m.status === "waiting" && m.cancel_reason ? "cancelled" : m.status;
          return h(
            "li",
            { testid: "my-match", "data-match-id": m.id, "data-status": m.status },
            h("span", { class: `status status-${status}` }, t(`status.${status}`)),
            h("span", { class: "grow" }, tableNames(m), " · ", shortTime(m.created_at)),
            m.status === "waiting" && player && m.creator === player.id
              ? h("button", { type: "button", testid: "cancel-button", onclick: () => act(api.cancel, m.id) },
                  t("lobby.cancel"))
              : m.status === "waiting"
                ? h("button", { type: "button", testid: "leave-button", onclick: () => act(api.leave, m.id) },
                    t("lobby.leave"))
                : null,
            h("a", { href: `#/match/${m.id}`, class: "button", testid: "watch-link" },
              m.status === "active" || m.status === "waiting" ? t("lobby.play")
                : m.status === "cancelled" ? t("lobby.watch") : t("lobby.result")),
          );
        }),
      );
    } catch (error) {
      showError(error);
    }
  }

  /** @param {string} id */
  async function joinMatch(id) {
    try {
      const joined = await api.join(id);
      location.hash = `#/match/${joined.id}`;
    } catch (error) {
      showError(error);
      refresh();
    }
  }

  /**
   * @param {(id: string) => Promise<api.Match>} call
   * @param {string} id
   */
  async function act(call, id) {
    try {
      await call(id);
    } catch (error) {
      showError(error);
    }
    refresh();
  }

  const form = player ? await createForm(player) : h("p", { class: "card-panel" }, t("lobby.signIn"),
    " ", h("a", { href: "#/login" }, t("nav.login")));
  const invitations = player
    ? invitationsPanel(player, { matches: true, tournaments: true, title: t("private.challenges"),
      empty: t("private.noChallenges"), testid: "challenges" })
    : null;

  const quick = player ? await quickPlayPanel() : null;
  root.append(
    h("h1", { class: "visually-hidden" }, t("nav.lobby")),
    h("div", { class: "lobby" },
      quick?.element,
      invitations?.element,
      h("section", { class: "card-panel lobby-open" },
        h("div", { class: "row" }, h("h2", { class: "grow" }, t("lobby.open")),
          h("button", { type: "button", testid: "lobby-refresh", onclick: () => refresh() }, t("lobby.refresh"))),
        openList),
      form,
      h("section", { class: "card-panel" }, h("h2", {}, t("lobby.mine")), mineList),
      h("section", { class: "card-panel" }, h("h2", {}, t("lobby.live")), liveList)),
  );
  await refresh();
  // The lobby's own stream: any match entering, changing in or leaving the lobby refreshes
  // the lists (at most every 300 ms), and so does each (re)connect's `ready`.
  /** @type {ReturnType<typeof setTimeout> | null} */
  let pending = null;
  const lobbyStream = new LiveStream("/lobby/events", ["ready", "lobby", "resync"], {
    onEvent: () => {
      pending ??= setTimeout(() => {
        pending = null;
        refresh();
      }, 300);
    },
    onStatus: () => {},
  });
  // The matches being played, read again while the page is seen.
  const liveTimer = setInterval(() => { if (!document.hidden) refreshLive(); }, LIVE_EVERY);
  const visible = () => { if (!document.hidden) refreshLive(); };
  document.addEventListener("visibilitychange", visible);
  const unlisten = player
    ? onMyEvent((name, data) => {
      invitations?.onEvent(name, data);
      if (["match_started", "match_finished", "match_cancelled", "resync"].includes(name)) refresh();
    })
    : null;
  return () => {
    unlisten?.();
    quick?.stop();
    lobbyStream.stop();
    if (pending) clearTimeout(pending);
    clearInterval(liveTimer);
    document.removeEventListener("visibilitychange", visible);
  };
}

/** @param {api.Player} player */
async function createForm(player) {
  const [strategies, offered] = await Promise.all([
    api.bots().catch(() => /** @type {api.Bot[]} */ ([{ strategy: "casual", description: "", level: "casual", rating: null }])),
    loadRules(),
  ]);
  const picker = rulesPicker(offered,
    { presets: "create-presets", preset: "preset-", box: "custom-rules", rule: "create-rule-" },
    () => fitSeats());
  const seats = select({ testid: "create-seats", id: "create-seats" }, [], "3");
  /** The seats the chosen rules allow (2..max_players), the choice kept where it still fits. */
  const fitSeats = () => {
    const most = Math.max(2, picker.maxPlayers());
    const chosen = Math.min(Number(seats.value) || 3, most);
    fill(seats, Array.from({ length: most - 1 }, (_, i) => h("option", { value: String(i + 2) }, String(i + 2))));
    seats.value = String(chosen);
    seats.dispatchEvent(new Event("change")); // the bots' seats, the private table's invitations
  };
  const deals = /** @type {HTMLInputElement} */ (
    h("input", { testid: "create-deals", id: "create-deals", type: "number", min: 1, max: 20, value: "1" })
  );
  const botBox = h("div", { class: "bots" });
  // The levels first, weakest to strongest (the server's order: a level is its own strategy);
  // the other strategies (greedy, the searches) apart under their heading. A level is the default.
  const levels = strategies.filter((b) => b.level === b.strategy);
  const others = strategies.filter((b) => b.level !== b.strategy);
  const preferred = levels.some((b) => b.strategy === "casual") ? "casual"
    : levels[0]?.strategy ?? strategies[0]?.strategy ?? "person";
  /** What a choice plays, in the page's language where the client has the words. @param {string} value */
  const about = (value) => value === "person" ? t("lobby.personAbout")
    : has(`bot.about.${value}`) ? t(`bot.about.${value}`)
      : strategies.find((b) => b.strategy === value)?.description ?? "";
  /** @param {api.Bot} b */
  const option = (b) => h("option", { value: b.strategy }, `${t("table.bot")}: ${botName(b.strategy)}`);
  const drawBots = () => {
    const n = Number(seats.value);
    const previous = Array.from(botBox.querySelectorAll("select"), (s) => s.value);
    fill(botBox,
      h("div", { class: "seat-choice" }, t("lobby.you")),
      Array.from({ length: n - 1 }, (_, i) => {
        const seat = i + 1;
        const id = `create-bot-about-${seat}`;
        const choice = /** @type {HTMLSelectElement} */ (h("select", { testid: "create-bots", "data-seat": seat, "aria-describedby": id },
          levels.length ? levels.map(option) : others.map(option),
          h("option", { value: "person" }, t("lobby.person")),
          levels.length && others.length ? h("optgroup", { label: t("lobby.otherBots") }, others.map(option)) : null));
        choice.value = previous[i] ?? preferred;
        const text = h("p", { class: "bot-about", id, testid: "create-bot-about", "data-seat": seat }, about(choice.value));
        choice.addEventListener("change", () => { text.textContent = about(choice.value); });
        return h("div", { class: "seat-choice" },
          h("label", {}, t("lobby.seatN", { n: seat }), " ", choice),
          text);
      }));
  };
  seats.addEventListener("change", drawBots);
  fitSeats();
  const spectators = select({ testid: "create-spectators", id: "create-spectators" },
    [["public", t("spectators.public")], ["none", t("spectators.none")]], "public");
  const privacy = privateChoice(spectators,
    () => Array.from(botBox.querySelectorAll("select"), (s) => s.value).filter((c) => c === "person").length, player.id);
  const clock = /** @type {HTMLInputElement} */ (
    h("input", { testid: "create-turn-seconds", id: "create-turn-seconds", type: "number", min: 1, max: 86400 })
  );

  async function submit() {
    const chosen = Array.from(botBox.querySelectorAll("select"), (s) => s.value);
    /** @type {api.Schemas["MatchCreateRequest"] & { spectators?: "public" | "none" }} */
    const body = {
      seats: Number(seats.value),
      bots: chosen.filter((c) => c !== "person"),
      deals: Number(deals.value) || 1,
      rules: picker.rules(),
      spectators: spectators.value === "none" ? "none" : "public",
    };
    if (clock.value) body.turn_seconds = Number(clock.value);
    Object.assign(body, privacy.body());
    try {
      const created = await api.createMatch(body);
      location.hash = `#/match/${created.id}`;
    } catch (error) {
      showError(error);
    }
  }

  return h("section", { class: "card-panel create" },
    h("h2", {}, t("lobby.create")),
    h("form", { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); submit(); } },
      h("div", { class: "row" },
        h("label", { for: "create-seats" }, t("lobby.seats")), seats,
        h("label", { for: "create-deals" }, t("lobby.deals")), deals),
      botBox,
      privacy.element,
      picker.element,
      h("div", { class: "more-options" },
        h("label", { for: "create-spectators" }, t("lobby.spectators")), spectators,
        h("label", { for: "create-turn-seconds" }, t("lobby.turnSeconds")), clock),
      h("button", { testid: "create-submit", type: "submit", class: "primary" }, t("lobby.submit"))));
}
