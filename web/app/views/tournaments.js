// @ts-check
/** #/tournaments and #/tournaments/<id>: the list, a tournament's tables and standings, CSV. */

import * as api from "../api.js";
import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { playerName, showError, shortTime } from "../ui.js";

/** @param {HTMLElement} root */
export async function tournamentsView(root) {
  const list = h("ul", { class: "list", testid: "tournament-list" });
  const more = /** @type {HTMLButtonElement} */ (h("button", { type: "button", hidden: true }, t("tournaments.more")));
  /** @type {string | null} */ let next = null;

  /** @param {api.Tournament[]} rows */
  function add(rows) {
    for (const row of rows) {
      list.append(h("li", { testid: "tournament-row", "data-tournament-id": row.id, "data-status": row.status },
        h("span", { class: `status status-${row.status}` }, t(`tstatus.${row.status}`)),
        h("a", { class: "grow", href: `#/tournaments/${row.id}` }, row.name),
        h("span", {}, `${t(`format.${row.format}`)} · ${t("boards.seatsN", { n: row.table_size })} · ${shortTime(row.created_at)}`)));
    }
  }

  async function load(cursorLink = /** @type {string | null} */ (null)) {
    try {
      const page = cursorLink
        ? /** @type {api.Schemas["PaginatedTournament"]} */ (await api.tournaments({
            cursor: new URL(cursorLink, location.href).searchParams.get("cursor") ?? undefined }))
        : await api.tournaments({});
      if (!cursorLink && page.results.length === 0) list.append(h("li", { class: "empty" }, t("tournaments.empty")));
      add(page.results);
      next = page.next;
      more.hidden = !next;
    } catch (error) {
      showError(error);
    }
  }
  more.addEventListener("click", () => load(next));
  root.append(h("section", { class: "card-panel" }, h("h1", {}, t("tournaments.title")), list, more));
  await load();
}

/**
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function tournamentView(root, id) {
  const [tournament, tables, standings] = await Promise.all([
    api.tournament(id), api.tournamentTables(id), api.standings(id),
  ]);
  const tablesBox = h("section", { class: "card-panel", testid: "tournament-tables" }, h("h2", {}, t("t.tables")));
  for (const round of tables.rounds) {
    tablesBox.append(h("h3", {}, t("t.round", { n: round.number })),
      h("ul", { class: "list" },
        round.tables.map((table) => h("li", { "data-match-id": table.match, "data-status": table.status },
          h("span", {}, t("t.table", { n: table.table })),
          h("span", { class: "grow" }, table.seats.map((s) => playerName(s.player)).join(", ")),
          h("span", { class: `status status-${table.status}` }, t(`status.${table.status}`)),
          h("a", { href: `#/match/${table.match}`, class: "button", testid: "watch-link" }, t("lobby.watch")))),
        round.byes.length
          ? h("li", {}, t("t.byes", { names: round.byes.map(playerName).join(", ") }))
          : null));
  }
  const body = h("tbody", {});
  fill(body, standings.results.map((row) => h("tr", { "data-rank": row.rank },
    h("td", {}, String(row.rank)), h("td", {}, playerName(row.player)), h("td", {}, String(row.matches)),
    h("td", {}, String(row.byes)), h("td", {}, String(row.deals_played)), h("td", {}, String(row.deals_won)),
    h("td", {}, String(row.penalty)), h("td", {}, String(row.head_to_head)))));
  root.append(h("div", { class: "tournament" },
    h("section", { class: "card-panel" },
      h("h1", {}, tournament.name),
      h("p", {}, t("t.info", { format: t(`format.${tournament.format}`), size: tournament.table_size,
        round: tournament.current_round, rounds: tournament.rounds_total }), " · ",
        h("span", { class: `status status-${tournament.status}` }, t(`tstatus.${tournament.status}`)))),
    h("section", { class: "card-panel", testid: "tournament-standings" },
      h("h2", {}, t("t.standings")),
      h("div", { class: "scroll" }, h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, ["rank", "player", "matches", "byes", "deals_played", "deals_won", "penalty", "h2h"]
          .map((c) => h("th", {}, t(`col.${c}`))))),
        body)),
      h("a", { href: api.standingsCsvUrl(id), testid: "tournament-csv", class: "button", download: `standings-${id}.csv` },
        t("t.csv"))),
    tablesBox));
}
