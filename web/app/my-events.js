// @ts-check
/**
 * The player's own event stream (GET /me/events, docs/api.md), one per page while signed in,
 * shared by every part of the page that listens to it (the turn notice, the lobby, quick play,
 * the tournaments).
 * A listener hears each event, and `ready` on each (re)connect, until it stops listening. The
 * stream follows the session: main.js calls `followSession` on every render, which opens it for
 * the player signed in and closes it on sign-out.
 */

import * as api from "./api.js";
import { LiveStream } from "./live.js";
import { showError } from "./ui.js";

const EVENTS = ["ready", "resync", "your_turn", "match_started", "match_finished", "match_cancelled",
  "tournament_round", "tournament_invitation", "tournament_answered", "tournament_cancelled", "tournament_withdrawn", "queue",
  "challenge",
  "challenge_answered"];

/** @typedef {(name: string, data: any) => void} Listener */

/** @type {Set<Listener>} */
const listeners = new Set();
/** @type {LiveStream | null} */
let stream = null;
/** @type {string | null} the token the stream was opened with */
let openedWith = null;

/** Opens the stream for the player signed in, or closes it when nobody is (or another is). */
export function followSession() {
  const token = api.token();
  if (token === openedWith) return;
  stream?.stop();
  stream = null;
  openedWith = token;
  if (!token) return;
  stream = new LiveStream("/me/events", EVENTS, {
    onEvent: (name, data) => {
      for (const listener of [...listeners]) listener(name, data);
    },
    onStatus: () => {},
    // The session ended elsewhere (its stream closed as `revoked`): the page signs out.
    onError: (error) => showError(error),
  });
}

/**
 * @param {Listener} listener
 * @returns {() => void} stops listening
 */
export function onMyEvent(listener) {
  followSession();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
