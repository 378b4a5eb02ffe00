// @ts-check
/**
 * The fairness check of a finished deal, in the browser (docs/rules.md R-3..R-5):
 * SHA-256 of the revealed seed is the commitment published at the deal's start, and the
 * shuffle `pisyedili-shuffle-v1` of that seed, dealt from the opener, gives the hands dealt.
 * Only the Web Crypto API (crypto.subtle) is used: nothing to install.
 */

export const SUITS = ["C", "D", "H", "S"];
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** clubs 2C..AC, then diamonds, hearts, spades. */
export function canonicalPack() {
  return SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit));
}

/**
 * @param {string} hex
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function hexToBytes(hex) {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {string}
 */
export function bytesToHex(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return Array.from(view, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * the commitment of a seed, SHA-256 in hex.
 * @param {Uint8Array<ArrayBuffer>} seed
 * @returns {Promise<string>}
 */
export async function commitmentOf(seed) {
  return bytesToHex(await crypto.subtle.digest("SHA-256", seed));
}

/**
 * the pack shuffled by the seed; deck[0] is the top.
 * @param {Uint8Array<ArrayBuffer>} seed
 * @param {string} [prefix] "pisyedili-shuffle-v1:" (R-6 uses its own prefix)
 * @param {string[]} [cards] the cards to shuffle, the canonical pack by default
 * @returns {Promise<string[]>}
 */
export async function shuffle(seed, prefix = "pisyedili-shuffle-v1:", cards = canonicalPack()) {
  const key = await crypto.subtle.importKey(
    "raw",
    seed,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const encoder = new TextEncoder();
  let block = 0;
  /** @type {DataView | null} */
  let words = null;
  let offset = 0;
  async function next() {
    if (words === null || offset >= words.byteLength) {
      const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(prefix + String(block)));
      block += 1;
      words = new DataView(mac);
      offset = 0;
    }
    const value = words.getUint32(offset, false);
    offset += 4;
    return value;
  }
  const deck = cards.slice();
  const range = 2 ** 32;
  for (let j = deck.length - 1; j >= 1; j--) {
    const bound = j + 1;
    const limit = range - (range % bound);
    let x = await next();
    while (x >= limit) x = await next();
    const k = x % bound;
    [deck[j], deck[k]] = [deck[k], deck[j]];
  }
  return deck;
}

/**
 * one card at a time from the top, clockwise from the opener, `handSize` rounds.
 * @param {string[]} deck
 * @param {number} seats
 * @param {number} opener
 * @param {number} handSize
 * @returns {string[][]}
 */
export function dealHands(deck, seats, opener, handSize) {
  /** @type {string[][]} */
  const hands = Array.from({ length: seats }, () => []);
  for (let i = 0; i < seats * handSize; i++) hands[(opener + i) % seats].push(deck[i]);
  return hands;
}

/**
 * @typedef {object} FairnessInput
 * @property {string} seed hex, revealed at the deal's end
 * @property {string} commitment hex, published at the deal's start
 * @property {number} seat_count
 * @property {number} opener
 * @property {number} hand_size
 * @property {string[][]} hands_at_start
 */

/**
 * @typedef {object} FairnessResult
 * @property {"verified" | "mismatch"} result
 * @property {boolean} commitmentOk
 * @property {boolean} handsOk
 * @property {string} computedCommitment
 */

/**
 * @param {FairnessInput} deal
 * @returns {Promise<FairnessResult>}
 */
export async function checkFairness(deal) {
  let seed;
  try {
    seed = hexToBytes(deal.seed);
  } catch {
    return { result: "mismatch", commitmentOk: false, handsOk: false, computedCommitment: "" };
  }
  const computedCommitment = await commitmentOf(seed);
  const commitmentOk = computedCommitment === deal.commitment.toLowerCase();
  const deck = await shuffle(seed);
  const hands = dealHands(deck, deal.seat_count, deal.opener, deal.hand_size);
  // A hand is a set of cards: compared in the canonical order of R-2, whatever order the
  // server lists it in.
  const order = new Map(canonicalPack().map((card, i) => [card, i]));
  /** @param {string[]} hand */
  const sorted = (hand) =>
    hand.map((card) => card.toUpperCase()).sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
  const handsOk =
    hands.length === deal.hands_at_start.length &&
    hands.every((hand, seat) => {
      const mine = sorted(hand);
      const theirs = sorted(deal.hands_at_start[seat]);
      return mine.length === theirs.length && mine.every((card, i) => card === theirs[i]);
    });
  return {
    result: commitmentOk && handsOk ? "verified" : "mismatch",
    commitmentOk,
    handsOk,
    computedCommitment,
  };
}

// ---- What this browser saw during a deal, to check its replay against ----

/** localStorage["pisyedili.deal.<match>.<deal>"]: what the page showed while the deal was played. */
export const RECORD_PREFIX = "pisyedili.deal.";
/** The oldest records beyond this many are forgotten. */
export const RECORD_LIMIT = 400;

/**
 * A deal as this browser saw it while it was played: the commitment shown from its start, the
 * viewer's seat, and a digest of the hand that seat was dealt (never the cards themselves:
 * nothing in storage names a card).
 * @typedef {object} DealRecord
 * @property {string} commitment
 * @property {number | null} seat null: watched from no seat
 * @property {string | null} hand handDigest() of the hand shown before the seat's first move
 * @property {number} at when the commitment was first shown (ms since the epoch)
 */

/**
 * @param {string} matchId
 * @param {number} deal
 */
function recordKey(matchId, deal) {
  return `${RECORD_PREFIX}${matchId}.${deal}`;
}

/**
 * SHA-256 of a hand, as a set of cards, bound to its match and deal.
 * @param {string} matchId
 * @param {number} deal
 * @param {string[]} hand
 * @returns {Promise<string>}
 */
export async function handDigest(matchId, deal, hand) {
  const order = new Map(canonicalPack().map((card, i) => [card, i]));
  const cards = hand.map((card) => card.toUpperCase())
    .sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
  const text = `pisyedili-hand-v1:${matchId}:${deal}:${cards.join(",")}`;
  return bytesToHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * What this browser recorded of a deal, or null.
 * @param {string} matchId
 * @param {number} deal
 * @returns {DealRecord | null}
 */
export function recordedDeal(matchId, deal) {
  try {
    const value = JSON.parse(localStorage.getItem(recordKey(matchId, deal)) ?? "null");
    if (!value || typeof value.commitment !== "string") return null;
    return {
      commitment: value.commitment,
      seat: typeof value.seat === "number" ? value.seat : null,
      hand: typeof value.hand === "string" ? value.hand : null,
      at: Number(value.at) || 0,
    };
  } catch {
    return null;
  }
}

/** @param {string} key @param {DealRecord} record */
function store(key, record) {
  try {
    localStorage.setItem(key, JSON.stringify(record));
  } catch {
    forgetOldest(RECORD_LIMIT / 2);
    try {
      localStorage.setItem(key, JSON.stringify(record));
    } catch {
      // Storage refused (full, or disabled): the replay will say what it could not check.
    }
  }
}

/**
 * Forget every deal this browser recorded (at sign-out: the next person to use the browser
 * finds no trace of the hands this player was dealt, not even their digests).
 */
export function forgetRecords() {
  forgetOldest(0);
}

/** Keep the newest `keep` records. @param {number} keep */
function forgetOldest(keep) {
  /** @type {[string, number][]} */
  const found = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(RECORD_PREFIX)) continue;
    let at = 0;
    try {
      at = Number(JSON.parse(localStorage.getItem(key) ?? "{}").at) || 0;
    } catch {
      // An unreadable record goes first.
    }
    found.push([key, at]);
  }
  if (found.length <= keep) return;
  found.sort((a, b) => a[1] - b[1]);
  for (const [key] of found.slice(0, found.length - keep)) localStorage.removeItem(key);
}

/**
 * Record the commitment a deal showed: the first one shown is kept (a later, different one
 * does not replace it).
 * @param {string} matchId
 * @param {number} deal
 * @param {string} commitment
 * @param {number | null} seat
 */
export function recordCommitment(matchId, deal, commitment, seat) {
  const key = recordKey(matchId, deal);
  if (recordedDeal(matchId, deal)) return;
  store(key, { commitment: commitment.toLowerCase(), seat, hand: null, at: Date.now() });
  forgetOldest(RECORD_LIMIT);
}

/**
 * Record the hand a seat was shown before its first move of the deal (once).
 * @param {string} matchId
 * @param {number} deal
 * @param {string} commitment the deal's commitment shown with that hand
 * @param {number} seat
 * @param {string[]} hand
 */
export async function recordHand(matchId, deal, commitment, seat, hand) {
  const known = recordedDeal(matchId, deal);
  if (known && (known.hand !== null || known.commitment !== commitment.toLowerCase())) return;
  const digest = await handDigest(matchId, deal, hand);
  const now = recordedDeal(matchId, deal);
  if (now && now.hand !== null) return;
  store(recordKey(matchId, deal), {
    commitment: commitment.toLowerCase(), seat, hand: digest, at: now?.at ?? Date.now(),
  });
}

/**
 * One check of a replay: true passed, false failed, null could not be made here.
 * @typedef {object} ReplayCheck
 * @property {"recorded_commitment" | "recorded_hand" | "served_commitment" | "served_hands"} name
 * @property {boolean | null} ok
 */

/**
 * @typedef {object} ReplayVerdict
 * @property {"verified" | "mismatch" | "unrecorded"} result verified: every check passed,
 *   against what this browser recorded during the deal too; mismatch: a check failed;
 *   unrecorded: the answer agrees with itself, but what the deal showed was not recorded here
 * @property {ReplayCheck[]} checks
 * @property {DealRecord | null} record
 */

/**
 * A finished deal's replay checked against itself (R-3..R-5) and against what this browser
 * recorded while the deal was played: a server that forged a consistent replay (a new seed,
 * its SHA-256 as commitment, the hands it deals) fails the second.
 * @param {string} matchId
 * @param {number} deal
 * @param {FairnessInput} replay
 * @returns {Promise<ReplayVerdict>}
 */
export async function checkReplay(matchId, deal, replay) {
  const record = recordedDeal(matchId, deal);
  const served = await checkFairness(replay);
  /** @type {boolean | null} */
  let recordedCommitment = null;
  /** @type {boolean | null} */
  let recordedHand = null;
  if (record) {
    recordedCommitment = served.computedCommitment !== "" && served.computedCommitment === record.commitment;
    if (record.seat !== null && record.hand !== null) {
      let seed = null;
      try {
        seed = hexToBytes(replay.seed);
      } catch {
        recordedHand = false;
      }
      if (seed !== null) {
        const hands = dealHands(await shuffle(seed), replay.seat_count, replay.opener, replay.hand_size);
        const dealt = hands[record.seat];
        recordedHand = dealt !== undefined && (await handDigest(matchId, deal, dealt)) === record.hand;
      }
    }
  }
  /** @type {ReplayCheck[]} */
  const checks = [
    { name: "recorded_commitment", ok: recordedCommitment },
    { name: "recorded_hand", ok: recordedHand },
    { name: "served_commitment", ok: served.commitmentOk },
    { name: "served_hands", ok: served.handsOk },
  ];
  const needed = checks.filter((c) => c.name !== "recorded_hand" || record?.seat !== null);
  const result = checks.some((c) => c.ok === false) ? "mismatch"
    : needed.every((c) => c.ok === true) && record !== null ? "verified" : "unrecorded";
  return { result, checks, record };
}
