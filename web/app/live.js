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
 * off. Meanwhile the page shows "reconnecting". A ticket refused as for good (401, 403, 404)
 * ends the stream: the refusal is the page's to say. Spectators without a token connect
 * without a ticket.
 *
 * With `socket: true` (the table) the stream is the same path's WebSocket, whose events are
 * the same (one JSON message each), and which also takes the page's moves (`move`): each is
 * answered on the socket as `POST …/moves` answers it. A socket that closes is opened again
 * (a new ticket, `last_event_id` = the last id seen); one that cannot be opened three times
 * running gives way to EventSource for the rest of the page's life (which tells a refusal).
 */

import * as api from "./api.js";

/**
 * @typedef {object} StreamHandlers
 * @property {(name: string, data: any, id: number | null) => void} onEvent
 * @property {(state: "live" | "reconnecting") => void} onStatus
 * @property {(error: api.ApiError) => void} [onError] a refusal (401, 403, 404)
 */

/** How long a stream closed as `revoked` waits for another tab's sign-out to show. */
const REVOKED_WAIT_MS = 1000;

export class LiveStream {
  /**
   * @param {string} path under /api/v1, e.g. `/matches/<id>/events`
   * @param {string[]} events the event names to listen to
   * @param {StreamHandlers} handlers
   * @param {number | null} [lastId]
   * @param {{ socket?: boolean }} [options] `socket`: a WebSocket that takes moves
   */
  constructor(path, events, handlers, lastId = null, options = {}) {
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
    /** the stream is a WebSocket (until it cannot be opened) */
    this.useSocket = Boolean(options.socket) && typeof WebSocket === "function";
    /** @type {WebSocket | null} the open (or opening) socket */
    this.socket = null;
    /** @type {Map<string, { resolve: (data: any) => void, reject: (error: api.ApiError) => void, timer: ReturnType<typeof setTimeout> }>} moves sent, by key */
    this.pending = new Map();
    // The browser knows when it loses the network: the stream closes at once (a socket left
    // open would take moves that never arrive) and opens again as soon as it is back, not at
    // the end of a back-off.
    this.wentOffline = () => this.offline();
    this.cameOnline = () => this.online();
    window.addEventListener("offline", this.wentOffline);
    window.addEventListener("online", this.cameOnline);
    this.connect();
  }

