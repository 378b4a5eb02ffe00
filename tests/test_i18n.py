"""Error messages follow Accept-Language (English by default, Turkish `tr`); the codes never
change; the committed catalog is compiled from its .po and translates every message the source
holds: the defaults, the literal and templated messages of the services, the engine's
templates (found here by Babel's extractor, as `pybabel extract` would)."""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.utils import translation

from pisyedili_api.errors import ERROR_CODES, LITERAL_MESSAGES
from tests.helpers import create_match

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "pisyedili_api" / "locale"
PO = LOCALE / "tr" / "LC_MESSAGES" / "django.po"
MO = LOCALE / "tr" / "LC_MESSAGES" / "django.mo"


def _catalog():
    with PO.open("rb") as po:
        return read_po(po, locale="tr")


def test_the_committed_mo_is_the_po_compiled():
    """`pybabel compile -d pisyedili_api/locale -D django` after every change of the .po."""
    compiled = io.BytesIO()
    write_mo(compiled, _catalog())
    assert compiled.getvalue() == MO.read_bytes()


APPS = ("games", "players", "tournaments", "pisyedili_api", "live")
# The calls that take a message: gettext and its kin, and the error types and helpers whose
# argument (by position) is a message they look up in the catalog themselves.
KEYWORDS = {
    "_": None,
    "gettext": None,
    "gettext_lazy": None,
    "gettext_noop": None,
    "ApplicationError": (2,),
    "invalid": (2,),
    "_caller": (2,),
    "InvalidMove": None,
    "IllegalMove": None,
    "RulesError": (3,),
    "ParseError": None,
    "AuthenticationFailed": None,
    "NotAuthenticated": None,
    "PermissionDenied": None,
    "NotFound": None,
}
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[-#0 +]*\d*[sdrX]")


def _source_messages() -> set[str]:
    found = set()
    for app in APPS:
        for _, _, message, _, _ in extract_from_dir(
            ROOT / app,
            method_map=[("**/migrations/**", "ignore"), ("**.py", "python")],
            keywords=KEYWORDS,
        ):
            # A bare identifier is a field name the extractor met in a detail, not a message.
            if isinstance(message, str) and not re.fullmatch(r"[a-z_]+", message):
                found.add(message)
    return found


def test_every_message_in_the_source_has_a_turkish_translation():
    catalog = _catalog()
    source = _source_messages()
    # The extractor does find them: the defaults, a service's template, an engine template.
    assert "seats must be %(low)d..%(high)d (rule option max_players)" in source
    assert "%(action)s takes no card" in source
    with translation.override("en"):  # the defaults are lazy: their English text, the msgids
        defaults = {str(message) for _, message in ERROR_CODES.values()}
    wanted = defaults | set(LITERAL_MESSAGES) | source
    translated = {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}
    assert sorted(wanted - set(translated)) == []
    assert [m for m in wanted if translated[m] == m] == []
    # A translation keeps every named slot of its message, so formatting it cannot fail.
    assert [
        m
        for m in wanted
        if sorted(PLACEHOLDER.findall(m)) != sorted(PLACEHOLDER.findall(translated[m]))
    ] == []


# What makes an error a client reads (a ValueError of a bug is for the log, in English).
API_ERRORS = {
    *KEYWORDS,
    "ValidationError",
    "NotAuthenticated",
    "AuthenticationFailed",
    "PermissionDenied",
    "NotFound",
    "Throttled",
    "invalid_cursor",
    "error_body",
}


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _english_in_f_strings(tree: ast.AST) -> list[int]:
    """Lines of f-strings with words in them given to an API error or assigned to `message`:
    a message the catalog can never hold (an f-string of names and punctuation, "field:
    message", is fine)."""
    lines = []
    for node in ast.walk(tree):
        roots: list[ast.AST] = []
        if isinstance(node, ast.Call) and _called(node) in API_ERRORS:
            roots = [node]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "message" for t in node.targets
        ):
            roots = [node.value]
        for root in roots:
            for inner in ast.walk(root):
                if isinstance(inner, ast.JoinedStr) and any(
                    isinstance(part, ast.Constant) and re.search(r"[A-Za-z]{2}", part.value)
                    for part in inner.values
                ):
                    lines.append(inner.lineno)
    return lines


def test_no_message_is_an_f_string_with_words():
    offenders = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            lines = _english_in_f_strings(ast.parse(path.read_text(), filename=str(path)))
            if lines:
                offenders[str(path.relative_to(ROOT))] = lines
    assert offenders == {}


def test_the_f_string_check_finds_one():
    tree = ast.parse('def f(n):\n    raise ApplicationError("invalid", f"at most {n} seats")\n')
    assert _english_in_f_strings(ast.parse('raise ValueError(f"seat {n} is not here")')) == []
    assert _english_in_f_strings(tree) == [2]
    assert _english_in_f_strings(ast.parse('message = f"{field}: {inner}"')) == []


