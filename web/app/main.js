// @ts-check
/**
 * The page: a header (sign-in state, language, navigation), the error banner, and one view
 * chosen by the URL's hash: #/login, #/lobby, #/match/<id>, #/replay/<id>/<deal>,
 * #/leaderboards, #/tournaments, #/tournaments/<id>, #/join/<id>/<code> (a private table's
 * join link).
 */

import * as api from "./api.js";
import { h, fill } from "./dom.js";
import { getLang, setLang, t } from "./i18n.js";
import { drawNextMessage, drawOffline, endSession, forgetPlayer, messageOf, sayNext, showError } from "./ui.js";
import { loginView } from "./views/login.js";
import { lobbyView } from "./views/lobby.js";
import { tableView } from "./views/table.js";
import { replayView } from "./views/replay.js";
import { boardsView } from "./views/boards.js";
import { tournamentsView, tournamentView } from "./views/tournaments.js";
import { playersView } from "./views/players.js";
import { accountView } from "./views/account.js";
import { joinView } from "./views/private.js";
import { turnNotice } from "./views/turn-notice.js";
import { followSession } from "./my-events.js";
import { forgetDevice } from "./push.js";
import { forgetRecords } from "./fairness.js";

/**
 * A view draws itself into `root` and returns what stops it (streams, timers).
 * @typedef {(root: HTMLElement, ...args: string[]) => (Promise<(() => void) | void>)} View
 */

/** @type {(() => void) | void} */
let stopCurrent;
let generation = 0;

