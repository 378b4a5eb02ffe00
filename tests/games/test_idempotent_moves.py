"""Keyed moves (Idempotency-Key, docs/api.md) in every kind of match: the first answer is 2xx, a
replay is byte-for-byte the same answer, and nothing is applied twice."""

from __future__ import annotations

import pytest
from django.db import connection

from games import engine
from games.engine.rules import _BOOLEANS, _CHOICES
from games.models import IdempotencyRecord, Move
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db


def _rule_variants() -> list[dict]:
    """Every rule option with every value other than its default."""
    defaults = engine.Rules().to_json()
    variants: list[dict] = []
    for name, choices in _CHOICES.items():
        variants += [{name: value} for value in choices if value != defaults[name]]
    variants += [{name: not defaults[name]} for name in _BOOLEANS]
    variants += [
        {"max_actions": 10},
        {"hand_size": 1},
        {"hand_size": 12, "max_players": 4},
        {"deals_per_match": 1},
    ]
    return variants


# Every option of the create body (seats, bots, deals, rules, turn_seconds), each at least once.
CREATE_BODIES = [
    {"seats": 2},
    {"seats": 2, "turn_seconds": 300},
    {"seats": 2, "turn_seconds": 1},
    {"seats": 2, "turn_seconds": None},
    {"seats": 2, "deals": 1},
    {"seats": 2, "deals": 20},
    {"seats": 3, "bots": ["greedy"]},
    {"seats": 4, "bots": ["random", "greedy"], "turn_seconds": 60, "deals": 2},
    {"seats": 7, "bots": ["random"] * 5, "rules": {"max_players": 7}},
    *({"seats": 2, "rules": rules} for rules in _rule_variants()),
    *({"seats": 2, "rules": rules, "turn_seconds": 300} for rules in _rule_variants()),
]


def _label(body: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in body.items())


@pytest.mark.parametrize("body", CREATE_BODIES, ids=[_label(b) for b in CREATE_BODIES])
def test_keyed_move_replays_identically_in_every_kind_of_match(make_player, client_for, body):
    (ana, ta), (bob, tb) = make_player(), make_player()
    clients = {str(ana.id): client_for(ta), str(bob.id): client_for(tb)}
    match = create_match(clients[str(ana.id)], **body)
    if match["status"] == "waiting":
        joined = clients[str(bob.id)].post(f"/api/v1/matches/{match['id']}/join")
        assert joined.status_code == 200, joined.content
        match = joined.json()
    assert match["status"] == "active"
    # Bots have played (in-process) up to the first person on turn.
    view = state(clients[str(ana.id)], match["id"])
    holder = match["seats"][view["turn"]]["player"]
    assert not holder["is_bot"]
    client = clients[holder["id"]]
    view = state(client, match["id"])
    moves_before = Move.objects.filter(match_id=match["id"], player_id=holder["id"]).count()

    first = post_move(
        client, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="key-1"
    )
    assert 200 <= first.status_code < 300, first.content
    again = post_move(
        client, match["id"], view["legal_moves"][0], view["version"], HTTP_IDEMPOTENCY_KEY="key-1"
    )
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert Move.objects.filter(match_id=match["id"], player_id=holder["id"]).count() == (
        moves_before + 1
    )
    assert IdempotencyRecord.objects.filter(match_id=match["id"]).count() == 1


def _one_table(make_player, client_for):
    """A two-person match just started: ana (seat 0, the opener), her client, the match and her
    view of it."""
    (ana, ta), (_, tb) = make_player(), make_player()
    client = client_for(ta)
    match = create_match(client)
    assert client_for(tb).post(f"/api/v1/matches/{match['id']}/join").status_code == 200
    return ana, client, match, state(client, match["id"])


def test_a_retry_that_writes_an_absent_field_as_null_replays(make_player, client_for):
    """A client that rebuilds the body on retry from a typed model sends `"suit": null` (and
    `"card": null` for a draw) where the first request left them out: the same move, the first
    answer again; a really other body is still refused."""
    ana, client, match, view = _one_table(make_player, client_for)
    move = view["legal_moves"][0]
    first = post_move(client, match["id"], move, view["version"], HTTP_IDEMPOTENCY_KEY="k")
    assert first.status_code == 200, first.content
    rebuilt = {"card": None, "suit": None, **move}
    again = post_move(client, match["id"], rebuilt, view["version"], HTTP_IDEMPOTENCY_KEY="k")
    assert again.status_code == 200 and again.content == first.content
    other = post_move(client, match["id"], move, view["version"] + 1, HTTP_IDEMPOTENCY_KEY="k")
    assert other.status_code == 422 and other.json()["code"] == "idempotency_mismatch"
    assert Move.objects.filter(match_id=match["id"]).count() == 1