@pytest.mark.django_db
def test_messages_follow_accept_language_and_codes_do_not(api, make_player, client_for):
    missing = "/api/v1/matches/00000000-0000-0000-0000-000000000000"
    english = api.get(missing).json()
    assert english == {"code": "not_found", "message": "No such match."}
    turkish = api.get(missing, HTTP_ACCEPT_LANGUAGE="tr-TR,tr;q=0.9,en;q=0.5").json()
    assert turkish == {"code": "not_found", "message": "Böyle bir maç yok."}
    assert api.get("/api/v1/nowhere", HTTP_ACCEPT_LANGUAGE="tr").json() == {
        "code": "not_found",
        "message": "Böyle bir nesne yok.",
    }
    # A language the API does not speak: English.
    assert api.get(missing, HTTP_ACCEPT_LANGUAGE="de").json() == english

    _, token = make_player()
    client = client_for(token)
    refused = client.post(
        "/api/v1/matches", {"bot": ["greedy"]}, format="json", HTTP_ACCEPT_LANGUAGE="tr"
    ).json()
    assert refused["code"] == "invalid"
    assert refused["message"] == "bot: Bilinmeyen alan."
    assert refused["detail"] == {"bot": ["Bilinmeyen alan."]}
    # DRF's own field messages come in Turkish too (its catalog).
    refused = client.post("/api/v1/matches", {}, format="json", HTTP_ACCEPT_LANGUAGE="tr").json()
    assert refused["code"] == "invalid" and refused["detail"]["seats"] != [
        "This field is required."
    ]
    match = create_match(client, seats=3)
    refused = client.post(f"/api/v1/matches/{match['id']}/rematch", HTTP_ACCEPT_LANGUAGE="tr")
    assert refused.status_code == 409
    assert refused.json() == {"code": "match_not_finished", "message": "Maç bitmedi."}
    refused = client.post(f"/api/v1/matches/{match['id']}/rematch").json()
    assert refused == {"code": "match_not_finished", "message": "The match is not finished."}
    # The language of one request does not stick to the next.
    assert api.get(missing).json() == english


@pytest.mark.django_db
def test_a_null_body_and_a_refused_stream_ticket_are_said_in_turkish(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    refused = client.generic(
        "PATCH", "/api/v1/players/me", "null", "application/json", HTTP_ACCEPT_LANGUAGE="tr"
    ).json()
    assert refused == {
        "code": "invalid",
        "message": "Gövde bir JSON nesnesi olmalı.",
        "detail": {"non_field_errors": ["Gövde bir JSON nesnesi olmalı."]},
    }, refused
    # A list or a number where the body's object goes: the same words, not Python's.
    for body in ("[1]", "3", '"x"'):
        refused = client.generic(
            "POST", "/api/v1/matches", body, "application/json", HTTP_ACCEPT_LANGUAGE="tr"
        )
        assert refused.status_code == 400, refused.content
        assert refused.json()["message"] == "Gövde bir JSON nesnesi olmalı.", refused.content
    refused = client.post(
        "/api/v1/auth/stream-ticket", {"path": "/x"}, format="json", HTTP_ACCEPT_LANGUAGE="tr"
    ).json()
    assert refused["detail"] == {"path": ["Bir olay akışının yolu değil."]}, refused
    opened = client.get("/api/v1/me/events?ticket=nonsense", HTTP_ACCEPT_LANGUAGE="tr")
    assert opened.status_code == 401
    assert opened.json()["message"] == "Geçersiz akış bileti.", opened.content


@pytest.mark.django_db
def test_messages_with_numbers_and_the_engines_come_in_turkish(make_player, client_for):
    _, token = make_player()
    client = client_for(token)
    refused = client.post(
        "/api/v1/matches", {"seats": 7}, format="json", HTTP_ACCEPT_LANGUAGE="tr"
    ).json()
    assert refused["code"] == "invalid"
    assert refused["message"] == "seats 2..6 olmalı (max_players kural seçeneği)"
    assert refused["detail"] == {"seats": [refused["message"]]}
    english = client.post("/api/v1/matches", {"seats": 7}, format="json").json()
    assert english["message"] == "seats must be 2..6 (rule option max_players)"
    # A rule option the engine refuses: its template, translated, then filled.
    refused = client.post(
        "/api/v1/matches",
        {"seats": 2, "rules": {"hand_size": 99}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    ).json()
    assert refused["code"] == "invalid"
    assert "'hand_size' kural seçeneği" in refused["message"] and "99" in refused["message"]
    assert refused["detail"] == {"rules": {"hand_size": [refused["message"]]}}
    # A malformed move (the engine's InvalidMove) at a started match.
    match = create_match(client, seats=2, bots=["random"])
    refused = client.post(
        f"/api/v1/matches/{match['id']}/moves",
        {"action": "draw", "card": "AS", "version": match["version"]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="tr",
    ).json()
    assert refused == {
        "code": "invalid_move",
        "message": "draw kart almaz",
        "detail": {"card": ["draw kart almaz"]},
    }
