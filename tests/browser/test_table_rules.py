"""A table's rules told to its players: the lobby names each open table's rule set (a preset's
name, or "Custom" and what it changes), and the table has a "Rules" disclosure with every
option, those that differ from the classic rules first and marked; in Turkish too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .harness import Person, by_testid, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def test_the_lobby_and_the_table_tell_the_tables_rules(web_client: str, pages: Any) -> None:
    host, guest = Person(web_client), Person(web_client)
    presets = {p["name"]: p["rules"] for p in host.get("/api/v1/rules/presets")}
    doubling = host.create(2, [], rules=presets["doubling"])
    custom = host.create(2, [], rules={"hand_size": 5, "ace_mode": "skip_next"})

    page = pages.new(1280, 900)
    sign_in(page, web_client, guest)
    rows = {
        match: by_testid(page, "lobby-match").and_(page.locator(f'[data-match-id="{match}"]'))
        for match in (doubling, custom)
    }
    told = rows[doubling].locator('[data-testid="lobby-rules"]')
    expect(told).to_have_attribute("data-preset", "doubling")
    expect(told).to_contain_text("Doubling sevens")
    told = rows[custom].locator('[data-testid="lobby-rules"]')
    expect(told).to_have_attribute("data-preset", "custom")
    expect(told).to_contain_text("Custom")
    expect(told).to_contain_text(re.compile(r"Cards dealt to each: 5"))
    expect(told).to_contain_text("skips the next player, as an 8")

    rows[custom].locator('[data-testid="join-button"]').click()
    page.wait_for_url(re.compile(f"#/match/{custom}$"))
    rules = by_testid(page, "table-rules")
    expect(rules).to_have_attribute("data-preset", "custom")
    rules.locator("summary").click()
    expect(by_testid(page, "table-rule-hand_size")).to_have_text("5")
    expect(by_testid(page, "table-rule-hand_size")).to_have_attribute("data-changed", "true")
    expect(by_testid(page, "table-rule-opening")).to_have_attribute("data-changed", "false")
    # The changed options come first.
    names = rules.locator("dd").evaluate_all("ds => ds.map(d => d.dataset.changed)")
    assert names[:2] == ["true", "true"] and "true" not in names[2:], names
    pages.shot(page, "table-rules-1280")

    # In Turkish, on a phone, at the doubling table.
    turkish = pages.new(375, 800, locale="tr-TR")
    sign_in(turkish, web_client, host, route=f"#/match/{doubling}")
    rules = by_testid(turkish, "table-rules")
    expect(rules.locator("summary")).to_have_text("Kurallar: Katlanan yediler")
    rules.locator("summary").click()
    expect(rules).to_contain_text("Zincirdeki her yedi cezayı ikiye katlar")
    expect(by_testid(turkish, "table-rule-seven_chain_growth")).to_have_attribute(
        "data-changed", "true"
    )
    pages.shot(turkish, "table-rules-375-tr")
    assert not pages.console, pages.console