def _two_tables(make_player, client_for):
    """Two matches where the same player (ana, seat 1) is on turn in both."""
    (ana, ta), (_, tb), (_, tc) = make_player(), make_player(), make_player()
    ana_client = client_for(ta)
    tables = []
    for other in (client_for(tb), client_for(tc)):
        match = create_match(other)
        assert ana_client.post(f"/api/v1/matches/{match['id']}/join").status_code == 200
        view = state(other, match["id"])
        while view["turn"] == 0:  # seat 0 opens; it plays on until seat 1 is on turn
            view = post_move(other, match["id"], view["legal_moves"][0], view["version"]).json()
        tables.append(match["id"])
    return ana, ana_client, tables


def test_one_key_in_two_matches_is_two_moves(make_player, client_for):
    """The key is scoped per (player, match): a client may number its keys per match."""
    ana, client, tables = _two_tables(make_player, client_for)
    answers = []
    for mid in tables:
        view = state(client, mid)
        first = post_move(
            client, mid, {"action": "draw"}, view["version"], HTTP_IDEMPOTENCY_KEY="move-1"
        )
        again = post_move(
            client, mid, {"action": "draw"}, view["version"], HTTP_IDEMPOTENCY_KEY="move-1"
        )
        assert first.status_code == again.status_code == 200, first.content
        assert first.json()["match"] == mid and again.content == first.content
        answers.append(first.json())
    for mid in tables:
        assert Move.objects.filter(match_id=mid, player_id=ana.id).count() == 1
    assert IdempotencyRecord.objects.filter(player_id=ana.id, key="move-1").count() == 2


def _insert_record_behind_the_lock(player_id, match_id, key, request_hash):
    """Run the next statement that writes an idempotency record only after another connection
    has committed a record of the same (player, match, key): the race the unique constraint
    decides. Through the service it cannot happen on PostgreSQL (the record's foreign key check
    waits for the match row lock); this writer skips that check (session_replication_role), as
    a backend without row locks or a writer that does not take the lock would."""
    import threading

    from django.db import transaction

    def insert():
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL session_replication_role = replica")
                IdempotencyRecord.objects.create(
                    player_id=player_id,
                    match_id=match_id,
                    key=key,
                    request_hash=request_hash,
                    response='{"answer":"the winner\'s"}',
                )
        finally:
            connection.close()

    def wrapper(execute, sql, params, many, context):
        if "INSERT" in sql and IdempotencyRecord._meta.db_table in sql:
            other = threading.Thread(target=insert)
            other.start()
            other.join(timeout=10)
            assert not other.is_alive()
        return execute(sql, params, many, context)

    return connection.execute_wrapper(wrapper)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="session_replication_role")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_body", [True, False])
def test_a_key_raced_behind_the_lock_answers_as_the_winner(make_player, client_for, same_body):
    from games.services import request_hash

    ana, client, match, view = _one_table(make_player, client_for)
    move = view["legal_moves"][0]
    body = {**move, "version": view["version"]}
    digest = request_hash(match["id"], body if same_body else {**body, "version": 99})
    with _insert_record_behind_the_lock(ana.id, match["id"], "k", digest):
        raced = post_move(client, match["id"], move, view["version"], HTTP_IDEMPOTENCY_KEY="k")
    if same_body:
        assert raced.status_code == 200 and raced.json() == {"answer": "the winner's"}
    else:
        assert raced.status_code == 422 and raced.json()["code"] == "idempotency_mismatch"
    # The losing request rolled back: nothing of it was applied.
    assert not Move.objects.filter(match_id=match["id"]).exists()
    assert state(client, match["id"]) == view


