// @ts-check
/**
 * #/tournaments: the player's invitations (invitations.js), a form to create one
 * (format, table size, a named rule set of GET /rules/presets, deals, rounds, turn clock, people
 * invited by player search) and the list.
 * #/tournaments/<id>: a tournament's entrants (who accepted, who has not answered yet), the
 * invitee's Accept and Decline, the organizer's Start and Cancel (after a confirm step), its
 * tables (Play, Watch, or Replay once finished) and standings (a duplicate tournament's by
 * matchpoints first), the CSV. Both pages refresh when the player's event stream tells of an
 * invitation, an answer to one, a round or a match, and every few seconds while the tournament
 * may change (draft or running).
 */

import * as api from "../api.js";
import { h, fill, select } from "../dom.js";
import { t } from "../i18n.js";
import { onMyEvent } from "../my-events.js";
import { botName, currentPlayer, hideError, playerName, showError, shortTime } from "../ui.js";
import { invitationsPanel, tournamentAnswerButtons } from "./invitations.js";
import { inviteePicker } from "./private.js";
import { loadRules, presetName, rulesPicker } from "./rules-picker.js";

/**
 * Seconds between two reads of a page that may change (draft or running), besides the reads
 * the player's events call for (an answer to their invitations, a round dealt, a match over).
 */
const POLL_SECONDS = { draft: 10, running: 8 };
/** The /me/events events after which a tournament page reads again. */
const EVENTS = ["ready", "tournament_invitation", "tournament_answered", "tournament_cancelled",
  "tournament_withdrawn", "tournament_round",
  "match_started", "match_finished", "resync"];
const FORMATS = /** @type {const} */ (["swiss", "round_robin", "duplicate"]);

/** @param {HTMLElement} root */
export async function tournamentsView(root) {
  const player = await currentPlayer();
  const list = h("ul", { class: "list", testid: "tournament-list" });
  const more = /** @type {HTMLButtonElement} */ (h("button", { type: "button", hidden: true }, t("tournaments.more")));
  const invitations = player
    ? invitationsPanel(player, { matches: false, tournaments: true, title: t("tournaments.invitations"),
      empty: t("tournaments.noInvitations"), testid: "tournament-invitations" })
    : null;
  /** @type {string | null} */ let next = null;

  /** @param {api.Tournament[]} rows */
  function rowsOf(rows) {
    return rows.map((row) => h("li", { testid: "tournament-row", "data-tournament-id": row.id, "data-status": row.status },
      h("span", { class: `status status-${row.status}` }, t(`tstatus.${row.status}`)),
      h("a", { class: "grow", href: `#/tournaments/${row.id}` }, row.name),
      h("span", {}, `${t(`format.${row.format}`)} · ${t("boards.seatsN", { n: row.table_size })} · ${shortTime(row.created_at)}`)));
  }

  /** The first page of the list again: what changed shows. */
  async function refresh() {
    try {
      const page = await api.tournaments({});
      fill(list, page.results.length === 0 ? h("li", { class: "empty" }, t("tournaments.empty")) : null,
        rowsOf(page.results));
      next = page.next;
      more.hidden = !next;
    } catch (error) {
      showError(error);
    }
  }

  more.addEventListener("click", async () => {
    if (!next) return;
    try {
      const page = /** @type {api.Schemas["PaginatedTournament"]} */ (await api.tournaments({
        cursor: new URL(next, location.href).searchParams.get("cursor") ?? undefined }));
      list.append(...rowsOf(page.results));
      next = page.next;
      more.hidden = !next;
    } catch (error) {
      showError(error);
    }
  });

  const form = player ? await createForm(player) : null;
  root.append(h("div", { class: "tournaments" },
    invitations?.element,
    h("section", { class: "card-panel" },
      h("div", { class: "row" }, h("h1", { class: "grow" }, t("tournaments.title")),
        h("button", { type: "button", testid: "tournaments-refresh", onclick: () => refresh() }, t("lobby.refresh"))),
      list, more),
    form));
  await refresh();
  const unlisten = player
    ? onMyEvent((name, data) => {
        invitations?.onEvent(name, data);
        if (name !== "ready" && EVENTS.includes(name)) refresh();
      })
    : null;
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, 30_000);
  return () => {
    unlisten?.();
    clearInterval(timer);
  };
}

