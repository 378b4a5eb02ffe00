"""Deploys lose nobody: two people and a spectator play a whole match by clicking while the
server is stopped as a deploy stops it (SIGTERM) and started again, three times. Each page is
told to reconnect, shows "reconnecting", comes back by itself (the seats' WebSocket opened
again, the spectator's EventSource by its own reconnect; each with its stream ticket and the last
event id) and shows every version of the match exactly once, in order, up to the final one."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .harness import Person, by_testid, sign_in, take_turn

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

# Every version the page's table shows, in order (a redraw of the same version counted once):
# the table's as it is put on the page (drawn first, then shown), then each change of it.
VERSIONS_SHOWN = """
window.__versions = [];
const note = (el) => {
  if (!(el instanceof HTMLElement) || el.dataset.version === undefined) return;
  const shown = Number(el.dataset.version);
  if (window.__versions.at(-1) !== shown) window.__versions.push(shown);
};
new MutationObserver((records) => {
  for (const record of records) {
    if (record.type === "attributes") note(record.target);
    for (const node of record.addedNodes) {
      if (!(node instanceof Element)) continue;
      note(node);
      node.querySelectorAll("[data-version]").forEach(note);
    }
  }
}).observe(document, { subtree: true, childList: true, attributes: true,
                       attributeFilter: ["data-version"] });
