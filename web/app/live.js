// @ts-check
/**
 * A live event stream (Server-Sent Events) that survives lost connections and server restarts.
 *
 * EventSource cannot send `Authorization`, so a signed-in page opens its stream with a stream
 * ticket for that stream's path (POST /auth/stream-ticket), which opens it again as often as it
 * reconnects until it expires. After a `reconnect` event (the server is restarting: a deploy),
 * the end of the response or a network error, EventSource reconnects by itself to the same URL
 * with `Last-Event-ID` = the last event id it saw, so nothing is missed and nothing comes twice.
 * When EventSource gives up (any refusal: an expired ticket's 401, a 503, a 429), the stream
 * asks for a new ticket and connects again with `last_event_id` = the last id seen, backing
 * off. Meanwhile the page shows "reconnecting". Spectators without a token connect without a
 * ticket.
 */

import * as api from "./api.js";

/**
 * @typedef {object} StreamHandlers
 * @property {(name: string, data: any, id: number | null) => void} onEvent
 * @property {(state: "live" | "reconnecting") => void} onStatus
 * @property {(error: api.ApiError) => void} [onError] a refusal (401, 403, 404)
 */

export class LiveStream {
  /**
   * @param {string} path under /api/v1, e.g. `/matches/<id>/events`
   * @param {string[]} events the event names to listen to
   * @param {StreamHandlers} handlers
   * @param {number | null} [lastId]
   */
  constructor(path, events, handlers, lastId = null) {
    this.path = path;
    this.events = events;
    this.handlers = handlers;
    /** @type {number | null} */
    this.lastId = lastId;
    /** @type {EventSource | null} */
    this.source = null;
    this.stopped = false;
    this.failures = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.connect();
  }

  async connect() {
    if (this.stopped) return;
    const params = new URLSearchParams();
    if (api.token()) {
      try {
        params.set("ticket", (await api.streamTicket(`/api/v1${this.path}`)).ticket);
      } catch (exc) {
        if (exc instanceof api.ApiError && exc.status === 401) {
          this.handlers.onError?.(exc);
          return;
        }
        this.retry();
        return;
      }
    }
    if (this.stopped) return;
    if (this.lastId !== null) params.set("last_event_id", String(this.lastId));
    const source = new EventSource(`/api/v1${this.path}?${params}`);
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.handlers.onStatus("live");
    };
    for (const name of this.events) {
      source.addEventListener(name, (event) => {
        const message = /** @type {MessageEvent<string>} */ (event);
        const id = message.lastEventId ? Number(message.lastEventId) : null;
        if (id !== null && Number.isFinite(id)) this.lastId = id;
        this.handlers.onEvent(name, JSON.parse(message.data), id);
      });
    }
    // The server ends the stream and asks for a reconnect (a restart, a WSGI server's poll):
    // EventSource comes back by itself, with the same ticket and Last-Event-ID.
    source.addEventListener("reconnect", () => this.handlers.onStatus("reconnecting"));
    source.addEventListener("close", (event) => {
      const data = JSON.parse(/** @type {MessageEvent<string>} */ (event).data);
      source.close();
      if (data.reason === "slow_reader") {
        this.handlers.onStatus("reconnecting");
        this.timer = setTimeout(() => this.connect(), 0);
      } else {
        this.handlers.onEvent("close", data, null);
      }
    });
    source.onerror = () => {
      if (this.stopped || this.source !== source) return;
      this.handlers.onStatus("reconnecting");
      if (source.readyState === EventSource.CLOSED) {
        // EventSource gave up (a refusal): a new ticket, from the last id seen.
        this.retry();
      }
      // CONNECTING: EventSource reconnects by itself (the same ticket, Last-Event-ID).
    };
  }

  retry() {
    if (this.stopped) return;
    this.source?.close();
    this.handlers.onStatus("reconnecting");
    this.failures += 1;
    const delay = Math.min(10000, 500 * 2 ** Math.min(this.failures, 5));
    this.timer = setTimeout(() => this.connect(), delay);
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.source?.close();
  }
}