/**
 * The new-tournament form: the organizer plays in it or not, the people they invite are found
 * by player search; the rules are a named rule set or every option (rules-picker.js).
 * @param {api.Player} player
 */
async function createForm(player) {
  const [offered, strategies] = await Promise.all([
    loadRules(),
    api.bots().catch(() => /** @type {api.Bot[]} */ ([])),
  ]);
  const rules = rulesPicker(offered, { presets: "tournament-presets",
    preset: "tournament-preset-", box: "tournament-custom-rules", rule: "tournament-rule-" });
  const name = /** @type {HTMLInputElement} */ (h("input", { id: "tournament-name", testid: "tournament-name",
    type: "text", required: true, maxLength: 100 }));
  const format = select({ id: "tournament-format", testid: "tournament-format" },
    FORMATS.map((f) => [f, t(`format.${f}`)]), "swiss");
  const size = select({ id: "tournament-size", testid: "tournament-size" },
    [2, 3, 4].map((n) => [String(n), String(n)]), "2");
  const deals = /** @type {HTMLInputElement} */ (h("input", { id: "tournament-deals", testid: "tournament-deals",
    type: "number", min: 1, max: 20, value: "1" }));
  const rounds = /** @type {HTMLInputElement} */ (h("input", { id: "tournament-rounds", testid: "tournament-rounds",
    type: "number", min: 1, max: 64, placeholder: t("tournaments.roundsAuto") }));
  const clock = /** @type {HTMLInputElement} */ (h("input", { id: "tournament-turn-seconds", testid: "tournament-turn-seconds",
    type: "number", min: 1, max: 86400, value: "120" }));
  const playing = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "tournament-play",
    testid: "tournament-play-myself", checked: true }));
  // The organizer enters by the tick box, never as one of the people they invite.
  const picker = inviteePicker({ id: "tournament-search", prefix: "tournament", exclude: [player.id] });
  const bots = botEntrants(strategies);
  const filler = select({ id: "tournament-fill", testid: "tournament-fill" },
    [["", t("tournaments.fillNone")], ...strategies.map((b) => /** @type {[string, string]} */ (
      [b.strategy, `${t("table.bot")}: ${botName(b.strategy)}`]))], "");
  const formatHelp = h("p", { class: "muted", id: "tournament-format-help", testid: "tournament-format-help" });
  const explainFormat = () => { formatHelp.textContent = t(`tournaments.formatHelp.${format.value}`); };
  format.setAttribute("aria-describedby", "tournament-format-help");
  format.addEventListener("change", explainFormat);
  explainFormat();

  async function submit() {
    /** @type {api.Schemas["TournamentCreateRequest"]} */
    const body = {
      name: name.value.trim(),
      format: /** @type {api.Schemas["TournamentFormatEnum"]} */ (format.value),
      table_size: Number(size.value),
      players: [...(playing.checked ? [player.id] : []), ...picker.picked().map((p) => p.id)],
      bots: bots.picked(),
      fill_bots: filler.value || null,
      deals: Number(deals.value) || 1,
      rules: rules.rules(),
      // Blank: the form's 120 s; any other value goes as typed, for the server to check.
      turn_seconds: clock.value.trim() === "" ? 120 : Number(clock.value),
    };
    if (rounds.value && format.value !== "round_robin") body.rounds = Number(rounds.value);
    try {
      const created = await api.createTournament(body);
      hideError();
      location.hash = `#/tournaments/${created.id}`;
    } catch (error) {
      showError(error);
    }
  }

  return h("section", { class: "card-panel create", testid: "tournament-create" },
    h("h2", {}, t("tournaments.create")),
    h("form", { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); submit(); } },
      h("div", { class: "row" }, h("label", { for: "tournament-name" }, t("tournaments.name")), name),
      h("div", { class: "row" },
        h("label", { for: "tournament-format" }, t("tournaments.format")), format,
        h("label", { for: "tournament-size" }, t("lobby.seats")), size),
      formatHelp,
      rules.element,
      h("div", { class: "row" },
        h("label", { for: "tournament-deals" }, t("lobby.deals")), deals,
        h("label", { for: "tournament-rounds" }, t("tournaments.rounds")), rounds),
      h("div", { class: "row" },
        h("label", { for: "tournament-turn-seconds" }, t("tournaments.turnSeconds")), clock),
      h("label", { class: "check", for: "tournament-play" }, playing, " ", t("tournaments.playMyself")),
      h("h3", {}, t("private.invite")),
      picker.search,
      h("h3", {}, t("private.invited")), picker.chips,
      h("h3", {}, t("tournaments.botEntrants")), bots.element,
      h("div", { class: "row" }, h("label", { for: "tournament-fill" }, t("tournaments.fill")), filler),
      h("button", { type: "submit", class: "primary", testid: "tournament-submit" }, t("tournaments.submit"))));
}

