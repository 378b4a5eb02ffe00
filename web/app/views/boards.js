// @ts-check
/**
 * #/leaderboards: a board by rule set, metric (rating, wins, penalty per deal, skill), period
 * and table size, around me, page by page; a line under the controls says what the metric
 * measures. The rule sets and table sizes offered are the boards there are (GET /leaderboards),
 * each rule set by its preset's name where it is one, the default rules first.
 */

import * as api from "../api.js";
import { h, fill, select } from "../dom.js";
import { decimal, t } from "../i18n.js";
import { playerName, shortTime, showError } from "../ui.js";
import { describeRules, loadRules, presetName } from "./rules-picker.js";

/**
 * Each board's rule set once, with its name: a preset's whose rules are the board's (every
 * option, its defaults filled in), else "Custom rules" and the options that differ from the
 * defaults (its key where the server offers no options); the default rules first.
 * @param {api.Leaderboard[]} boards
 * @param {{ options: api.RuleOption[], presets: api.Schemas["RulePreset"][] }} offered
 * @returns {[string, string][]} [ruleset, name]
 */
function rulesets(boards, offered) {
  /** @type {Map<string, string>} */
  const named = new Map([["default", presetName("classic")]]);
  for (const board of boards) {
    if (named.has(board.ruleset)) continue;
    const told = describeRules(board.rules, offered);
    named.set(board.ruleset, told.preset ? told.name
      : offered.options.length ? t("boards.customRules", { changes: cut(told.changes) })
        : t("boards.customRulesKey", { key: board.ruleset }));
  }
  return [...named];
}

/** The most of a custom rule set's changes a choice shows (it fits a phone's screen). */
const CHANGES_SHOWN = 30;

/** @param {string} text */
function cut(text) {
  return text.length <= CHANGES_SHOWN ? text : `${text.slice(0, CHANGES_SHOWN - 1).trimEnd()}…`;
}

/** A board's columns, and the one of each metric. */
const COLUMNS = ["rank", "player", "rating", "matches", "wins", "deals_won", "avg_penalty", "skill"];
/** @type {Record<string, string>} */
const METRIC_COLUMN = { rating: "rating", wins: "wins", points: "avg_penalty", skill: "skill" };
/** @type {Record<string, (row: api.LeaderboardPage["results"][number]) => HTMLElement>} */
const CELLS = {
  rank: (row) => h("td", {}, String(row.rank)),
  player: (row) => h("td", {}, playerName(row.player), row.player.is_bot ? ` (${t("table.bot")})` : ""),
  rating: (row) => h("td", {}, decimal(row.rating, 2)),
  matches: (row) => h("td", {}, String(row.matches)),
  wins: (row) => h("td", {}, String(row.wins)),
  deals_won: (row) => h("td", {}, String(row.deals_won)),
  avg_penalty: (row) => h("td", {}, row.avg_penalty === null ? "–" : decimal(row.avg_penalty, 2)),
  skill: (row) => h("td", { testid: "board-skill", "data-skill": row.skill ?? "", "data-skill-deals": row.skill_deals,
    title: t("boards.skillDeals", { n: row.skill_deals }) },
  row.skill === null ? "–" : `${decimal(row.skill, 2)} (${row.skill_deals})`),
};

