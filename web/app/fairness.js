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