  async connect() {
    this.timer = null;
    if (this.stopped) return;
    const token = api.token();
    const params = new URLSearchParams();
    if (api.token()) {
      try {
        params.set("ticket", (await api.streamTicket(`/api/v1${this.path}`)).ticket);
      } catch (exc) {
        // A refusal (a session ended: 401; a stream the caller may not open, as a match closed
        // to spectators: 403; or no such stream: 404) stands: said once, never asked again.
        if (exc instanceof api.ApiError && [401, 403, 404].includes(exc.status)) {
          this.handlers.onError?.(exc);
          this.stop();
          return;
        }
        this.retry();
        return;
      }
    }
    // Stopped, or a retry was scheduled while the ticket came (the browser went offline).
    if (this.stopped || this.timer !== null) return;
    if (this.lastId !== null) params.set("last_event_id", String(this.lastId));
    if (this.useSocket) {
      this.openSocket(params, token);
      return;
    }
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
        this.closed(data, token);
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

  /**
   * The server ended the stream for good. Ended as its session was (`revoked`: signed out
   * elsewhere, a password changed, the account closed), it is a refusal of that session, as
   * a 401 is (`onError`: the page signs out and says why); else the page hears `close`.
   * @param {{ reason?: string }} data
   * @param {string | null} token the session the stream was opened for
   */
  closed(data, token) {
    if (data?.reason === "revoked") {
      this.stop();
      // Signed out in another tab of this browser (whose sign-out revokes the token before it
      // forgets it, shared by the tabs): that tab's change is told here by the `storage` event,
      // and the session kept now is not to be ended. Still this page's a second later: ended
      // elsewhere.
      setTimeout(() => {
        if (api.token() !== token) return;
        const refused = new api.ApiError(401, "not_authenticated", "");
        refused.sentToken = token;
        this.handlers.onError?.(refused);
      }, REVOKED_WAIT_MS);
      return;
    }
    this.handlers.onEvent("close", data, null);
  }

  /** @param {URLSearchParams} params @param {string | null} token the session it opens for */
  openSocket(params, token) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/api/v1${this.path}?${params}`);
    this.socket = socket;
    let opened = false;
    let ended = false;
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      this.handlers.onStatus("live");
    };
    socket.onmessage = (message) => {
      /** @type {{ event: string, id?: number, data?: any, key?: string, status?: number }} */
      let event;
      try {
        event = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (event.event === "move") {
        this.answered(event);
      } else if (event.event === "close") {
        if (event.data?.reason === "slow_reader") return; // the socket closes: opened again
        ended = true;
        this.closed(event.data, token);
      } else if (this.events.includes(event.event)) {
        const id = typeof event.id === "number" ? event.id : null;
        if (id !== null) this.lastId = id;
        this.handlers.onEvent(event.event, event.data, id);
      }
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.unanswered();
      if (this.stopped || ended) return;
      // Closed by a restart (1012), a lost connection or a refusal: again, from the last id.
      if (!opened && this.failures >= 2) this.useSocket = false;
      this.retry();
    };
  }

  /** The socket is open: moves go on it. */
  canMove() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /**
   * A move on the socket, answered as `POST …/moves` answers it: the view after the move, or
   * the route's refusal (an ApiError with its status and code). An ApiError with status 0
   * ("network") when the socket is not open, closes, or has not answered within `wait` ms:
   * the move may or may not have been applied, so send it again with the same key.
   * @param {api.MoveBody & { version: number }} body
   * @param {string} key the move's Idempotency-Key
   * @param {number} [wait]
   * @returns {Promise<api.MoveReply>}
   */
  move(body, key, wait = 8000) {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new api.ApiError(0, "network", "The live connection is closed."));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new api.ApiError(0, "network", "No answer on the live connection."));
      }, wait);
      this.pending.set(key, { resolve, reject, timer });
      socket.send(JSON.stringify({ type: "move", ...body, key }));
    });
  }

  /** @param {{ key?: string, status?: number, data?: any }} answer */
  answered(answer) {
    const waiting = answer.key === undefined ? undefined : this.pending.get(answer.key);
    if (!waiting) return;
    this.pending.delete(/** @type {string} */ (answer.key));
    clearTimeout(waiting.timer);
    const status = answer.status ?? 0;
    if (status >= 200 && status < 300) {
      waiting.resolve(answer.data);
    } else {
      const error = answer.data ?? {};
      waiting.reject(new api.ApiError(status, String(error.code ?? "server_error"),
        String(error.message ?? ""), error.detail));
    }
  }

  /** The socket closed: every move still waiting is told so (sent again by the route). */
  unanswered() {
    for (const [key, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new api.ApiError(0, "network", "The live connection closed."));
      this.pending.delete(key);
    }
  }

  retry() {
    if (this.stopped) return;
    this.source?.close();
    this.handlers.onStatus("reconnecting");
    this.failures += 1;
    const delay = Math.min(10000, 500 * 2 ** Math.min(this.failures, 5));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** The browser went offline: every move waiting is told so, and the stream is closed. */
  offline() {
    if (this.stopped) return;
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.unanswered();
    this.retry();
  }

  /** The browser is online again: a stream waiting to reconnect does so now. */
  online() {
    if (this.stopped || this.timer === null) return;
    clearTimeout(this.timer);
    this.failures = 0;
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("offline", this.wentOffline);
    window.removeEventListener("online", this.cameOnline);
    if (this.timer) clearTimeout(this.timer);
    this.source?.close();
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.unanswered();
  }
}
