"""What a page may show of the cards: its own hand, the pile and played cards — never a card
another seat holds and nobody has seen, in its DOM (at any moment, watched by a
MutationObserver), its text or its storage."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page

from .harness import POLL_MS, Person, card_text

# Every element carrying data-card, as it appears: "hand:7S", "pile:10H", "other:QC".
WATCH_CARDS = """
(() => {
  const seen = new Set();
  window.__seenCards = seen;
  const note = (node) => {
    if (!(node instanceof Element)) return;
    const found = [...node.querySelectorAll("[data-card]")];
    if (node.matches("[data-card]")) found.push(node);
    for (const el of found) {
      const where = el.closest('[data-testid="hand"]') ? "hand"
        : el.closest('[data-testid="pile-top"]') ? "pile" : "other";
      seen.add(`${where}:${el.dataset.card}`);
    }
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "attributes") note(record.target);
      else record.addedNodes.forEach(note);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         attributeFilter: ["data-card"] });
})();
"""

_CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[CDHS](?![0-9A-Za-z])")


def seen_cards(page: Page) -> set[tuple[str, str]]:
    """(where, card) of every data-card the page ever drew since its last navigation."""
    entries = page.evaluate("[...(window.__seenCards || [])]")
    return {tuple(entry.split(":", 1)) for entry in entries}  # type: ignore[misc]


def played_cards(viewer: Person, match_id: str) -> set[str]:
    """Every card that was public at some point: played (the log) or turned as the pile top,
    or left in a hand at the end of a deal that is over (its result shows them card by card)."""
    moves = viewer.get(f"/api/v1/matches/{match_id}/moves")
    public = {m["card"] for m in moves if m["card"]}
    for deal in viewer.get(f"/api/v1/matches/{match_id}")["deals"]:
        if deal["status"] == "over":
            reveal = viewer.get(f"/api/v1/matches/{match_id}/deals/{deal['number']}")
            public |= {c["card"] for hand in reveal["cards_left"] or [] for c in hand}
    return public


class Audit:
    """Pages of one match, each with its viewer (None: a spectator), checked after every
    move by `step()` and over the whole match by `finish()`."""

    def __init__(
        self, match_id: str, seats: list[Person], viewers: list[tuple[Page, Person | None]]
    ):
        self.match_id = match_id
        self.seats = seats
        self.viewers = viewers
        self.hands = HandWatch(match_id, seats)
        self.steps = 0

    def step(self) -> None:
        """Every page once it shows the current version: its own hand only, no secret card."""
        self.steps += 1
        states = self.hands.record()
        current = states[self.seats[0].id]["version"]
        public = played_cards(self.seats[0], self.match_id)
        for page, person in self.viewers:
            page.wait_for_function(
                "v => Number(document.querySelector('[data-testid=table]').dataset.version) >= v",
                arg=current,
                polling=POLL_MS,
            )
            own = None if person is None else set(self.hands.held_now[person.id])
            assert_shows_no_secret(page, self.hands.secret_from(person, public), own)

    def finish(self, logs: dict[Any, list[str]]) -> None:
        """At no moment did a page draw another seat's unseen card, nor a spectator any hand;
        no console message names one."""
        public = played_cards(self.seats[0], self.match_id)
        for page, person in self.viewers:
            seen = seen_cards(page)
            secret = self.hands.secret_from(person, public)
            leaked = {card for _, card in seen} & secret
            assert not leaked, f"{person.name if person else 'a spectator'} saw {leaked}"
            in_hand = {card for where, card in seen if where == "hand"}
            if person is None:
                assert in_hand == set(), f"a spectator saw a hand: {in_hand}"
            else:
                assert in_hand <= self.hands.held[person.id]
                assert in_hand  # the observer did watch this page's hand
            logged = "\n".join(logs.get(page, []))
            named = [card for card in secret if re.search(rf"\b{card}\b", logged)]
            assert not named, logged


class HandWatch:
    """The cards each seat ever held (read through the API as that seat)."""

    def __init__(self, match_id: str, people: list[Person]):
        self.match_id = match_id
        self.people = people
        self.held: dict[str, set[str]] = {p.id: set() for p in people}
        self.held_now: dict[str, list[str]] = {p.id: [] for p in people}

    def record(self) -> dict[str, dict[str, Any]]:
        states = {}
        for person in self.people:
            state = person.state(self.match_id)
            self.held[person.id] |= set(state["hand"])
            self.held_now[person.id] = state["hand"]
            states[person.id] = state
        return states

    def secret_from(self, viewer: Person | None, public: set[str]) -> set[str]:
        """Cards held by a seat other than `viewer` that were never public."""
        others = [p for p in self.people if viewer is None or p.id != viewer.id]
        return set().union(*(self.held[p.id] for p in others)) - public


_SNAPSHOT = """() => ({
  hand: [...document.querySelectorAll('[data-testid="hand"] [data-card]')].map(e => e.dataset.card),
  html: document.documentElement.outerHTML,
  text: document.body.innerText,
  storage: Object.fromEntries([localStorage, sessionStorage].flatMap(
    s => Object.keys(s).map(k => [k, s.getItem(k)]))),
})"""


def assert_shows_no_secret(page: Page, secret: set[str], own: set[str] | None) -> None:
    """The page as it is now: no secret card in its DOM, its text or its storage; its hand is
    `own` (None: a spectator, who has no hand)."""
    now = page.evaluate(_SNAPSHOT)
    if own is None:
        assert now["hand"] == [], f"a spectator sees a hand: {now['hand']}"
    else:
        assert sorted(now["hand"]) == sorted(own)
    for card in secret:
        assert f'data-card="{card}"' not in now["html"], f"{card} of another seat is in the DOM"
        assert card_text(card) not in now["text"], f"{card} of another seat is in the text"
    for key, value in now["storage"].items():
        assert key.startswith("pisyedili."), f"storage key {key!r}"
        assert not _CARD_IN_TEXT.search(value or ""), f"a card in storage {key}={value!r}"
