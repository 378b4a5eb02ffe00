// The web client's service worker (served at /sw.js, the whole site its scope): it shows each
// Web Push notice the server sends as a notification in the browser's language (its words:
// app/notices.js), and a click on it opens the match or the tournament. It caches nothing: the
// page works as without it.

import { noticeShown } from "/app/notices.js";

self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = {};
  }
  const languages = self.navigator.languages?.length ? self.navigator.languages : ["en"];
  const { title, body, url, tag } = noticeShown(notice, languages);
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
