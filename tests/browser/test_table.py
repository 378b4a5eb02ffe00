"""The card table as a table: the others round it in turn order from the player's next seat
(left, across, right), the dealer's button, the direction of play as an arrow, the pending
sevens as a stack with the cards they cost, the suit a Jack asked for; and a move log that says
what each move did as the server tells it (`effect`), at a phone's width and a desktop's."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import Person, by_testid, sign_in, take_turn

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

# What the log says of each kind of effect (English), and words no other kind's entry has.
EFFECT_WORDS = {
    "seven": re.compile(r"draws? (\d+) or answer"),
    "skip": re.compile(r"miss(es)? a turn"),
    "reverse": re.compile(r"the direction changes"),
    "suit": re.compile(r"asked for [♣♦♥♠]"),
    "again": re.compile(r"may play one more card"),
    "opening": re.compile(r"the opening card: no effect"),
    "penalty": re.compile(r"the penalty of the sevens"),
}


READ_FRAME = """() => {
  const at = (id) => document.querySelector(`[data-testid="${id}"]`);
  return {
    arrow: at("direction-arrow")?.dataset.direction, direction: at("direction")?.dataset.direction,
    stack: at("sevens-stack") ? Number(at("sevens-stack").dataset.count) : null,
    cards: at("sevens-stack") ? Number(at("sevens-stack").dataset.cards) : null,
    pending: Number(at("pending-sevens")?.dataset.count ?? 0),
    named: at("named-suit")?.dataset.suit ?? null, suit: at("active-suit")?.dataset.suit,
    yours: at("turn-indicator")?.dataset.yourTurn === "true",
  };
}"""


def check_log(page: Page, person: Person, match_id: str, deal: int) -> set[str]:
    """Each entry of the deal's log on the page says what the API's `effect` says, and nothing
    another kind would say; the kinds seen."""
    entries = {e["seq"]: e for e in person.get(f"/api/v1/matches/{match_id}/moves?deal={deal}")}
    shown = by_testid(page, "move-log-entry")
    kinds = set()
    for i in range(shown.count()):
        item = shown.nth(i)
        entry = entries[int(item.get_attribute("data-seq") or 0)]
        text = item.inner_text()
        kind = entry["effect"]["kind"]
        kinds.add(kind)
        for name, words in EFFECT_WORDS.items():
            assert bool(words.search(text)) == (name == kind), (text, entry["effect"])
        if kind == "seven":
            found = EFFECT_WORDS["seven"].search(text)
            assert found and int(found.group(1)) == entry["effect"]["cards"], text
    return kinds


def test_the_table_round_its_middle(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    match_id = person.create(4, ["greedy", "random", "greedy"], deals=2, rules={"hand_size": 5})
    # The phone follows at a pace a person reads (each frame stays a while for its picture).
    wide, phone = pages.new(1280, 900), pages.new(375, 800, pace=500)
    for page in (wide, phone):
        sign_in(page, web_client, person, route=f"#/match/{match_id}")
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    # Seat 0's next seat to its left, the one after across the top, the last to its right.
    for seat, side in ((1, "left"), (2, "top"), (3, "right"), (0, "bottom")):
        expect(by_testid(wide, f"seat-{seat}")).to_have_attribute("data-side", side)
    left, top, right, mine = (by_testid(wide, f"seat-{s}").bounding_box() for s in (1, 2, 3, 0))
    assert left and top and right and mine
    assert left["x"] < top["x"] < right["x"] and top["y"] < left["y"] + left["height"] < mine["y"]
    state = person.state(match_id)
    for page in (wide, phone):
        expect(
            by_testid(page, f"seat-{state['dealer']}").locator('[data-testid="dealer-chip"]')
        ).to_have_count(1)
        pages.shot(page, "table")

    shot: set[tuple[int, str]] = set()
    kinds: set[str] = set()
    deadline = time.monotonic() + 200
    while by_testid(wide, "table").get_attribute("data-status") != "finished":
        assert time.monotonic() < deadline, "the match did not finish in time"
        for page in (wide, phone):
            # One frame read at once (the table is redrawn as moves are played out): the arrow
            # and the words agree on the direction; the stack on the sevens pending and the
            # cards they cost; the suit asked for is the suit to play.
            frame = page.evaluate(READ_FRAME)
            assert frame["arrow"] == frame["direction"], frame
            if frame["stack"] is not None:
                assert frame["stack"] == frame["pending"] > 0, frame
                assert frame["cards"] == 3 * frame["pending"], frame  # R-22 linear, the server's
                # A picture while it stays: the page's turn, to answer them.
                if frame["yours"] and (id(page), "sevens") not in shot:
                    pages.shot(page, "sevens")
                    shot.add((id(page), "sevens"))
            else:
                assert frame["pending"] == 0, frame
            if frame["named"] is not None:
                assert frame["named"] == frame["suit"], frame
                if frame["yours"] and (id(page), "named") not in shot:
                    pages.shot(page, "named-suit")
                    shot.add((id(page), "named"))
        if not take_turn(wide):
            wide.wait_for_timeout(100)
    last = person.get(f"/api/v1/matches/{match_id}")["deals"][-1]["number"]
    kinds |= check_log(wide, person, match_id, last)
    assert "opening" in kinds or len(kinds) > 1, kinds
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


# The contrast of an element's text with the nearest background colour behind it (WCAG's
# formula), read as the browser paints it.
CONTRAST = """(el) => {
  const rgba = (s) => s.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let node = el, back = [255, 255, 255];
  for (; node; node = node.parentElement) {
    const colour = rgba(getComputedStyle(node).backgroundColor);
    if (colour.length < 4 || colour[3] > 0) { back = colour; break; }
  }
  const [hi, lo] = [lum(rgba(getComputedStyle(el).color)), lum(back)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


def test_the_suit_to_play_reads_before_the_first_card(web_client: str, pages: Any) -> None:
    """Two people, nobody has played: no suit to play yet, said by a dash that can be read
    (it once sat, in the table's own light colour, on the cream badge a suit is shown on)."""
    person, other = Person(web_client), Person(web_client)
    match_id = person.create(2, [])
    other.post(f"/api/v1/matches/{match_id}/join", status=200)
    for width, height in ((375, 800), (1280, 900)):
        page = pages.new(width, height)
        sign_in(page, web_client, person, route=f"#/match/{match_id}")
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        suit = by_testid(page, "active-suit")
        expect(suit).to_have_attribute("data-suit", "")
        expect(suit).to_have_text("–")
        assert suit.evaluate(CONTRAST) >= 4.5
        pages.shot(page, "opening")


def test_the_jacks_suit_picker_is_all_on_a_phone_screen(web_client: str, pages: Any) -> None:
    """A Jack clicked on a phone: the suit picker opens on it, whole on the screen (scrolled to
    where the hand ends below the fold), the four suits and Cancel on one line. The suit the
    rules forbid now (here `jack_nomination: different_suit`: the suit in play) is dimmed, and
    a click on it says why, playing nothing."""
    person = Person(web_client)
    rules = {"hand_size": 20, "max_players": 2, "jack_nomination": "different_suit"}
    match_id = person.create(2, ["greedy"], deals=3, rules=rules)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "no Jack to play on turn"
        state = person.state(match_id)
        if state["turn"] != state["you"] or not state["legal_moves"]:
            time.sleep(0.05)
            continue
        # A Jack that names a suit (the opening play names none); else any other move.
        jacks = [m["card"] for m in state["legal_moves"] if m.get("card") and m.get("suit")]
        if jacks:
            break
        others = [m for m in state["legal_moves"] if not (m.get("card") or "").startswith("J")]
        move = next((m for m in others if m["action"] == "play"), None) or min(
            others, key=lambda m: m["action"] != "pass"
        )
        person.post(
            f"/api/v1/matches/{match_id}/moves", {**move, "version": state["version"]}, status=200
        )
    page = pages.new(375, 640)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-version", str(state["version"]))
    by_testid(page, "hand").locator(f'[data-card="{jacks[0]}"]').click()
    picker = by_testid(page, "suit-picker")
    expect(picker).to_be_visible()
    box = picker.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= 640, box
    tops = {
        round((by_testid(picker, f"suit-{s}").bounding_box() or {"y": -1})["y"]) for s in "CDHS"
    }
    assert len(tops) == 1, tops
    cancel = picker.locator("button").last.bounding_box()
    assert cancel and round(cancel["y"]) in tops, (cancel, tops)
    pages.shot(page, "suit-picker")
    in_play = state["active_suit"]
    for suit in "CDHS":
        dimmed = by_testid(picker, f"suit-{suit}")
        if suit == in_play:
            expect(dimmed).to_have_attribute("aria-disabled", "true")
        else:
            expect(dimmed).not_to_have_attribute("aria-disabled", "true")
    # A pointer's click on it (Playwright would wait for a dimmed control to be enabled).
    by_testid(picker, f"suit-{in_play}").click(force=True)
    banner = by_testid(page, "error-banner")
    expect(banner).to_contain_text("a Jack must ask for a suit other than")
    expect(banner).to_contain_text("(R-19)")
    assert person.state(match_id)["version"] == state["version"]  # nothing was played
    person.post(f"/api/v1/matches/{match_id}/resign", status=200)
