// The web client's service worker (served at /sw.js, the whole site its scope): it shows each
// Web Push notice the server sends (docs/api.md "Notifications": a kind, a match or tournament
// id, a short text; never a card) as a notification in the browser's language, and a click on
// it opens the match or the tournament. It caches nothing: the page works as without it.

import { preferredLang, strings } from "/app/i18n.js";

const KEYS = {
  your_turn: "notice.yourTurn",
  challenge: "notice.challenge",
  tournament_round: "notice.tournamentRound",
  tournament_invitation: "notice.tournamentInvitation",
};

/** @param {{ type?: string, match?: string, tournament?: string, round?: number, text?: string }} notice */
function shown(notice) {
  const languages = self.navigator.languages?.length ? self.navigator.languages : ["en"];
  const words = strings(preferredLang(languages));
  const text = (words[KEYS[notice.type]] ?? notice.text ?? "").replace("{round}", String(notice.round ?? ""));
  const tournament = notice.type === "tournament_round" || notice.type === "tournament_invitation";
  return {
    title: words["app.title"],
    body: text,
    url: tournament ? `/#/tournaments/${notice.tournament}` : `/#/match/${notice.match}`,
    tag: tournament ? `tournament-${notice.tournament}` : `match-${notice.match}`,
  };
}

self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = {};
  }
  const { title, body, url, tag } = shown(notice);
  event.waitUntil(self.registration.showNotification(title, { body, tag, renotify: true, data: { url } }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? "/", self.location.origin).href;
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const page of open) {
      try {
        await page.navigate(url);
        return page.focus();
      } catch {
        // a page this worker does not control: open another
      }
    }
    return self.clients.openWindow(url);
  })());
});