/** @type {[RegExp, View][]} */
const routes = [
  [/^#\/login$/, loginView],
  [/^#\/lobby$/, lobbyView],
  [/^#\/match\/([0-9a-fA-F-]{36})$/, tableView],
  [/^#\/replay\/([0-9a-fA-F-]{36})\/(\d+)$/, replayView],
  [/^#\/leaderboards$/, boardsView],
  [/^#\/tournaments$/, tournamentsView],
  [/^#\/tournaments\/([0-9a-fA-F-]{36})$/, tournamentView],
  [/^#\/players$/, playersView],
  [/^#\/account$/, accountView],
  [/^#\/join\/([0-9a-fA-F-]{36})\/([A-Za-z0-9_%-]{1,96})$/, joinView],
];

function header() {
  const signedIn = Boolean(api.token());
  const nav = h(
    "nav",
    { class: "nav" },
    h("a", { href: "#/lobby", testid: "nav-lobby" }, t("nav.lobby")),
    h("a", { href: "#/leaderboards", testid: "nav-leaderboards" }, t("nav.leaderboards")),
    h("a", { href: "#/tournaments", testid: "nav-tournaments" }, t("nav.tournaments")),
    h("a", { href: "#/players", testid: "nav-players" }, t("nav.players")),
    h("a", { href: "/api/v1/docs/", target: "_blank" }, t("nav.docs")),
  );
  // Signed in, the name is the link to the account page.
  const who = signedIn
    ? h("a", { class: "whoami", testid: "whoami", href: "#/account", title: t("nav.account") },
      api.username() ?? "")
    : h("span", { class: "whoami", testid: "whoami" }, t("auth.anonymous"));
  const account = signedIn
    ? h("button", { testid: "auth-logout", type: "button", onclick: signOut }, t("auth.logout"))
    : h("a", { href: "#/login", class: "button" }, t("nav.login"));
  const lang = h(
    "button",
    {
      testid: "lang-toggle",
      type: "button",
      onclick: () => {
        setLang(getLang() === "en" ? "tr" : "en");
        render();
        // The page is drawn again in the other language: the focus stays on the switch.
        /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="lang-toggle"]'))?.focus();
      },
    },
    t("lang.toggle"),
  );
  return h(
    "header",
    { class: "top" },
    h("a", { href: "#/lobby", class: "brand" }, h("span", { class: "brand-seven" }, "7"), t("app.title")),
    nav,
    h("div", { class: "account" }, who, account, lang),
  );
}

async function signOut() {
  if (api.sessionChanged()) { // another tab signed out, or in: that session is not this one's
    followOtherTab();
    return;
  }
  // The page's streams and reads stop first: the token's streams end with it, and a page that
  // read again on that would meet a refusal of its own making.
  if (typeof stopCurrent === "function") stopCurrent();
  stopCurrent = undefined;
  // This device's push subscription goes first, while the token still answers: the next
  // person to use the browser is not told this player's turns and challenges.
  await forgetDevice(true);
  try {
    await api.logout();
  } catch (error) {
    // The token is forgotten here whatever the server said, unless another tab changed the
    // session meanwhile (the page is drawn again for that one).
    if (error instanceof api.ApiError && error.code === "session_changed") return;
  }
  forgetRecords();
  endSession();
  render();
}

/**
 * Another tab of the browser signed out, or in (as someone else), under this page (they share
 * localStorage): the page is drawn again for the session kept now, and says so: signed out,
 * on the sign-in page; signed in, on the page it showed (the lobby for the sign-in page). Told
 * by the `storage` event, or by a request that found the change before it went out (api.js,
 * which sent nothing).
 */
function followOtherTab() {
  if (!api.sessionChanged()) return;
  if (typeof stopCurrent === "function") stopCurrent();
  stopCurrent = undefined;
  forgetPlayer();
  api.drawnFor();
  const now = api.username();
  if (api.token()) {
    sayNext(t("auth.otherTabSignedIn", { name: now ?? "" }));
    if (!location.hash || location.hash === "#/login") history.replaceState(null, "", "#/lobby");
  } else {
    sayNext(t("auth.otherTabSignedOut"));
    history.replaceState(null, "", "#/login");
  }
  render();
}

export async function render() {
  generation += 1;
  const mine = generation;
  if (typeof stopCurrent === "function") stopCurrent();
  stopCurrent = undefined;
  document.documentElement.lang = getLang();
  // The server's words in the page's language where no header can say it: a WebSocket's
  // handshake and an event stream send the browser's Accept-Language, and Django's
  // `django_language` cookie wins over it (docs/api.md, Conventions).
  document.cookie = `django_language=${getLang()}; path=/; SameSite=Strict`;
  document.title = t("app.title");
  const shell = document.getElementById("app");
  if (!shell) return;
  // Drawn for the session kept now (another tab may have changed it unheard of).
  if (api.sessionChanged()) forgetPlayer();
  api.drawnFor();
  const banner = h("div", { class: "error-banner", testid: "error-banner", role: "alert", hidden: true });
  const root = h("main", { class: "view" });
  let hash = location.hash || (api.token() ? "#/lobby" : "#/login");
  if (!routes.some(([pattern]) => pattern.test(hash))) hash = "#/lobby";
  // Signed in, the sign-in page (Back after signing in) leads to the lobby: another person
  // signs out first, so that nothing of this session stays on the browser for them.
  if (hash === "#/login" && api.token()) {
    history.replaceState(null, "", "#/lobby");
    hash = "#/lobby";
  }
  followSession();
  fill(shell, header(), turnNotice(hash), banner, root);
  drawOffline();
  drawNextMessage();
  for (const [pattern, view] of routes) {
    const found = hash.match(pattern);
    if (!found) continue;
    try {
      const stop = await view(root, ...found.slice(1));
      if (mine !== generation) {
        if (typeof stop === "function") stop();
      } else {
        stopCurrent = stop;
      }
    } catch (error) {
      // A page left empty (an unknown id, a deal not played) says why where it would be, and
      // stays so; a lost connection and a session ended elsewhere are the banner's.
      const empty = mine === generation && !root.hasChildNodes();
      if (!empty || (error instanceof api.ApiError && (error.code === "network" || error.status === 401))) {
        showError(error);
      } else {
        fill(root, h("section", { class: "card-panel", testid: "view-failed", role: "alert" },
          h("p", {}, typeof error === "string" ? error : messageOf(error)),
          h("a", { href: "#/lobby", class: "button" }, t("table.back"))));
      }
    }
    return;
  }
}

window.addEventListener("hashchange", () => render());
window.addEventListener("pisyedili:redraw", () => render());
window.addEventListener("storage", (event) => {
  if (event.storageArea !== localStorage) return;
  if (event.key === null || event.key === api.TOKEN_KEY || event.key === api.USER_KEY) followOtherTab();
});
api.onSessionMoved(followOtherTab);
render();
