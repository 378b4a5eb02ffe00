"""Where the keyboard's focus goes at the table and around it: into the resign confirm and back,
kept in the hand across a move and the redraws after it, into the deal's and the match's result
dialogs and back, onto the match's result as it comes (from the table), onto the control that
appears after Play now and Cancel and in a replay; and the names cards and suits are read by, in
words of the page's language."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .harness import SUIT_SYMBOLS, Person, by_testid, sign_in, take_turn, version, wait_version
from .test_accessibility import AXE
from .test_keyboard import your_turn

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ACTIVE = """() => { const e = document.activeElement;
  return { tag: e ? e.tagName : null, testid: e?.dataset?.testid || null,
           card: e?.dataset?.card || null, inHand: Boolean(e?.closest('.hand-panel')),
           inDialog: e?.closest('[role=dialog], [role=alertdialog]')?.dataset.testid || null }; }"""


def active(page: Page) -> dict[str, Any]:
    return dict(page.evaluate(ACTIVE))


def test_focus_stays_in_the_hand_after_a_move_by_keys(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["greedy"], rules={"hand_size": 7})
    page = pages.new()
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    played = False
    for _ in range(30):
        if not your_turn(page):
            break
        before = version(page)
        legal = by_testid(page, "hand").locator('[data-testid="card"][data-legal="true"]')
        if legal.count():
            page.keyboard.press("ArrowRight")
            assert active(page)["testid"] == "card"
            page.keyboard.press("Enter")
            if by_testid(page, "suit-picker").count():
                page.keyboard.press("Enter")
            played = True
        elif by_testid(page, "pass-button").is_enabled():
            page.keyboard.press("p")
        else:
            page.keyboard.press("d")
        wait_version(page, before)
        if not played:
            continue
        # Right after the move (the bot's answer may already be drawn): still in the hand.
        assert active(page)["inHand"], active(page)
        # And once the turn comes back, after the redraws of the bot's move.
        if not your_turn(page):
            break
        now = active(page)
        assert now["inHand"] and now["testid"] in ("card", "draw-button", "pass-button"), now
        return
    assert played, "no card played by keys"


def test_the_resign_confirm_takes_the_focus_and_escape_gives_it_back(
    web_client: str, pages: Any
) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["greedy"], rules={"hand_size": 7})
    page = pages.new()
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    assert your_turn(page)
    before = version(page)
    resign = by_testid(page, "resign-button")
    resign.focus()
    page.keyboard.press("Enter")
    confirm = by_testid(page, "resign-confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_have_attribute("role", "alertdialog")
    # On its safe choice: a second Enter keeps playing, it plays no card.
    expect(by_testid(page, "resign-no")).to_be_focused()
    # The table's keys do nothing while it is open.
    for key in ("ArrowRight", "ArrowLeft", "d", "p"):
        page.keyboard.press(key)
    expect(by_testid(page, "resign-no")).to_be_focused()
    page.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(resign).to_be_focused()
    page.keyboard.press("Enter")
    expect(by_testid(page, "resign-no")).to_be_focused()
    page.keyboard.press("Enter")
    expect(confirm).to_have_count(0)
    expect(resign).to_be_focused()
    page.wait_for_timeout(300)
    assert version(page) == before
    assert person.get(f"/api/v1/matches/{match_id}")["status"] == "active"


def test_a_deals_result_over_the_table_is_a_modal_dialog(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["greedy"], deals=2, rules={"hand_size": 3})
    # A pace at which a deal's result stays 6 s over the table.
    page = pages.new(pace=300)
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    overlay = by_testid(page, "deal-result").and_(page.locator(".overlay"))
    deadline = time.monotonic() + 120
    while not overlay.count():
        assert time.monotonic() < deadline, "no deal's result over the table"
        if not take_turn(page, wait_ms=1000):
            page.wait_for_timeout(50)
    expect(overlay).to_have_attribute("aria-modal", "true")
    expect(overlay).to_have_attribute("role", "dialog")
    cont, replay = by_testid(overlay, "deal-continue"), by_testid(overlay, "replay-link")
    expect(cont).to_be_focused()
    # Tab goes round its own controls, never to the table behind it.
    page.keyboard.press("Tab")
    expect(replay).to_be_focused()
    page.keyboard.press("Tab")
    expect(cont).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(replay).to_be_focused()
    # The table's keys do not reach behind it.
    page.keyboard.press("ArrowRight")
    expect(replay).to_be_focused()
    # Escape is its Continue; the focus goes back to the hand.
    page.keyboard.press("Escape")
    expect(overlay).to_have_count(0)
    focused = active(page)
    assert focused["inHand"], focused


def test_the_matchs_result_takes_the_focus_from_the_table_as_it_comes(
    web_client: str, pages: Any
) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["greedy"], rules={"hand_size": 2})
    page = pages.new()
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-status", "active")
    # Played by clicks to the end: the focus is in the hand (its cards, then the empty hand).
    deadline = time.monotonic() + 90
    while table.get_attribute("data-status") != "finished":
        assert time.monotonic() < deadline, "the match did not finish in time"
        if not take_turn(page, wait_ms=1000):
            page.wait_for_timeout(50)
    result = by_testid(page, "match-result")
    heading = result.locator("h2")
    expect(heading).to_be_focused()
    # Kept across the redraws that follow (the rating changes as they are read).
    expect(by_testid(result, "rating-change").first).to_be_visible()
    page.wait_for_timeout(500)
    expect(heading).to_be_focused()
    page.keyboard.press("Tab")
    expect(by_testid(result, "rematch-button")).to_be_focused()

    # Focus elsewhere on the page when the match ends: it stays there.
    match_id = person.create(2, ["greedy"], rules={"hand_size": 7})
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(table).to_have_attribute("data-status", "active")
    elsewhere = by_testid(page, "nav-players")
    elsewhere.focus()
    person.post(f"/api/v1/matches/{match_id}/resign", status=200)
    expect(by_testid(page, "match-result")).to_be_visible()
    page.wait_for_timeout(300)
    expect(elsewhere).to_be_focused()


def test_play_now_and_cancel_move_the_focus_to_what_comes(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    page = pages.new()
    sign_in(page, web_client, person)
    play = by_testid(page, "quick-play-button")
    # A table of six, people only: nobody else's wait in the suite fills it.
    by_testid(page, "quick-seats-6").click()
    by_testid(page, "quick-bots-label").click()
    play.focus()
    page.keyboard.press("Enter")
    expect(by_testid(page, "quick-waiting")).to_be_visible()
    expect(by_testid(page, "quick-cancel")).to_be_focused()
    page.keyboard.press("Enter")
    expect(play).to_be_focused()
    assert person.get("/api/v1/queue")["status"] == "left"


def test_a_replay_at_its_end_or_start_keeps_the_focus_on_a_step_button(
    web_client: str, spectators: None, pages: Any
) -> None:
    person = Person(web_client)
    match_id = person.create(2, ["random"], rules={"hand_size": 3})
    person.play_out(match_id)
    page = pages.new()
    sign_in(page, web_client, person, route=f"#/replay/{match_id}/1")
    step = by_testid(page, "replay-step")
    expect(step).to_have_attribute("data-index", "0")
    by_testid(page, "replay-end").focus()
    page.keyboard.press("Enter")
    expect(step).to_have_attribute("data-last", "true")
    expect(by_testid(page, "replay-prev")).to_be_focused()
    # Back to the start by keys: at the start Next has it.
    while step.get_attribute("data-index") != "0":
        page.keyboard.press("Enter")
    expect(by_testid(page, "replay-next")).to_be_focused()


RANKS = {
    "en": {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack"},
    "tr": {"A": "ası", "K": "papazı", "Q": "kızı", "J": "valesi"},
}
SUITS = {
    "en": {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"},
    "tr": {"C": "Sinek", "D": "Karo", "H": "Kupa", "S": "Maça"},
}


def card_name(code: str, lang: str) -> str:
    rank = RANKS[lang].get(code[:-1], code[:-1])
    suit = SUITS[lang][code[-1]]
    return f"{rank} of {suit.lower()}" if lang == "en" else f"{suit} {rank}"


# The hand's panel holding a Jack whose suit is to be named (table-hand.js), drawn on the page.
SUIT_PICKER = """async () => {
  const { handPanel } = await import('/app/views/table-hand.js');
  const view = { hand: ['JC', 'QD', '7H', 'AS', '10C'], status: 'active', you: 0, resigned: [],
                 penalty_cards: 0, legal_moves: [] };
  const act = { legal: () => true, play() {}, playJack() {}, cancelJack() {}, send() {},
                askResign() {}, keepPlaying() {}, resign() {}, lastPerson: () => false };
  const box = document.createElement('div');
  box.dataset.testid = 'picker-probe';
  box.append(handPanel({ view, jack: 'JC', confirming: false, act }));
  document.body.append(box);
}"""


@pytest.mark.parametrize("locale", ["en-US", "tr-TR"])
def test_cards_and_suits_are_named_in_words_of_the_page(
    web_client: str, pages: Any, locale: str
) -> None:
    lang = locale[:2]
    person = Person(web_client)
    match_id = person.create(2, ["greedy"])
    page = pages.new(locale=locale)
    if AXE.exists():  # loaded by the browser itself: the page's Content-Security-Policy stands
        page.context.add_init_script(path=str(AXE))
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
    cards = by_testid(page, "hand").locator('[data-testid="card"]')
    expect(cards.first).to_be_visible()
    for i in range(cards.count()):
        card = cards.nth(i)
        code = card.get_attribute("data-card") or ""
        expect(card).to_have_accessible_name(card_name(code, lang))
        # What is seen stays the symbols.
        assert SUIT_SYMBOLS[code[-1]] in (card.text_content() or ""), code

    page.evaluate(SUIT_PICKER)
    probe = by_testid(page, "picker-probe")
    for suit, name in SUITS[lang].items():
        button = probe.get_by_role("button", name=name, exact=True)
        expect(button).to_have_attribute("data-testid", f"suit-{suit}")
        expect(button).to_have_text(SUIT_SYMBOLS[suit])
    for code in ("JC", "QD", "7H", "AS", "10C"):
        expect(probe.get_by_role("button", name=card_name(code, lang), exact=True)).to_have_count(1)
    if AXE.exists():  # the names agree with what is seen (axe's label-content-name-mismatch)
        found = page.evaluate(
            """async () => (await axe.run(document.querySelector('[data-testid=picker-probe]'),
                 { runOnly: { type: "rule", values: ["label-content-name-mismatch"] } }))
               .violations.map(v => v.nodes.map(n => n.target.join(" ")).join("; "))"""
        )
        assert found == [], found