def test_any_other_integrity_error_is_a_logged_500_that_changes_nothing(
    make_player, client_for, caplog
):
    """Only the named idempotency constraint is a domain answer; a Move row written behind the
    service (seq taken) is a bug to see, not a 409."""
    from django.utils import timezone

    from games.models import Match

    ana, client, match, view = _one_table(make_player, client_for)
    client.raise_request_exception = False
    row = Match.objects.get(id=match["id"])
    Move.objects.create(
        match=row,
        seq=row.move_count + 1,
        deal_id=row.live_deal_id,
        deal_number=1,
        seat=0,
        player=ana,
        action="draw",
        at=timezone.now(),
    )
    for headers in ({}, {"HTTP_IDEMPOTENCY_KEY": "k-500"}):
        caplog.clear()
        r = post_move(client, match["id"], view["legal_moves"][0], view["version"], **headers)
        assert r.status_code == 500 and r.json()["code"] == "server_error", r.content
        assert any("unexpected integrity error" in m for m in caplog.messages)
    assert state(client, match["id"]) == view
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_first_keyed_move_reads_no_record_and_a_used_key_still_answers_first(
    make_player, client_for
):
    """A keyed move reads its (player, match, key) record only where a check after the seat's
    fails or its write trips the record's unique constraint: a first move's only statement on
    the records is the write; a replay reads it and answers the stored text; the key sent
    again with another move at the current version is 422 and applies nothing."""
    from django.test.utils import CaptureQueriesContext

    ana, client, (mid, _) = _two_tables(make_player, client_for)
    table = f'"{IdempotencyRecord._meta.db_table}"'

    def keyed(body: dict, version: int) -> tuple[object, list[str]]:
        with CaptureQueriesContext(connection) as captured:
            answer = post_move(client, mid, body, version, HTTP_IDEMPOTENCY_KEY="key-1")
        return answer, [q["sql"] for q in captured.captured_queries if table in q["sql"]]

    view = state(client, mid)
    first, read = keyed({"action": "draw"}, view["version"])
    assert first.status_code == 200, first.content
    assert len(read) == 1 and "INSERT" in read[0]  # the write: nothing read before it
    again, read = keyed({"action": "draw"}, view["version"])
    assert again.status_code == 200 and again.content == first.content
    assert len(read) == 1 and read[0].lstrip().startswith("SELECT")
    after = state(client, mid)
    assert after["turn"] == 1, after  # the draw leaves ana on turn
    moves = Move.objects.filter(match_id=mid).count()
    other, _read = keyed(after["legal_moves"][0], after["version"])
    assert other.status_code == 422 and other.json()["code"] == "idempotency_mismatch"
    assert Move.objects.filter(match_id=mid).count() == moves
    assert state(client, mid)["version"] == after["version"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the guarded write is PostgreSQL's")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_key", [True, False])
def test_a_move_overtaken_between_its_read_and_its_write_lands_never(
    make_player, client_for, monkeypatch, same_key
):
    """A person's move reads the match without a lock and writes only if the version it read
    is still the match's (docs/architecture.md "A move, end to end"). Here another request of
    the same seat lands between the two: the first request writes nothing and is answered
    under the lock as it would have been after the other one: the other one's stored reply
    for the same key, else 409 `stale_version`. One move is applied."""
    from games.serializers import move_reply
    from games.services import match_apply_move

    ana, client, match, view = _one_table(make_player, client_for)
    move = view["legal_moves"][0]
    overtaken: list[dict] = []
    calls: list[int] = []
    apply = engine.apply

    def overtaking(*args, **kwargs):  # the first call only: the overtaking move's is the second
        calls.append(1)
        if len(calls) == 1:
            overtaken.append(
                match_apply_move(
                    match_id=match["id"],
                    player_id=ana.id,
                    move=engine.Move.from_json(move),
                    version=view["version"],
                    reply=move_reply,
                    idempotency_key="k" if same_key else "other",
                    request_body={**move, "version": view["version"]},
                )
            )
        return apply(*args, **kwargs)

    monkeypatch.setattr(engine, "apply", overtaking)
    answer = post_move(client, match["id"], move, view["version"], HTTP_IDEMPOTENCY_KEY="k")
    monkeypatch.undo()
    assert len(overtaken) == 1 and overtaken[0]["version"] == view["version"] + 1
    if same_key:
        assert answer.status_code == 200, answer.content
        assert answer.json() == overtaken[0]  # the stored first answer, nothing applied again
    else:
        assert answer.status_code == 409 and answer.json()["code"] == "stale_version"
        assert answer.json()["detail"] == {"current_version": view["version"] + 1}
    assert Move.objects.filter(match_id=match["id"]).count() == 1
    after = state(client, match["id"])
    assert after["version"] == view["version"] + 1
    assert IdempotencyRecord.objects.filter(match_id=match["id"]).count() == 1
