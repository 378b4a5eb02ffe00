"""R-1..R-9: cards, the verifiable shuffle, dealing, reshuffles and the match's seats.

The shuffle is checked against an independent implementation of the R-4 text (HMAC-SHA256
blocks, big-endian uint32 stream, rejection sampling, Fisher-Yates from the last index down),
written here from docs/rules.md rather than imported from the engine.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import games.engine as engine
from games.engine import (
    DRAW_MOVE,
    PACK,
    Card,
    InvalidMove,
    Move,
    Rules,
    RulesError,
    apply,
    commitment,
    deal_from_codes,
    dealer_for,
    new_deal,
    new_seed,
    opener_for_deal,
    shuffled_pack,
)

RANK_CODES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUIT_CODES = ["C", "D", "H", "S"]
CANONICAL_CODES = [rank + suit for suit in SUIT_CODES for rank in RANK_CODES]
ZERO_SEED = bytes(32)
COUNTING_SEED = bytes(range(32))


def reference_shuffle(items: Sequence[str], seed: bytes, prefix: str) -> list[str]:
    """R-4 written from the text of docs/rules.md, independently of games.engine.shuffle."""

    def uint32s() -> Iterator[int]:
        i = 0
        while True:
            block = hmac.new(seed, (prefix + str(i)).encode("ascii"), hashlib.sha256).digest()
            yield from struct.unpack(">8I", block)
            i += 1

    deck = list(items)
    stream = uint32s()
    for j in range(len(deck) - 1, 0, -1):
        bound = j + 1
        x = next(stream)
        while x >= 2**32 - (2**32 % bound):
            x = next(stream)
        k = x % bound
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def reference_deal_order(seed: bytes) -> list[str]:
    return reference_shuffle(CANONICAL_CODES, seed, "pisyedili-shuffle-v1:")


def codes(cards: Sequence[Card]) -> list[str]:
    return [c.code for c in cards]


# R-1 -------------------------------------------------------------------------------------------


def test_r1_pack_has_52_distinct_cards_with_rank_suit_codes() -> None:
    assert len(PACK) == 52
    assert sorted(c.code for c in PACK) == sorted(CANONICAL_CODES)
    for code in ("10H", "JS", "AC", "7D"):
        assert Card.from_code(code).code == code


@pytest.mark.parametrize("typed", ["10h", "js", "Ac", "7d", " 7D "])
def test_r1_card_input_is_case_insensitive_output_upper_case(typed: str) -> None:
    card = Card.from_code(typed)
    assert card.code == typed.strip().upper()
    assert str(card) == typed.strip().upper()


@pytest.mark.parametrize("bad", ["", "1H", "11C", "JX", "10", "H", "JOKER", "0S", "7DD"])
def test_r1_no_jokers_and_no_other_codes(bad: str) -> None:
    with pytest.raises(InvalidMove) as caught:
        Card.from_code(bad)
    assert caught.value.field == "card"


# R-2 -------------------------------------------------------------------------------------------


def test_r2_canonical_order_is_clubs_diamonds_hearts_spades_two_to_ace() -> None:
    assert codes(PACK) == CANONICAL_CODES
    assert int(Card.from_code("2C")) == 0
    assert int(Card.from_code("AC")) == 12
    assert int(Card.from_code("2D")) == 13
    assert int(Card.from_code("10H")) == 2 * 13 + 8
    assert int(Card.from_code("AS")) == 51
    for index, card in enumerate(PACK):
        assert card.suit_index * 13 + card.rank == index


# R-3 -------------------------------------------------------------------------------------------


def test_r3_new_seed_is_32_fresh_bytes() -> None:
    seeds = {new_seed() for _ in range(8)}
    assert len(seeds) == 8
    assert all(isinstance(seed, bytes) and len(seed) == 32 for seed in seeds)


def test_r3_new_seed_comes_from_secrets_token_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def fake_token_bytes(n: int) -> bytes:
        calls.append(n)
        return b"\xab" * n

    monkeypatch.setattr(secrets, "token_bytes", fake_token_bytes)
    assert new_seed() == b"\xab" * 32
    assert calls == [32]


def test_r3_no_engine_module_imports_random() -> None:
    # Deal randomness comes only from the seed; bots (games/engine/bots) may choose moves with
    # `random`, which never touches a shuffle.
    package = Path(engine.__file__).parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        if "bots" in path.relative_to(package).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "").split(".")[0]]
            else:
                continue
            if "random" in names:
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_r3_commitment_is_sha256_hex_of_the_seed() -> None:
    assert (
        commitment(ZERO_SEED) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )
    seed = new_seed()
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert commitment(COUNTING_SEED) != commitment(ZERO_SEED)


# R-4 -------------------------------------------------------------------------------------------


def test_r4_reference_implementation_reproduces_the_rules_vectors() -> None:
    # Guards the independent implementation itself, so the comparisons below mean something.
    assert reference_deal_order(ZERO_SEED)[:8] == ["7D", "5C", "9S", "9C", "6C", "10H", "KD", "AC"]
    assert reference_deal_order(COUNTING_SEED)[:8] == [
        "9C",
        "KH",
        "7C",
        "2H",
        "KC",
        "JC",
        "5S",
        "6C",
    ]


def test_r4_vector_zero_seed() -> None:
    assert codes(shuffled_pack(ZERO_SEED)[:8]) == ["7D", "5C", "9S", "9C", "6C", "10H", "KD", "AC"]


def test_r4_vector_counting_seed() -> None:
    assert codes(shuffled_pack(COUNTING_SEED)[:8]) == [
        "9C",
        "KH",
        "7C",
        "2H",
        "KC",
        "JC",
        "5S",
        "6C",
    ]


@pytest.mark.parametrize(
    "seed",
    [ZERO_SEED, COUNTING_SEED, b"\xff" * 32, hashlib.sha256(b"pis yedili").digest()],
    ids=["zero", "counting", "ones", "sha"],
)
def test_r4_whole_pack_matches_reference_shuffle(seed: bytes) -> None:
    deck = codes(shuffled_pack(seed))
    assert deck == reference_deal_order(seed)
    assert sorted(deck) == sorted(CANONICAL_CODES)


def test_r4_shuffle_is_a_function_of_the_seed_only() -> None:
    assert shuffled_pack(COUNTING_SEED) == shuffled_pack(bytes(range(32)))
    assert shuffled_pack(COUNTING_SEED) != shuffled_pack(ZERO_SEED)


# R-5 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "opener"), [(2, 0), (3, 2), (4, 1), (6, 5)])
def test_r5_deal_one_card_at_a_time_clockwise_from_the_opener(seats: int, opener: int) -> None:
    state = new_deal(Rules(), seats, opener, COUNTING_SEED)
    deck = reference_deal_order(COUNTING_SEED)
    expected: list[list[str]] = [[] for _ in range(seats)]
    for position in range(7 * seats):
        expected[(opener + position) % seats].append(deck[position])
    for seat in range(seats):
        assert sorted(codes(state.hands[seat])) == sorted(expected[seat])
        # hands are kept in canonical order
        assert list(state.hands[seat]) == sorted(state.hands[seat])
    assert codes(state.stock) == deck[7 * seats :]  # the rest, in order; stock[0] is the top
    assert state.pile == ()  # no card is turned up
    assert state.turn == opener


def test_r5_zero_seed_deal_to_four_seats_from_the_vector() -> None:
    # Top of the pack 7D 5C 9S 9C 6C 10H KD AC; opener seat 1 gets the 1st and 5th cards.
    state = new_deal(Rules(), 4, 1, ZERO_SEED)
    hand = {seat: set(codes(state.hands[seat])) for seat in range(4)}
    assert {"7D", "6C"} <= hand[1]
    assert {"5C", "10H"} <= hand[2]
    assert {"9S", "KD"} <= hand[3]
    assert {"9C", "AC"} <= hand[0]
    assert len(state.stock) == 52 - 28


@pytest.mark.parametrize("hand_size", [1, 5, 7, 10])
def test_r5_hand_size_rounds(hand_size: int) -> None:
    state = new_deal(Rules(hand_size=hand_size, max_players=5), 3, 0, ZERO_SEED)
    assert [len(h) for h in state.hands] == [hand_size] * 3
    assert codes(state.stock) == reference_deal_order(ZERO_SEED)[3 * hand_size :]


# R-6 -------------------------------------------------------------------------------------------


def test_r6_reshuffle_pile_minus_top_in_order_played() -> None:
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(
        ["6S 8C KC", "9S QC KH"],
        top="6D",
        pile="2D 3D 4D 5D",
        stock=["2H"],
        rules=rules,
        seed=COUNTING_SEED,
    )
    state = apply(state, DRAW_MOVE)  # takes 2H, the stock is empty: first reshuffle
    first = reference_shuffle(["2D", "3D", "4D", "5D"], COUNTING_SEED, "pisyedili-reshuffle-v1:1:")
    assert codes(state.stock) == first
    assert codes(state.pile) == ["6D"]
    assert state.reshuffles == 1
    assert state.phase == "play"
    assert "2H" in codes(state.hands[0])
    # The order played matters: the same cards in another order shuffle differently.
    assert first != reference_shuffle(
        ["5D", "4D", "3D", "2D"], COUNTING_SEED, "pisyedili-reshuffle-v1:1:"
    )

    state = apply(state, Move.play(Card.from_code("6S")))
    state = apply(state, Move.play(Card.from_code("9S")))
    assert state.turn == 0
    for _ in range(4):  # free draws empty the reshuffled stock: second reshuffle, r = 2
        state = apply(state, DRAW_MOVE)
    assert codes(state.stock) == reference_shuffle(
        ["6D", "6S"], COUNTING_SEED, "pisyedili-reshuffle-v1:2:"
    )
    assert codes(state.pile) == ["9S"]
    assert state.reshuffles == 2
    assert set(first) <= set(codes(state.hands[0]))


def test_r6_a_penalty_draw_that_empties_the_stock_goes_on_from_the_reshuffled_one() -> None:
    """The reshuffle comes the moment the stock's last card is drawn, within a penalty draw
    too: its other cards come from the new stock, and the deal goes on (docs/rules.md R-6)."""
    rules = Rules(stock_exhausted="reshuffle")
    state = deal_from_codes(
        ["6S 8C", "9S QC"],
        top="7D",
        pile="2D 3D 4D 5D",
        stock=["2H"],
        pending_sevens=1,
        rules=rules,
        seed=COUNTING_SEED,
    )
    state = apply(state, DRAW_MOVE)  # 3 due: 2H, then two of the reshuffled pile
    reshuffled = reference_shuffle(
        ["2D", "3D", "4D", "5D"], COUNTING_SEED, "pisyedili-reshuffle-v1:1:"
    )
    assert state.reshuffles == 1 and state.phase != "deal_over"
    assert sorted(codes(state.hands[0])) == sorted(["6S", "8C", "2H", *reshuffled[:2]])
    assert codes(state.stock) == reshuffled[2:]
    assert codes(state.pile) == ["7D"] and state.pending_sevens == 0


# R-7 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_r7_two_to_six_players(seats: int) -> None:
    assert new_deal(Rules(), seats, 0, ZERO_SEED).seats == seats


@pytest.mark.parametrize("seats", [0, 1, 7])
def test_r7_other_player_counts_are_refused(seats: int) -> None:
    with pytest.raises(RulesError):
        new_deal(Rules(), seats, 0, ZERO_SEED)


def test_r7_max_players_option_allows_seven() -> None:
    state = new_deal(Rules(max_players=7), 7, 3, ZERO_SEED)
    assert len(state.hands) == 7 and len(state.stock) == 52 - 49
    with pytest.raises(RulesError):
        new_deal(Rules(max_players=7), 8, 0, ZERO_SEED)
    with pytest.raises(RulesError):
        new_deal(Rules(max_players=4), 5, 0, ZERO_SEED)


# R-8 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "expected_openers"),
    [(2, [0, 1, 0, 1]), (3, [0, 1, 2, 0, 1, 2]), (4, [0, 1, 2, 3, 0])],
)
def test_r8_opener_rotates_and_dealer_is_to_its_right(
    seats: int, expected_openers: list[int]
) -> None:
    for number, opener in enumerate(expected_openers, start=1):
        assert opener_for_deal(number, seats) == opener
        assert dealer_for(opener, seats) == (opener + seats - 1) % seats
        state = new_deal(Rules(), seats, opener, ZERO_SEED)
        assert state.turn == opener
        assert state.dealer == (opener + seats - 1) % seats


def test_r8_the_opener_receives_the_top_card() -> None:
    # Seed 00..1f: the top of the pack is 9C; dealt to the opener, whichever seat it is.
    for opener in range(3):
        state = new_deal(Rules(), 3, opener, COUNTING_SEED)
        assert "9C" in codes(state.hands[opener])


# R-9 -------------------------------------------------------------------------------------------


def test_r9_each_deal_starts_fresh() -> None:
    state = new_deal(Rules(), 4, 2, COUNTING_SEED)
    assert state.direction == 1
    assert state.pending_sevens == 0
    assert state.active_suit is None
    assert state.phase == "opening"
    assert state.draws_this_turn == 0
    assert state.reshuffles == 0 and state.actions == 0
    assert state.result is None
    other = new_deal(Rules(), 4, 2, ZERO_SEED)
    assert other.hands != state.hands  # another seed, another shuffle