"""


def _shown(page: Page) -> list[int]:
    return list(page.evaluate("window.__versions"))


def test_a_match_plays_through_three_deploys(web_client: str, server: Any, pages: Any) -> None:
    ana, can, watcher = Person(web_client), Person(web_client), Person(web_client)
    match_id = ana.create(2, [])
    can.post(f"/api/v1/matches/{match_id}/join", status=200)
    people: list[Page] = []
    for person in (ana, can, watcher):
        page = pages.new()
        page.add_init_script(VERSIONS_SHOWN)
        sign_in(page, web_client, person, route=f"#/match/{match_id}")
        expect(by_testid(page, "table")).to_have_attribute("data-status", "active")
        expect(by_testid(page, "connection-status")).to_have_attribute("data-state", "live")
        people.append(page)
    players, spectator = people[:2], people[2]
    expect(by_testid(spectator, "table")).to_have_attribute("data-role", "spectator")
    first = ana.state(match_id)["version"]
    stops: list[float] = []
    # Early in the deal (a two-seat deal of fewer than nine moves is about one in 20,000, of
    # fewer than twelve one in 300); each deploy is followed by a move made while the pages are
    # away.
    restart_at = [first + 2, first + 5, first + 8]
    while ana.state(match_id)["status"] == "active":
        state = ana.state(match_id)
        if restart_at and state["version"] >= restart_at[0]:
            restart_at.pop(0)
            stops.append(server.terminate(limit=10))
            for page in people:
                status = by_testid(page, "connection-status")
                expect(status).to_have_attribute("data-state", "reconnecting")
            if len(stops) == 1:
                pages.shot(spectator, "deploy-reconnecting")
            server.start()
            # A move made before the pages are back: each of them must still show it.
            if state["status"] == "active":
                (ana if state["turn"] == 0 else can).move(match_id)
            for page in people:
                status = by_testid(page, "connection-status")
                expect(status).to_have_attribute("data-state", "live", timeout=30_000)
            continue
        moved = any(take_turn(page) for page in players if state["status"] == "active")
        if not moved:
            players[0].wait_for_timeout(100)
    assert len(stops) == 3, f"the match ended before three deploys: {stops}"
    final = ana.state(match_id)
    for page in people:
        expect(by_testid(page, "table")).to_have_attribute("data-status", "finished")
        expect(by_testid(page, "table")).to_have_attribute("data-version", str(final["version"]))
    # Each move made one version; one more is the deal's scoring, committed right after the
    # last move (its `deal_over` view is the last move's answer): a stream that wakes for the
    # last move may read the scored match already and send that one view (docs/api.md: changes
    # in quick succession may come as one view of the latest).
    moves = len(ana.get(f"/api/v1/matches/{match_id}/moves"))
    assert final["version"] - first == moves + 1, (first, moves, final["version"])
    every = list(range(first, final["version"] + 1))
    coalesced = [v for v in every if v != final["version"] - 1]
    for page, who in zip(people, ("ana", "can", "spectator"), strict=True):
        shown = _shown(page)
        # Every version once, in order, from the first to the final one: none missed across
        # the deploys, none shown twice.
        assert shown[shown.index(first) :] in (every, coalesced), (who, shown)
    pages.shot(spectator, "deploys-final")
    assert all(seconds < 5 for seconds in stops), stops
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_a_refused_stream_ticket_is_replaced_by_a_fresh_one(web_client: str, pages: Any) -> None:
    """EventSource (a signed-in spectator's table) gives up on a refusal (an expired ticket's
    401): the page asks for a new ticket for the same stream and connects again, then shows
    "live"."""
    ana, ben = Person(web_client), Person(web_client)
    match_id = ana.create(2, ["random"])
    path = f"/api/v1/matches/{match_id}/events"
    page = pages.new()
    tickets: list[Any] = []
    opened: list[str] = []
    page.on(
        "request",
        # The match stream's tickets (the page's own /me/events stream asks for its own).
        lambda r: tickets.append(r.post_data_json)
        if r.url.endswith("/stream-ticket") and r.post_data_json != {"path": "/api/v1/me/events"}
        else None,
    )

    def refuse_the_first(route: Any) -> None:
        opened.append(route.request.url)
        if len(opened) == 1:
            body = '{"code": "not_authenticated", "message": "The stream ticket has expired."}'
            route.fulfill(status=401, content_type="application/json", body=body)
        else:
            route.continue_()

    page.route(f"**{path}?*", refuse_the_first)
    sign_in(page, web_client, ben, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-role", "spectator")
    status = by_testid(page, "connection-status")
    expect(status).to_have_attribute("data-state", "live", timeout=20_000)
    assert len(opened) == 2 and tickets == [{"path": path}, {"path": path}], (opened, tickets)
    ticket = [parse_qs(urlparse(url).query)["ticket"][0] for url in opened]
    assert ticket[0] != ticket[1]  # a fresh ticket, not the refused one again
    expect(by_testid(page, "error-banner")).to_be_hidden()


def test_a_closed_table_socket_is_opened_again_with_a_fresh_ticket(
    web_client: str, pages: Any
) -> None:
    """A seat's table socket that the server closes (1013: try again) is opened again with a
    new ticket for the same stream, from the last event id seen; the page is live again."""
    ana = Person(web_client)
    match_id = ana.create(2, ["random"])
    path = f"/api/v1/matches/{match_id}/events"
    page = pages.new()
    tickets: list[Any] = []
    opened: list[str] = []
    page.on(
        "request",
        # The match stream's tickets (the page's own /me/events stream asks for its own).
        lambda r: tickets.append(r.post_data_json)
        if r.url.endswith("/stream-ticket") and r.post_data_json != {"path": "/api/v1/me/events"}
        else None,
    )

    def close_the_first(route: WebSocketRoute) -> None:
        opened.append(route.url)
        server = route.connect_to_server()
        if len(opened) > 1:
            return

        def first_event_then_close(message: str | bytes) -> None:
            route.send(message)
            server.close()
            route.close(code=1013, reason="try again")

        server.on_message(first_event_then_close)

    page.route_web_socket(re.compile(re.escape(path) + r"\?"), close_the_first)
    sign_in(page, web_client, ana, route=f"#/match/{match_id}")
    expect(by_testid(page, "table")).to_have_attribute("data-role", "seat")
    status = by_testid(page, "connection-status")
    expect(status).to_have_attribute("data-state", "live", timeout=20_000)
    for _ in range(100):  # the first socket was live a moment, until it was closed
        if len(opened) == 2:
            break
        page.wait_for_timeout(100)
    expect(status).to_have_attribute("data-state", "live", timeout=20_000)
    assert len(opened) == 2 and tickets == [{"path": path}, {"path": path}], (opened, tickets)
    queries = [parse_qs(urlparse(url).query) for url in opened]
    assert queries[0]["ticket"] != queries[1]["ticket"]
    assert "last_event_id" in queries[1]  # resumed after what it had seen
    expect(by_testid(page, "error-banner")).to_be_hidden()