/**
 * The bots entering a tournament (its `bots`): a level chosen and added, as many as wanted,
 * each removable.
 * @param {api.Bot[]} strategies
 */
function botEntrants(strategies) {
  /** @type {string[]} */
  const picked = [];
  const level = select({ id: "tournament-bot", testid: "tournament-bot", "aria-label": t("tournaments.botLevel") },
    strategies.map((b) => /** @type {[string, string]} */ ([b.strategy, botName(b.strategy)])),
    strategies.some((b) => b.strategy === "greedy") ? "greedy" : strategies[0]?.strategy ?? "");
  const chips = h("ul", { class: "list invitees", testid: "tournament-bots" });
  const draw = () => fill(chips,
    picked.length === 0 ? h("li", { class: "empty" }, t("tournaments.noBots")) : null,
    picked.map((strategy, i) => h("li", { testid: "tournament-bot-entrant", "data-strategy": strategy },
      h("span", { class: "grow" }, `${t("table.bot")}: ${botName(strategy)}`),
      h("button", { type: "button", testid: "tournament-bot-remove",
        onclick: () => { picked.splice(i, 1); draw(); } }, t("private.remove")))));
  const add = h("button", { type: "button", testid: "tournament-bot-add",
    onclick: () => { if (level.value) { picked.push(level.value); draw(); } } }, t("tournaments.addBot"));
  draw();
  return {
    element: h("div", {}, h("div", { class: "row" }, level, add), chips),
    picked: () => [...picked],
  };
}

/**
 * A table's link: Play for its seated player while it is played, Watch while it is played,
 * Replay once it is finished (the finished match: its results and each deal's replay); for
 * someone at no seat of a duplicate round's table while another table still plays its deals,
 * the link shown disabled with the reason beside it.
 * @param {api.Schemas["Table"]} table
 * @param {boolean} seated the caller sits at it
 * @param {boolean} later the caller may not watch it yet
 */
function tableLink(table, seated, later) {
  const finished = table.status === "finished";
  const label = finished ? t("tournaments.replay") : seated ? t("lobby.play") : t("lobby.watch");
  if (later) {
    const reason = `tournament-later-${table.match}`;
    return h("span", { class: "row later" },
      h("button", { type: "button", class: "button", disabled: true, testid: "tournament-watch-later",
        "aria-describedby": reason }, label),
      h("span", { class: "muted", id: reason, testid: "tournament-watch-reason" },
        t(finished ? "tournaments.replayLater" : "tournaments.watchLater")));
  }
  const play = seated && !finished;
  return h("a", { href: `#/match/${table.match}`, class: play ? "button primary" : "button",
    testid: play ? "tournament-play" : finished ? "tournament-replay" : "watch-link" }, label);
}

/**
 * @param {HTMLElement} root
 * @param {string} id
 */
