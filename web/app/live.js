// @ts-check
/**
 * A live event stream (Server-Sent Events) that survives lost connections.
 *
 * EventSource cannot send `Authorization`, so each connection takes a fresh single-use stream
 * ticket (POST /auth/stream-ticket) and resumes with `last_event_id` = the last event id it
 * saw: after a lost connection, a server restart, or a WSGI server's `close` (`reconnect`),
 * the next connection sends only what is newer. Spectators without a token connect without
 * a ticket.
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
        params.set("ticket", (await api.streamTicket()).ticket);
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
    source.addEventListener("close", (event) => {
      const data = JSON.parse(/** @type {MessageEvent<string>} */ (event).data);
      source.close();
      if (data.reason === "reconnect" || data.reason === "slow_reader") {
        // A WSGI server's stream ends after each batch; come back as EventSource would.
        this.timer = setTimeout(() => this.connect(), data.reason === "reconnect" ? 1500 : 0);
      } else {
        this.handlers.onEvent("close", data, null);
      }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED || source.readyState === EventSource.CONNECTING) {
        // A ticket is single use: EventSource's own reconnect would be refused, so reconnect
        // here with a new ticket and the last id seen.
        source.close();
        if (!this.stopped && this.source === source) this.retry();
      }
    };
  }

  retry() {
    if (this.stopped) return;
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
