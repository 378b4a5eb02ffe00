"""Accounts against PostgreSQL and the Redis cache: reserved and case-insensitive usernames, bot
identity, display names, password validators, throttles, login lockout, hashed tokens with
idle expiry, rotation and logout."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from players.models import ApiToken, Player
from players.services import bot_player_get_or_create
from tests.helpers import create_match, post_move, state

pytestmark = pytest.mark.django_db

PASSWORD = "s3cret-pass"


def register(api, username, password=PASSWORD, **extra):
    body = {"username": username, "password": password, **extra}
    return api.post("/api/v1/auth/register", body, format="json")


def login(api, username, password=PASSWORD, **extra):
    body = {"username": username, "password": password}
    return api.post("/api/v1/auth/token", body, format="json", **extra)


def me(api, key):
    return api.get("/api/v1/players/me", HTTP_AUTHORIZATION=f"Token {key}")


@pytest.fixture
def loose_throttles(monkeypatch):
    """Throttle rates out of the way, for tests of something else on the auth routes."""
    rates = {"auth": "1000/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


# ---- bot identity and reserved names ----


@pytest.mark.parametrize(
    "username", ["bot-random-2", "BOT-greedy-1", "Bot_ismcts_3", "b0t-random-1", "bot", "bot.x"]
)
def test_bot_like_usernames_are_refused_at_registration(api, username):
    r = register(api, username)
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert "username" in r.json()["detail"]
    assert not Player.objects.filter(username__iexact=username).exists()


@pytest.mark.parametrize("username", ["bottle", "robot-1", "abbot"])
def test_names_that_only_contain_bot_are_fine(api, username):
    assert register(api, username).status_code == 201


def test_a_person_with_a_bot_name_is_never_seated_as_the_bot(make_player, client_for):
    # A row from before names were reserved: a person holding `bot-random-2` (and `-1`, `-3`).
    impostors = [
        Player.objects.create(username=f"bot-random-{n}", display_name="not a bot")
        for n in (1, 2, 3)
    ]
    _, token = make_player()
    match = create_match(client_for(token), seats=4, bots=["random", "random", "random"])
    seated = [seat["player"] for seat in match["seats"][1:]]
    assert all(p["is_bot"] for p in seated), seated
    assert {p["id"] for p in seated}.isdisjoint({str(p.id) for p in impostors})
    bots = Player.objects.filter(id__in=[p["id"] for p in seated])
    assert sorted(b.bot_ordinal for b in bots) == [1, 2, 3]
    assert all(b.is_bot and b.strategy == "random" and b.user_id is None for b in bots)
    # The bots took names no one can register, and the people kept theirs.
    assert {b.username for b in bots} == {"bot:random:1", "bot:random:2", "bot:random:3"}
    assert all(not p.is_bot for p in Player.objects.filter(id__in=[i.id for i in impostors]))


def test_bot_rows_are_found_by_strategy_and_ordinal():
    first = bot_player_get_or_create(strategy="greedy", ordinal=4)
    assert first.username == "bot-greedy-4" and first.bot_ordinal == 4 and first.is_bot
    # Renaming the row changes nothing: the identity is (strategy, bot_ordinal).
    Player.objects.filter(id=first.id).update(username="renamed")
    assert bot_player_get_or_create(strategy="greedy", ordinal=4).id == first.id
    assert bot_player_get_or_create(strategy="greedy", ordinal=5).id != first.id
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(
            username="x", display_name="x", is_bot=True, strategy="greedy", bot_ordinal=4
        )


# ---- usernames in any letter case ----


def test_usernames_are_unique_in_any_letter_case(api, make_player):
    make_player("Gina")
    for name in ("gina", "GINA", "gInA"):
        r = register(api, name)
        assert r.status_code == 400 and r.json()["code"] == "invalid"
        assert r.json()["detail"]["username"] == ["That username is taken."]
    assert Player.objects.filter(username__iexact="gina").count() == 1


def test_a_staff_accounts_name_is_taken_in_any_letter_case(api):
    """A sign-in with no player (a staff account of `createsuperuser`) holds its name too: a
    player registering it in another letter case would never sign in (the login finds the
    staff account's spelling first)."""
    get_user_model().objects.create_superuser("staffboss", password="staff-pass-123")
    for name in ("staffboss", "StaffBoss"):
        r = register(api, name)
        assert r.status_code == 400 and r.json()["code"] == "invalid", r.content
        assert r.json()["detail"]["username"] == ["That username is taken."]
    assert not Player.objects.filter(username__iexact="staffboss").exists()


def test_a_player_signs_in_where_a_staff_account_differs_only_in_case(api):
    """Names made before they were unique across players and staff: the login goes to the
    player's account, whichever spelling is typed."""
    get_user_model().objects.create_superuser("staffboss", password="staff-pass-123")
    assert register(api, "legacy").status_code == 201
    get_user_model().objects.filter(username="legacy").update(username="StaffBoss")
    Player.objects.filter(username="legacy").update(username="StaffBoss")
    for typed in ("StaffBoss", "staffboss", "STAFFBOSS"):
        assert login(api, typed).status_code == 200, typed


def test_the_database_refuses_a_username_differing_only_in_case(make_player):
    make_player("Hugo")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(username="hUGO", display_name="x")


# ---- a username's characters and length: each problem said once ----

TOO_LONG = "Ensure this field has no more than 150 characters."
CHARACTERS = (
    "A username may hold only the letters A-Z and a-z, the digits 0-9 and the characters"
    " _ . @ + -, with no spaces."
)
CHARACTERS_TR = (
    "Kullanıcı adında yalnızca A-Z ve a-z harfleri (ç, ğ, ı, İ, ö, ş, ü olmadan), 0-9 rakamları"
    " ve _ . @ + - karakterleri bulunabilir; boşluk olamaz."
)


@pytest.mark.parametrize(
    ("username", "reasons"),
    [
        ("a" * 151, [TOO_LONG]),  # good characters: only the length is wrong
        ("a" * 300, [TOO_LONG]),
        ("bad name!!", [CHARACTERS]),
        ("şule", [CHARACTERS]),
        ("bad name!!" * 30, [TOO_LONG, CHARACTERS]),  # two problems, each said once
    ],
)
def test_a_refused_username_says_each_problem_once(api, username, reasons):
    r = register(api, username)
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert r.json()["detail"] == {"username": reasons}
    assert r.json()["message"] == f"username: {reasons[0]}"
    assert not get_user_model().objects.filter(username=username).exists()


def test_a_username_refused_for_its_characters_names_them_in_turkish(api):
    body = {"username": "bad name!!", "password": PASSWORD}
    r = api.post("/api/v1/auth/register", body, format="json", HTTP_ACCEPT_LANGUAGE="tr")
    assert r.status_code == 400
    assert r.json() == {
        "code": "invalid",
        "message": f"username: {CHARACTERS_TR}",
        "detail": {"username": [CHARACTERS_TR]},
    }


def test_a_username_of_150_allowed_characters_is_fine(api):
    username = "a.b_c@d+e-F9" * 12 + "x" * 6
    assert len(username) == 150
    r = register(api, username)
    assert r.status_code == 201 and r.json()["username"] == username


# ---- display names ----


@pytest.mark.parametrize(
    "display_name",
    [
        "x" * 41,
        "bell\x07",
        "new\nline",
        "tab\there",
        "\u202eevil",
        "zero\u200bwidth",
        "   ",
        "hidden\U000e0061\U000e0062",  # tag characters outside an emoji tag sequence
        "\U0001f3f4\U000e0067\U000e0062",  # a tag sequence that is never cancelled
    ],
)
def test_display_names_are_bounded_plain_text(api, display_name):
    r = register(api, "ivy", display_name=display_name)
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert "display_name" in r.json()["detail"]
    assert not Player.objects.filter(username="ivy").exists()


SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


@pytest.mark.parametrize(
    "display_name",
    [
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with its non-joiner
        f"Ewan {SCOTLAND}",  # a subdivision's flag: an emoji tag sequence
        "Aile \U0001f468\u200d\U0001f469\u200d\U0001f467",  # a zero-width-joiner sequence
    ],
)
def test_the_joiners_and_emoji_tag_sequences_of_real_names_are_kept(api, display_name):
    r = register(api, "lea", display_name=display_name)
    assert r.status_code == 201, r.content
    assert r.json()["display_name"] == display_name


def test_a_name_loses_the_blanks_at_its_ends_and_keeps_those_inside(api):
    r = register(api, "lou", display_name="  Ana  Lou \t")
    assert r.status_code == 201, r.content
    assert r.json()["display_name"] == "Ana  Lou"


def test_a_long_username_gives_a_bounded_default_display_name(api):
    r = register(api, "j" * 60)
    assert r.status_code == 201 and r.json()["display_name"] == "j" * 40


def test_html_in_a_display_name_is_stored_as_text_and_escaped_in_the_admin(api):
    html = '<script>alert("x")</script>'
    r = register(api, "kim", display_name=html)
    assert r.status_code == 201 and r.json()["display_name"] == html
    player = Player.objects.get(username="kim")
    assert player.display_name == html
    assert api.get(f"/api/v1/players/{player.id}").json()["display_name"] == html
    admin = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    client = Client()
    client.force_login(admin)
    for url in ("/admin/players/player/", f"/admin/players/player/{player.id}/change/"):
        page = client.get(url).content.decode()
        assert "<script>alert" not in page, url
        assert "&lt;script&gt;alert" in page, url


# ---- passwords ----


@pytest.mark.parametrize(
    "password",
    ["123456", "      ", "        ", "short1!", "password", "12345678", "lena-smith-x"],
)
def test_weak_passwords_are_refused_with_the_validators_messages(api, password):
    r = register(api, "lena-smith-x", password=password)
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    messages = r.json()["detail"]["password"]
    assert messages and r.json()["message"] == messages[0]
    assert not Player.objects.filter(username="lena-smith-x").exists()


# ---- throttles in the shared cache ----


def test_throttles_use_the_redis_cache_when_redis_is_configured():
    from django.core.cache import caches

    broker = settings.CELERY_BROKER_URL
    expected = "RedisCache" if broker.startswith("redis://") else "LocMemCache"
    assert type(caches["default"]).__name__ == expected


@pytest.mark.skipif(
    not settings.CELERY_BROKER_URL.startswith("redis://"), reason="needs the Redis stack"
)
def test_throttle_counts_are_in_redis_where_every_process_sees_them(api, monkeypatch):
    import redis

    rates = {"auth": "2/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    login(api, "nobody", "x")
    # Read back with a client of our own: the count is in Redis under this test's prefix.
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    raw = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    keys = [k.decode() for k in raw.scan_iter(match=f"{prefix}:*throttle_auth_*")]
    assert any(k.endswith("throttle_auth_127.0.0.1") for k in keys), keys
    login(api, "nobody", "x")
    assert login(api, "nobody", "x").status_code == 429


@pytest.mark.skipif(
    not settings.CELERY_BROKER_URL.startswith("redis://"), reason="needs the Redis stack"
)
def test_register_and_login_work_while_the_throttle_cache_is_down(api):
    """The throttle cache is a Redis of this test's own, stopped before the requests: the
    throttles count nothing and the routes answer as usual instead of 500 (logged)."""
    from django.test import override_settings

    from tests.backing_services import PrivateRedis

    redis_server = PrivateRedis().start()
    # The configured cache (backend and options) on a Redis that is about to stop.
    cache = {**settings.CACHES["default"], "LOCATION": redis_server.url}
    try:
        with override_settings(CACHES={**settings.CACHES, "default": cache}):
            redis_server.stop()
            made = api.post(
                "/api/v1/auth/register",
                {"username": "cache-down", "password": PASSWORD},
                format="json",
            )
            assert made.status_code == 201, made.content
            assert login(api, "cache-down").status_code == 200
            assert login(api, "cache-down", "wrong-password").status_code == 401
    finally:
        redis_server.stop()


def test_a_forged_x_forwarded_for_does_not_escape_the_throttle(api, monkeypatch):
    rates = {"auth": "3/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    codes = [
        login(api, f"u{i}", "x", HTTP_X_FORWARDED_FOR=f"10.0.{i}.1").status_code for i in range(5)
    ]
    assert codes == [401, 401, 401, 429, 429]


def test_x_forwarded_for_is_used_behind_a_configured_proxy(api, monkeypatch, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    rates = {"auth": "2/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    # The proxy appends the client's address: each client is counted on its own.
    for client in ("10.1.0.1", "10.1.0.2"):
        codes = [
            login(api, "u", "x", HTTP_X_FORWARDED_FOR=f"6.6.6.{n}, {client}").status_code
            for n in range(3)
        ]
        assert codes == [401, 401, 429], client


def test_token_attempts_are_throttled_per_username_across_clients(api, monkeypatch):
    """Any letter case, and the spaces around it that the login trims, are one username."""
    rates = {"auth": "1000/min", "auth_username": "3/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    codes = [
        login(api, ("Mia", "mia", " mia", "mia\t ")[i], "x", REMOTE_ADDR=f"10.2.0.{i}").status_code
        for i in range(4)
    ]
    assert codes == [401, 401, 401, 429]
    assert login(api, "other", "x", REMOTE_ADDR="10.2.0.9").status_code == 401


# ---- lockout after failed logins ----


def test_a_username_is_locked_out_after_repeated_failures(api, make_player, loose_throttles):
    make_player("nora")
    limit = settings.AXES_FAILURE_LIMIT
    codes = [login(api, "nora", "wrong-pass").status_code for _ in range(limit)]
    assert codes == [401] * (limit - 1) + [429]
    r = login(api, "nora")  # the right password: still locked
    assert r.status_code == 429 and r.json()["code"] == "throttled"
    assert int(r["Retry-After"]) == int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert ApiToken.objects.filter(user__username="nora").count() == 1  # registration's only
    # Another username is not affected.
    make_player("otto")
    assert login(api, "otto").status_code == 200


def test_a_successful_login_resets_the_failure_count(api, make_player, loose_throttles):
    make_player("pia")
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        assert login(api, "pia", "wrong-pass").status_code == 401
    assert login(api, "pia").status_code == 200
    for _ in range(limit - 1):
        assert login(api, "pia", "wrong-pass").status_code == 401
    assert login(api, "pia").status_code == 200


def test_the_admin_login_is_locked_out_too(loose_throttles):
    get_user_model().objects.create_superuser("admin", "admin@example.com", PASSWORD)
    client = Client()
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        r = client.post("/admin/login/", {"username": "admin", "password": "wrong-pass"})
        assert r.status_code == 200  # the form again, with its error
    r = client.post("/admin/login/", {"username": "admin", "password": "wrong-pass"})
    assert r.status_code == 429 and r.json()["code"] == "throttled" and r["Retry-After"]
    r = client.post("/admin/login/", {"username": "admin", "password": PASSWORD})
    assert r.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.fixture
def password_checks(monkeypatch):
    """How many times the admin login form asked for a password to be checked."""
    from django.contrib.auth import forms

    calls = []
    checked = forms.authenticate

    def counted(*args, **kwargs):
        calls.append(kwargs.get("username"))
        return checked(*args, **kwargs)

    monkeypatch.setattr(forms, "authenticate", counted)
    return calls


def admin_login(client, username, **extra):
    return client.post("/admin/login/", {"username": username, "password": "x"}, **extra)


def test_the_admin_login_is_throttled_per_client_with_the_token_route(
    api, monkeypatch, password_checks
):
    """Its tries count with /auth/token's on one counter: past it, 429 before any password
    hash, whatever the username (or a forged X-Forwarded-For) says."""
    rates = {"auth": "4/min", "auth_username": "1000/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = Client()
    assert client.get("/admin/login/").status_code == 200  # the form is not counted
    codes = [
        admin_login(client, f"u{i}", HTTP_X_FORWARDED_FOR=f"10.0.{i}.1").status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 200] and len(password_checks) == 3
    assert login(api, "u9", "x").status_code == 401  # the fourth try, on the API
    r = admin_login(client, "u5")
    assert r.status_code == 429 and r.json()["code"] == "throttled"
    assert 0 < int(r["Retry-After"]) <= 60
    assert login(api, "u9", "x").status_code == 429
    assert len(password_checks) == 3
    # Another client is counted on its own.
    assert admin_login(client, "u5", REMOTE_ADDR="10.9.0.1").status_code == 200


def test_the_admin_login_is_throttled_per_username_across_clients(monkeypatch, password_checks):
    rates = {"auth": "1000/min", "auth_username": "3/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = Client()
    codes = [
        admin_login(client, "Root" if i % 2 else "root", REMOTE_ADDR=f"10.3.0.{i}").status_code
        for i in range(4)
    ]
    assert codes == [200, 200, 200, 429] and len(password_checks) == 3
    assert admin_login(client, "other", REMOTE_ADDR="10.3.0.9").status_code == 200


# ---- tokens: hashed, revocable, rotating, idle expiry ----


def test_tokens_are_stored_as_digests_only(api):
    key = register(api, "quin").json()["token"]
    stored = ApiToken.objects.get(user__username="quin")
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest() != key
    assert not ApiToken.objects.filter(digest=key).exists()


def test_logout_revokes_the_callers_token_only(api, make_player, client_for):
    _, key = make_player("rita")
    other = login(api, "rita").json()["token"]
    r = api.post("/api/v1/auth/logout", HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code == 204
    assert me(api, key).status_code == 401
    assert me(api, other).status_code == 200
    r = api.post("/api/v1/auth/logout", HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


def test_rotate_returns_a_new_token_and_revokes_the_old(api, make_player):
    _, key = make_player("sam")
    r = api.post("/api/v1/auth/token/rotate", HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code == 200 and set(r.json()) == {"token"}
    new = r.json()["token"]
    assert new != key
    assert me(api, key).status_code == 401
    assert me(api, new).status_code == 200
    r = api.post("/api/v1/auth/token/rotate", HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code == 401


def test_logout_and_rotate_need_a_token(api):
    for route in ("/api/v1/auth/logout", "/api/v1/auth/token/rotate"):
        r = api.post(route)
        assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


def _idle(key: str, seconds: float) -> None:
    digest = hashlib.sha256(key.encode()).hexdigest()
    then = timezone.now() - timedelta(seconds=seconds)
    assert ApiToken.objects.filter(digest=digest).update(last_used=then) == 1


def test_an_idle_token_expires(api, make_player):
    _, key = make_player("tess")
    _idle(key, settings.TOKEN_IDLE_SECONDS - 30)
    assert me(api, key).status_code == 200  # used: idle time starts again
    _idle(key, settings.TOKEN_IDLE_SECONDS + 1)
    r = me(api, key)
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


def test_an_idle_token_cannot_move(make_player, client_for):
    _, key = make_player("uma")
    client = client_for(key)
    match = create_match(client, bots=["random"])
    view = state(client, match["id"])
    _idle(key, settings.TOKEN_IDLE_SECONDS + 1)
    r = post_move(client, match["id"], view["legal_moves"][0], view["version"])
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    _idle(key, 0)
    r = post_move(client, match["id"], view["legal_moves"][0], view["version"])
    assert r.status_code in (200, 409), r.content  # authenticated again (409 if not on turn)


def test_last_used_moves_on_at_most_once_a_minute(api, make_player, django_assert_num_queries):
    from tests import leakscan

    _, key = make_player("vic")
    digest = hashlib.sha256(key.encode()).hexdigest()
    leakscan.DEFER = True  # the scanner's own queries are not the route's
    try:
        with django_assert_num_queries(1):  # the token lookup, no write
            assert me(api, key).status_code == 200
        _idle(key, settings.TOKEN_TOUCH_SECONDS + 5)
        with django_assert_num_queries(2):  # the lookup and one UPDATE of last_used
            assert me(api, key).status_code == 200
        touched = ApiToken.objects.get(digest=digest).last_used
        assert timezone.now() - touched < timedelta(seconds=5)
        with django_assert_num_queries(1):
            assert me(api, key).status_code == 200
    finally:
        leakscan.DEFER = False
    leakscan.scan_deferred()


def test_a_user_keeps_a_bounded_number_of_tokens(api, make_player, loose_throttles):
    _, first = make_player("wes")
    keys = [login(api, "wes").json()["token"] for _ in range(settings.TOKEN_MAX_PER_USER + 2)]
    assert ApiToken.objects.filter(user__username="wes").count() == settings.TOKEN_MAX_PER_USER
    assert me(api, keys[-1]).status_code == 200
    assert me(api, first).status_code == 401  # the least recently used went first


@pytest.mark.parametrize(
    "header",
    ["Token abc\x00def", "Token " + "a" * 39 + "\x00", "Token \x00", "Token 0123456789abcdefX"],
)
def test_a_nul_byte_or_junk_in_a_token_is_401(api, make_player, client_for, header):
    assert api.get("/api/v1/players/me", HTTP_AUTHORIZATION=header).status_code == 401
    _, key = make_player()
    match = create_match(client_for(key), bots=["random"])
    r = api.post(
        f"/api/v1/matches/{match['id']}/moves",
        {"action": "draw", "version": 1},
        format="json",
        HTTP_AUTHORIZATION=header,
    )
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    r = api.get(f"/api/v1/matches/{match['id']}/state", HTTP_AUTHORIZATION=header)
    assert r.status_code == 401


@pytest.mark.parametrize("scheme", ["Bearer", "Basic", "JWT"])
def test_a_token_sent_under_another_scheme_is_401_not_the_public_view(
    api, make_player, client_for, scheme
):
    _, key = make_player()
    match = create_match(client_for(key), bots=["random"])
    header = f"{scheme} {key}"
    for path in ("/api/v1/players/me", f"/api/v1/matches/{match['id']}/state", "/api/v1/bots"):
        r = api.get(path, HTTP_AUTHORIZATION=header)
        assert r.status_code == 401, (path, r.content)
        assert r.json()["code"] == "not_authenticated"
        assert "'Token <token>'" in r.json()["message"]
        assert r["WWW-Authenticate"] == "Token"
    before = match["version"]
    r = api.post(
        f"/api/v1/matches/{match['id']}/moves",
        {"action": "draw", "version": before},
        format="json",
        HTTP_AUTHORIZATION=header,
    )
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    assert client_for(key).get(f"/api/v1/matches/{match['id']}/state").json()["version"] == before
    # The scheme's letter case is HTTP's to ignore.
    assert api.get("/api/v1/players/me", HTTP_AUTHORIZATION=f"token {key}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/players/me",
        "/api/v1/leaderboard?around=me",
        "/api/v1/matches?invited=true",
    ],
)
def test_every_401_names_the_token_scheme(api, path):
    r = api.get(path)
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    assert r["WWW-Authenticate"] == "Token"
    wrong = api.post(
        "/api/v1/auth/token", {"username": "nobody-here", "password": "x" * 10}, format="json"
    )
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"] == "Token"


def test_the_schema_documents_the_new_auth_routes(api):
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert schema["paths"]["/api/v1/auth/logout"]["post"]["operationId"] == "auth_logout"
    rotate = schema["paths"]["/api/v1/auth/token/rotate"]["post"]
    assert rotate["operationId"] == "auth_token_rotate" and "401" in rotate["responses"]
    assert "429" in schema["paths"]["/api/v1/auth/token"]["post"]["responses"]


def test_the_admin_lists_tokens_by_digest_and_not_drfs_plain_keys(make_player):
    _, key = make_player("xena")
    admin = get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/players/apitoken/")
    assert page.status_code == 200
    content = page.content.decode()
    assert hashlib.sha256(key.encode()).hexdigest() in content and key not in content
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404


# ---- usernames in any letter case ----


def test_login_names_the_account_in_any_letter_case(api, make_player, loose_throttles):
    player, _ = make_player("Selin")
    for spelling in ("Selin", "selin", "SELIN"):
        r = login(api, spelling)
        assert r.status_code == 200, (spelling, r.content)
        assert me(api, r.json()["token"]).json()["id"] == str(player.id)


def test_the_lockout_counts_every_spelling_against_one_account(api, make_player, loose_throttles):
    make_player("Deniz")
    limit = settings.AXES_FAILURE_LIMIT
    spellings = ["deniz", "DENIZ", "Deniz", "dEnIz"]
    codes = [login(api, spellings[i % 4], "wrong-pass").status_code for i in range(limit)]
    assert codes == [401] * (limit - 1) + [429]
    assert login(api, "Deniz").status_code == 429  # the right password, the stored spelling


def test_a_locked_out_username_is_told_the_lockout_s_wait_by_any_throttle(
    api, make_player, monkeypatch
):
    """Past the lockout's failures the per-username throttle refuses first too (its own, shorter
    Retry-After): the answer is the lockout's, so a client that waits as told is not refused
    again at once."""
    limit = settings.AXES_FAILURE_LIMIT
    rates = {"auth": "1000/min", "auth_username": f"{limit}/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    make_player("vera")
    codes = [login(api, "vera", "wrong-pass").status_code for _ in range(limit)]
    assert codes == [401] * (limit - 1) + [429]
    cooloff = int(settings.AXES_COOLOFF_TIME.total_seconds())
    for password in ("wrong-pass", None):  # None: the right one
        r = login(api, "VERA", password) if password else login(api, "vera")
        assert r.status_code == 429 and int(r["Retry-After"]) == cooloff, r["Retry-After"]
        assert "failed logins" in r.json()["message"]
    # Another username meets the throttle's own wait.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**rates, "auth_username": "1/min"})
    make_player("walt")
    assert login(api, "walt", "wrong-pass").status_code == 401
    other = login(api, "walt", "wrong-pass")
    assert other.status_code == 429 and int(other["Retry-After"]) <= 60