export async function tournamentView(root, id) {
  const player = await currentPlayer();
  const box = h("div", { class: "tournament" });
  root.append(box);
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let stopped = false;
  /** the confirm step of "Cancel the tournament" is open */
  let confirmingCancel = false;
  /** @type {[api.Tournament, api.Tables, api.Standings] | null} the last read */
  let shown = null;

  /** Read the tournament, its tables and standings, and draw them; its status. */
  async function draw() {
    shown = await Promise.all([api.tournament(id), api.tournamentTables(id), api.standings(id)]);
    render();
    return shown[0].status;
  }

  /**
   * Draw the last read. The focus stays on the control it was on (found again by its testid
   * where that names one control), else goes to `focus` (a testid).
   * @param {string} [focus]
   */
  function render(focus) {
    if (!shown) return;
    const [tournament, tables, standings] = shown;
    const me = player?.id;
    const pending = new Set(tournament.pending_invitations.map((p) => p.id));
    const organizer = me === tournament.organizer.id;
    const draft = tournament.status === "draft";

    const entrants = h("ul", { class: "list", testid: "tournament-entrants" },
      tournament.players.map((p) => {
        const state = pending.has(p.id) ? "pending" : "accepted";
        return h("li", { testid: "tournament-entrant", "data-player": p.id, "data-status": state },
          h("span", { class: "grow" }, playerName(p)),
          draft ? h("span", { class: `status status-${state === "pending" ? "waiting" : "active"}` },
            t(`tournaments.entrant.${state}`)) : null,
          // The organizer may take out anyone else before the start (one who never answers).
          draft && organizer && p.id !== me
            ? h("button", { type: "button", testid: "tournament-remove",
                "aria-label": t("tournaments.removeLabel", { name: playerName(p) }),
                onclick: () => act((tid) => api.removeEntrant(tid, p.id)) }, t("tournaments.remove"))
            : null);
      }));

    const invited = draft && me && pending.has(me)
      ? h("div", { class: "notice challenge-notice", testid: "tournament-my-invitation", role: "status" },
          h("span", { class: "grow" }, t("tournaments.invitedHere", { by: playerName(tournament.organizer) })),
          tournamentAnswerButtons(id, (accepted) => (accepted ? redraw() : (location.hash = "#/tournaments"))))
      : null;

    const controls = organizer && (draft || tournament.status === "running")
      ? h("div", { testid: "tournament-controls" },
          h("div", { class: "row" },
            draft
              ? h("button", { type: "button", class: "primary", testid: "tournament-start",
                  onclick: () => act(api.startTournament) }, t("tournaments.start"))
              : null,
            draft && pending.size
              ? h("span", { class: "muted", testid: "tournament-waiting" }, t("tournaments.waitingFor", { n: pending.size }))
              : null,
            confirmingCancel
              ? null
              : h("button", { type: "button", testid: "tournament-cancel", onclick: () => askCancel(true) },
                  t("tournaments.cancel"))),
          confirmingCancel ? cancelConfirm(draft) : null)
      : null;

    const tablesBox = h("section", { class: "card-panel", testid: "tournament-tables" }, h("h2", {}, t("t.tables")));
    for (const round of [...tables.rounds].reverse()) {
      // A duplicate round's tables share their deals: the server lets no one at another seat
      // watch a table, or replay it, before every table of the round has finished (docs/api.md
      // "Hidden information").
      const shared = tournament.format === "duplicate" && round.tables.some((table) => table.status !== "finished");
      tablesBox.append(h("h3", {}, t("t.round", { n: round.number })),
        h("ul", { class: "list" },
          round.tables.map((table) => {
            const seated = Boolean(me && table.seats.some((s) => s.player.id === me));
            return h("li", { testid: "tournament-table", "data-match-id": table.match, "data-status": table.status,
              "data-mine": String(seated) },
            h("span", {}, t("t.table", { n: table.table })),
            h("span", { class: "grow" }, table.seats.map((s) => playerName(s.player)).join(", ")),
            h("span", { class: `status status-${table.status}` }, t(`status.${table.status}`)),
            tableLink(table, seated, shared && !seated));
          }),
          round.byes.length
            ? h("li", {}, t("t.byes", { names: round.byes.map(playerName).join(", ") }))
            : null));
    }

    // A duplicate tournament ranks by matchpoints first: its column comes first.
    const duplicate = tournament.format === "duplicate";
    const columns = ["rank", "player", ...(duplicate ? ["matchpoints"] : []), "matches", "byes", "deals_played",
      "deals_won", "penalty", "h2h"];
    const body = h("tbody", {});
    fill(body, standings.results.map((row) => h("tr", { testid: "standing", "data-rank": row.rank, "data-player": row.player.id },
      h("td", {}, String(row.rank)), h("td", {}, playerName(row.player)),
      duplicate ? h("td", { testid: "standing-matchpoints" }, String(row.matchpoints ?? 0)) : null,
      h("td", {}, String(row.matches)),
      h("td", {}, String(row.byes)), h("td", {}, String(row.deals_played)), h("td", {}, String(row.deals_won)),
      h("td", {}, String(row.penalty)), h("td", {}, String(row.head_to_head)))));
    const active = document.activeElement;
    const focused = focus ?? (active instanceof HTMLElement && box.contains(active) ? active.dataset.testid : undefined);
    fill(box,
      h("section", { class: "card-panel", testid: "tournament-head", "data-status": tournament.status,
        "data-round": tournament.current_round },
        h("h1", {}, tournament.name),
        h("p", {}, t("t.info", { format: t(`format.${tournament.format}`), size: tournament.table_size,
          round: tournament.current_round, rounds: tournament.rounds_total }), " · ",
          h("span", { class: `status status-${tournament.status}`, testid: "tournament-status" },
            t(`tstatus.${tournament.status}`))),
        h("p", { class: "muted" }, t("tournaments.by", { name: playerName(tournament.organizer) }), " · ",
          t("tournaments.rulesLine", { n: tournament.deals_per_match, seconds: tournament.turn_seconds })),
        invited,
        controls),
      h("section", { class: "card-panel" }, h("h2", {}, t("tournaments.entrants")), entrants),
      h("section", { class: "card-panel", testid: "tournament-standings" },
        h("h2", {}, t("t.standings")),
        // A region that scrolls on a phone: focusable, so a keyboard scrolls it too.
        h("div", { class: "scroll", tabIndex: 0, role: "region", "aria-label": t("t.standings") },
          h("table", { class: "grid" },
            h("thead", {}, h("tr", {}, columns.map((c) => h("th", { testid: `column-${c}` }, t(`col.${c}`))))),
            body)),
        duplicate ? h("p", { class: "muted", testid: "standings-order" }, t("tournaments.duplicateOrder")) : null,
        h("a", { href: api.standingsCsvUrl(id), testid: "tournament-csv", class: "button", download: `standings-${id}.csv` },
          t("t.csv"))),
      tables.rounds.length ? tablesBox : null);
    const again = focused ? box.querySelectorAll(`[data-testid="${focused}"]`) : [];
    if (again.length === 1 && again[0] instanceof HTMLElement) again[0].focus();
  }

  /**
   * Open (or close) the confirm step of "Cancel the tournament", its answer focused (or the
   * button that opens it again).
   * @param {boolean} open
   */
  function askCancel(open) {
    confirmingCancel = open;
    render(open ? "tournament-cancel-no" : "tournament-cancel");
  }

  /**
   * The confirm step: what a cancel does, Yes and No.
   * @param {boolean} draft
   */
  function cancelConfirm(draft) {
    return h("div", { class: "confirm", testid: "tournament-cancel-confirm", role: "alertdialog",
      "aria-labelledby": "tournament-cancel-ask",
      // Escape is its safe choice, as in Resign's confirm step.
      onkeydown: (/** @type {KeyboardEvent} */ e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        askCancel(false);
      } },
    h("p", { id: "tournament-cancel-ask", testid: "tournament-cancel-ask" },
      t(draft ? "tournaments.cancelAskDraft" : "tournaments.cancelAsk")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "danger", testid: "tournament-cancel-yes", onclick: () => {
        confirmingCancel = false;
        act(api.cancelTournament);
      } }, t("tournaments.cancelYes")),
      h("button", { type: "button", testid: "tournament-cancel-no", onclick: () => askCancel(false) },
        t("tournaments.cancelNo"))));
  }

  /** @param {(id: string) => Promise<api.Tournament>} call */
  async function act(call) {
    try {
      await call(id);
      hideError();
    } catch (error) {
      showError(error);
    }
    redraw();
  }

  /** Read and draw again, then wait for the next read while the tournament may change. */
  async function redraw() {
    if (timer) clearTimeout(timer);
    timer = null;
    /** @type {string} */
    let status = "draft";
    try {
      status = await draw();
    } catch (error) {
      showError(error);
    }
    if (stopped) return;
    const seconds = status === "draft" || status === "running" ? POLL_SECONDS[status] : null;
    if (seconds) timer = setTimeout(redraw, seconds * 1000);
  }

  await redraw();
  const unlisten = player
    ? onMyEvent((name, data) => {
        if (name === "ready" || !EVENTS.includes(name)) return;
        if (!data?.tournament || data.tournament === id || name.startsWith("match_")) redraw();
      })
    : null;
  return () => {
    stopped = true;
    unlisten?.();
    if (timer) clearTimeout(timer);
  };
}
