"""Error messages follow Accept-Language (English by default, Turkish `tr`); the codes never
change; the committed catalog is compiled from its .po and translates every default message."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pisyedili_api.errors import ERROR_CODES, LITERAL_MESSAGES
from tests.helpers import create_match

LOCALE = Path(__file__).resolve().parent.parent / "pisyedili_api" / "locale"
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


def test_every_message_of_the_errors_has_a_turkish_translation():
    catalog = _catalog()
    wanted = {str(message) for _, message in ERROR_CODES.values()} | set(LITERAL_MESSAGES)
    translated = {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}
    assert wanted - set(translated) == set()
    assert all(translated[m] != m for m in wanted)


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
