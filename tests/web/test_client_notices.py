"""What a Web Push notice shows as a browser notification (web/app/notices.js, the service
worker's words, run by Node.js here as the worker runs it): the kind's words in the browser's
language, the moment a turn's clock plays it or a challenge expires in the device's own time
zone and the browser's own way of writing it, and where a click leads."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.web.node_tools import WEB, node

pytestmark = pytest.mark.timeout(120)

_SCRIPT = """
import { noticeShown } from "./app/notices.js";
const [notices, languages] = JSON.parse(process.argv[1]);
console.log(JSON.stringify(notices.map((n) => noticeShown(n, languages))));
"""

AT = "2026-12-07T20:05:00Z"  # 23:05 in Istanbul


def _shown(notices: list[dict[str, object]], languages: list[str]) -> list[dict[str, str]]:
    run = subprocess.run(
        [node(), "--input-type=module", "-e", _SCRIPT, json.dumps([notices, languages])],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TZ": "Europe/Istanbul"},
    )
    assert run.returncode == 0, run.stderr
    shown: list[dict[str, str]] = json.loads(run.stdout)
    return shown


def test_a_turn_s_notice_says_when_its_clock_runs_out_in_the_device_s_time() -> None:
    timed = {"type": "your_turn", "match": "m1", "turn_deadline": AT, "text": "Your turn"}
    untimed = {**timed, "turn_deadline": None}
    challenge = {"type": "challenge", "match": "m2", "expires_at": AT, "text": "…"}
    en = _shown([timed, untimed, challenge], ["en-US", "en"])
    assert (
        en[0]["body"] == "Your turn: a match waits for your move. Your clock runs out at 11:05 PM."
    )
    assert en[1]["body"] == "Your turn: a match waits for your move."
    assert en[2]["body"] == "You are challenged to a private table. It expires at 11:05 PM."
    assert [s["url"] for s in en] == ["/#/match/m1", "/#/match/m1", "/#/match/m2"]
    tr = _shown([timed, challenge], ["tr-TR", "en"])
    assert tr[0]["body"] == "Sıra sende: bir maç hamleni bekliyor. Son hamle saati: 23:05."
    assert tr[1]["body"] == "Özel bir masaya davet edildin. Son yanıt saati: 23:05."
    assert _shown([timed], ["en-GB"])[0]["body"].endswith("runs out at 23:05.")


def test_a_notice_of_another_kind_or_without_a_known_kind_still_shows() -> None:
    round_ = {"type": "tournament_round", "tournament": "t1", "round": 2, "text": "…"}
    odd = {"type": "from_a_newer_server", "match": "m3", "text": "Something new"}
    shown = _shown([round_, odd], [])
    assert shown[0] == {
        "title": "Pis Yedili",
        "body": "Round 2 of your tournament is dealt.",
        "url": "/#/tournaments/t1",
        "tag": "tournament-t1",
    }
    assert shown[1]["body"] == "Something new" and shown[1]["url"] == "/#/match/m3"
