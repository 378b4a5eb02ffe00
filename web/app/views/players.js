// @ts-check
/**
 * #/players: find a person by the start of their username or display name (any letter case,
 * accents ignored: GET /players?search=…) and see their public card. `playerSearch` is the
 * search box itself, for any page that needs a person (it hands the one clicked to `onPick`;
 * the players of `exclude` it never offers).
 */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { decimal, t } from "../i18n.js";
import { showError } from "../ui.js";

const MIN_LENGTH = 2;

/**
 * A search box: a text field, a search button, the people found (each a button) and a button
 * for the next page.
 * @param {{ onPick: (player: api.FoundPlayer) => void, id?: string, exclude?: string[] }} options
 *   `exclude`: the ids of players never offered
 * @returns {HTMLElement}
 */
export function playerSearch({ onPick, id = "player-search", exclude = [] }) {
  const input = /** @type {HTMLInputElement} */ (h("input", {
    id: `${id}-input`, testid: "player-search-input", type: "search", maxLength: 150,
    autocomplete: "off", placeholder: t("players.placeholder"),
  }));
  const results = h("ul", { class: "list found-players", testid: "player-search-results", "aria-live": "polite" });
  const more = /** @type {HTMLButtonElement} */ (h("button", { type: "button", testid: "player-search-more", hidden: true },
    t("players.more")));
  /** @type {string | null} */ let next = null;

  /**
   * @param {api.FoundPlayer[]} found
   * @param {boolean} append
   */
  function show(found, append) {
    found = found.filter((player) => !exclude.includes(player.id));
    if (!append) fill(results);
    if (!append && found.length === 0) {
      results.append(h("li", { class: "muted", testid: "player-search-none" }, t("players.none")));
    }
    for (const player of found) {
      results.append(h("li", {},
        h("button", { type: "button", class: "link-button", testid: "player-search-result",
          "data-player": player.id, "data-username": player.username, onclick: () => onPick(player) },
        h("strong", {}, player.display_name), " ",
        h("span", { class: "muted" }, `@${player.username}`), " ",
        h("span", { class: "muted" }, t("players.rating", { rating: decimal(player.rating.ordinal, 1) })))));
    }
  }

  /** @param {{ search?: string, path?: string }} params */
  async function ask(params) {
    try {
      const page = await api.searchPlayers({ ...params, limit: 10 });
      show(page.results, Boolean(params.path));
      next = page.next;
      more.hidden = !next;
    } catch (error) {
      showError(error);
    }
  }

  async function search() {
    const text = input.value.trim();
    if (text.length < MIN_LENGTH) {
      fill(results, h("li", { class: "muted", testid: "player-search-short" }, t("players.short", { n: MIN_LENGTH })));
      more.hidden = true;
      return;
    }
    await ask({ search: text });
  }

  more.addEventListener("click", () => {
    if (next) ask({ path: api.pagePath(next) });
  });
  return h("form", { class: "player-search", role: "search", testid: id,
    onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      search();
    } },
  h("label", { for: `${id}-input` }, t("players.label")),
  h("div", { class: "row" }, input,
    h("button", { type: "submit", class: "primary", testid: "player-search-submit" }, t("players.search"))),
  results, more);
}

/** @param {HTMLElement} root */
export async function playersView(root) {
  const card = h("div", { class: "player-card", testid: "player-card", hidden: true });

  /** @param {api.FoundPlayer} found */
  async function pick(found) {
    try {
      const player = await api.player(found.id);
      card.dataset.player = player.id;
      fill(card,
        h("h2", { testid: "player-card-name" }, player.display_name),
        h("p", { class: "muted" }, `@${player.username}`),
        h("dl", { class: "facts" },
          h("dt", {}, t("col.rating")), h("dd", {}, decimal(player.rating.ordinal, 2)),
          h("dt", {}, t("col.matches")), h("dd", { testid: "player-card-matches" }, String(player.stats.matches)),
          h("dt", {}, t("col.wins")), h("dd", {}, String(player.stats.wins)),
          h("dt", {}, t("col.deals_won")), h("dd", {}, String(player.stats.deals_won))));
      card.hidden = false;
    } catch (error) {
      showError(error);
    }
  }

  root.append(h("section", { class: "card-panel players" },
    h("h1", {}, t("players.title")),
    h("p", {}, t("players.intro")),
    playerSearch({ onPick: pick }),
    card));
}