/** @param {HTMLElement} root */
export async function boardsView(root) {
  const [boards, offered] = await Promise.all([
    api.leaderboards().catch(() => /** @type {api.Leaderboard[]} */ ([])),
    loadRules(),
  ]);
  const ruleset = select({ testid: "board-ruleset", id: "board-ruleset" }, rulesets(boards, offered), "default");
  const metric = select({ testid: "board-metric", id: "board-metric" },
    ["rating", "wins", "points", "skill"].map((m) => [m, t(`metric.${m}`)]), "rating");
  const about = h("p", { class: "metric-about", testid: "board-metric-about" });
  const explain = () => {
    about.dataset.metric = metric.value;
    about.textContent = t(`metric.about.${metric.value}`);
  };
  metric.addEventListener("change", explain);
  explain();
  const period = select({ testid: "board-period", id: "board-period" },
    ["all", "month", "week"].map((p) => [p, t(`period.${p}`)]), "all");
  // A month or a week runs by UTC (Monday 00:00 to Monday 00:00): its bounds in the reader's
  // own time, where a week does not turn at their midnight.
  const bounds = h("p", { class: "muted", testid: "board-period-bounds" });
  const drawBounds = () => {
    const range = /** @type {Record<string, { start?: string, end?: string }>} */ (boards[0]?.periods ?? {})[period.value];
    bounds.hidden = !(range?.start && range?.end);
    bounds.textContent = range?.start && range?.end
      ? t("boards.periodBounds", { start: shortTime(range.start), end: shortTime(range.end) }) : "";
  };
  period.addEventListener("change", drawBounds);
  drawBounds();
  const seats = select({ testid: "board-seats", id: "board-seats" }, [], "");
  /** The table sizes with a board under the chosen rules (every size's board always). */
  const fitSeats = () => {
    const sizes = boards.filter((b) => b.ruleset === ruleset.value && b.seats !== null)
      .map((b) => /** @type {number} */ (b.seats)).sort((a, b) => a - b);
    const chosen = seats.value;
    fill(seats, h("option", { value: "" }, t("boards.allSeats")),
      sizes.map((n) => h("option", { value: String(n) }, t("boards.seatsN", { n }))));
    seats.value = sizes.includes(Number(chosen)) ? chosen : "";
  };
  fitSeats();
  ruleset.addEventListener("change", fitSeats);
  // A custom rule set's changes in full (its choice shows their start).
  const rulesAbout = h("p", { class: "metric-about", testid: "board-rules-about" });
  const tellRules = () => {
    const board = boards.find((b) => b.ruleset === ruleset.value);
    const told = board && offered.options.length ? describeRules(board.rules, offered) : null;
    rulesAbout.hidden = !told || told.preset !== null;
    rulesAbout.textContent = told && told.preset === null ? t("boards.customRules", { changes: told.changes }) : "";
  };
  tellRules();
  ruleset.addEventListener("change", tellRules);
  const around = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", testid: "board-around-me",
    id: "board-around-me", disabled: !api.token() }));
  const body = h("tbody", { testid: "board-body" });
  const head = h("thead", { testid: "board-head" });
  /** The columns in their order: the chosen metric's right after the player's (in sight on a
   * phone, where the table scrolls sideways). */
  const columns = () => {
    const first = METRIC_COLUMN[metric.value];
    return ["rank", "player", first, ...COLUMNS.filter((c) => c !== "rank" && c !== "player" && c !== first)];
  };
  const drawHead = () => fill(head, h("tr", {}, columns().map((c) => h("th", { "data-column": c }, t(`col.${c}`)))));
  drawHead();
  metric.addEventListener("change", drawHead);
  const prevButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "board-prev" }, t("boards.prev")));
  const nextButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "board-next" }, t("boards.next")));
  /** @type {string | null} */ let nextLink = null;
  /** @type {string | null} */ let prevLink = null;

  /** @param {api.LeaderboardPage} page */
  function show(page) {
    nextLink = page.next;
    prevLink = page.previous;
    nextButton.disabled = !nextLink;
    prevButton.disabled = !prevLink;
    const order = columns();
    fill(body,
      page.results.length === 0 ? h("tr", {}, h("td", { colSpan: 8 }, t("boards.empty"))) : null,
      page.results.map((row) => h("tr", { testid: "board-row", "data-rank": row.rank, "data-player": row.player.id },
        order.map((column) => CELLS[column](row)))));
  }

  let asking = 0;
  async function load() {
    asking += 1;
    const mine = asking;
    try {
      const asked = { metric: metric.value, period: period.value, seats: seats.value, ruleset: ruleset.value };
      body.setAttribute("aria-busy", "true");
      const page = await api.leaderboard({
        ...asked,
        seats: asked.seats || undefined,
        around: around.checked ? "me" : undefined,
      });
      if (mine !== asking) return; // a later choice's answer is the one shown
      show(page);
      Object.assign(body.dataset, asked); // which board the rows are of
      body.removeAttribute("aria-busy");
    } catch (error) {
      if (mine === asking) body.removeAttribute("aria-busy");
      showError(error);
    }
  }

  /** @param {string | null} link */
  async function follow(link) {
    if (!link) return;
    try {
      show(await api.leaderboardPage(api.pagePath(link)));
    } catch (error) {
      showError(error);
    }
  }

  for (const control of [ruleset, metric, period, seats, around]) control.addEventListener("change", load);
  nextButton.addEventListener("click", () => follow(nextLink));
  prevButton.addEventListener("click", () => follow(prevLink));

  root.append(h("section", { class: "card-panel boards" },
    h("h1", {}, t("boards.title")),
    h("div", { class: "row controls" },
      h("span", { class: "field" }, h("label", { for: "board-ruleset" }, t("boards.rules")), ruleset),
      h("span", { class: "field" }, h("label", { for: "board-metric" }, t("boards.metric")), metric),
      h("span", { class: "field" }, h("label", { for: "board-period" }, t("boards.period")), period),
      h("span", { class: "field" }, h("label", { for: "board-seats" }, t("boards.seats")), seats),
      h("label", { class: "field", for: "board-around-me" }, around, t("boards.aroundMe"))),
    rulesAbout,
    about,
    bounds,
    h("div", { class: "scroll", tabIndex: 0, role: "region", "aria-label": t("boards.title") }, h("table", { class: "grid" },
      head, body)),
    h("div", { class: "row" }, prevButton, nextButton)));
  await load();
}
