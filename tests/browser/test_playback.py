"""Every move is seen: the moves of the bots are played out one by one on the table (the card
travels from the seat to the pile), so the table's `data-version` takes every version of the
match from the first shown to the last, none skipped, and the move log grows with it; with
`prefers-reduced-motion` nothing travels, each version is still shown."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .harness import Person, by_testid, move_by_click, play_to_end, sign_in, wait_synced

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

# Every value the table's data-version takes, in order. Several changes may come before the
# observer is called (frames shown at once): each change's value is the next record's old value,
# the last one's is the value now. The log's last entry is read for the value now only.
RECORD = """() => {
  const table = document.querySelector('[data-testid=table]');
  window.__versions = [table.dataset.version];
  window.__logs = [];
  window.__flights = 0;
  new MutationObserver((records) => {
    const changes = records.filter((r) => r.attributeName === 'data-version');
    if (!changes.length) return;
    for (const r of changes.slice(1)) window.__versions.push(r.oldValue);
    const now = table.getAttribute('data-version');
    window.__versions.push(now);
    const entries = document.querySelectorAll('[data-testid=move-log-entry]');
    const last = entries.length ? Number(entries[entries.length - 1].dataset.seq) : 0;
    window.__logs.push([Number(now), last]);
  }).observe(table, {
    attributes: true, attributeOldValue: true, attributeFilter: ['data-version'],
  });
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.dataset && n.dataset.testid === 'flying-card') window.__flights += 1;
    }
  }).observe(document.body, { childList: true });
}"""


def test_each_version_is_shown_while_a_person_plays_two_bots(web_client: str, pages: Any) -> None:
    person = Person(web_client)
    # A pace a person follows (120 ms a move, less while several wait), short hands, two deals:
    # one deal of four cards may end after a handful of bot moves, several of them passes.
    page = pages.new(pace=120)
    match_id = person.create(3, ["greedy", "random"], deals=2, rules={"hand_size": 4})
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-status", "active")
    page.evaluate(RECORD)
    start = int(table.get_attribute("data-version") or -1)

    play_to_end([page])

    final = person.get(f"/api/v1/matches/{match_id}")
    expect(table).to_have_attribute("data-version", str(final["version"]))
    versions = page.evaluate("window.__versions")
    shown = [int(v) for v in versions]
    # Each version once, in order: from the first shown to the match's last, none skipped.
    deduped = [v for i, v in enumerate(shown) if i == 0 or v != shown[i - 1]]
    assert deduped == list(range(start, final["version"] + 1)), deduped
    # The bots' cards travelled, and the log moved with the table: at each bot's move shown,
    # that move is the log's last entry (never one ahead).
    assert page.evaluate("window.__flights") > 3
    moves = {m["version"]: m for m in person.get(f"/api/v1/matches/{match_id}/moves")}
    by_bot = 0
    for shown_version, last_seq in page.evaluate("window.__logs"):
        move = moves.get(shown_version)
        if move is not None and move["by_bot"]:
            assert last_seq == move["seq"], (shown_version, last_seq, move)
            by_bot += 1
    assert by_bot > 3
    assert not [line for line in pages.console if line.startswith("uncaught")], pages.console


def test_with_reduced_motion_nothing_travels_and_no_version_is_skipped(
    web_client: str, pages: Any
) -> None:
    person = Person(web_client)
    page = pages.new(375, 800, pace=400)
    page.emulate_media(reduced_motion="reduce")
    match_id = person.create(3, ["greedy", "greedy"])
    sign_in(page, web_client, person, route=f"#/match/{match_id}")
    table = by_testid(page, "table")
    expect(table).to_have_attribute("data-status", "active")
    page.evaluate(RECORD)
    start = int(table.get_attribute("data-version") or -1)
    for _ in range(4):
        move_by_click(page)
        synced = wait_synced(page, person, match_id)
    # The bots may move again after the last sync: the table is read once it shows the
    # server's version of that moment, so it holds every version up to there and none skipped.
    end = wait_synced(page, person, match_id)["version"]
    assert end >= synced["version"]
    shown = [int(v) for v in page.evaluate("window.__versions")]
    deduped = [v for i, v in enumerate(shown) if i == 0 or v != shown[i - 1]]
    assert deduped == list(range(start, deduped[-1] + 1)), deduped
    assert deduped[-1] >= end, (deduped, end)
    assert page.evaluate("window.__flights") == 0


# The playback itself, on frames of its own: what a skip shows at once and what it leaves.
PLAYBACK = """async () => {
  const { Playback } = await import('/app/views/table-play.js');
  const table = document.createElement('div');
  document.body.append(table);
  const shown = [];
  const started = performance.now();
  const playback = new Playback(table, {
    show: (frame) => shown.push([frame, Math.round(performance.now() - started)]),
    travel: () => null,
  });
  localStorage.setItem('pisyedili.pace', '300');
  playback.push([1, 2, 3]);
  await new Promise((r) => setTimeout(r, 50));
  playback.skip();
  playback.push([4, 5]);
  await new Promise((r) => setTimeout(r, 50));
  const afterSkip = shown.map(([f]) => f);
  playback.push([6], true);
  playback.push([7, 8]);
  await new Promise((r) => setTimeout(r, 1200));
  playback.stop();
  return { afterSkip, shown };
}"""


def test_a_skip_shows_at_once_only_the_frames_waiting_then(web_client: str, pages: Any) -> None:
    page = pages.new()
    page.goto(web_client)
    result = page.evaluate(PLAYBACK)
    # 1 was on screen, 2 and 3 waiting: the skip showed them at once; 4, pushed after it, too
    # soon after to have waited its turn? No: it is shown as the next frame, then 5 waits.
    # 1 was on screen and 2, 3 waiting: the skip showed those two at once, and 4, pushed after
    # it, is shown next and has its time: 5 waited it (pace 300 ms).
    assert result["afterSkip"] == [1, 2, 3, 4], result
    assert [frame for frame, _ in result["shown"]] == [1, 2, 3, 4, 5, 6, 7, 8], result
    times = dict((frame, ms) for frame, ms in result["shown"])
    assert times[5] - times[4] >= 200, result
    # 6 was pushed to be shown at once (as the page's own move is): 5, waiting then, and 6 were
    # shown without a wait; 7, pushed after, was next and had its time before 8.
    assert times[6] - times[5] < 100 and times[7] - times[6] < 100, result
    assert times[8] - times[7] >= 200, result
