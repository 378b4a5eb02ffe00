"""Seeds, commitments and the verifiable shuffle of R-3, R-4 and R-6."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from typing import TypeVar

from .cards import PACK, Card

SHUFFLE_PREFIX = "pisyedili-shuffle-v1:"
T = TypeVar("T")


def new_seed() -> bytes:
    """A fresh 32-byte secret seed from the operating system's CSPRNG (R-3)."""
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """SHA-256 of the seed, hex: public from the deal's start (R-3)."""
    return hashlib.sha256(seed).hexdigest()


def _uint32_stream(seed: bytes, prefix: str) -> Iterator[int]:
    """Big-endian uint32s from the blocks HMAC-SHA256(seed, prefix + str(i)), i = 0, 1, … (R-4)."""
    i = 0
    while True:
        block = hmac.new(seed, (prefix + str(i)).encode("ascii"), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        i += 1


def shuffled(items: Sequence[T], seed: bytes, prefix: str = SHUFFLE_PREFIX) -> list[T]:
    """Fisher-Yates from the last index down with rejection sampling (R-4); index 0 is the top."""
    deck = list(items)
    stream = _uint32_stream(seed, prefix)
    for j in range(len(deck) - 1, 0, -1):
        bound = j + 1
        limit = 2**32 - (2**32 % bound)
        x = next(stream)
        while x >= limit:
            x = next(stream)
        k = x % bound
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def shuffled_pack(seed: bytes) -> list[Card]:
    """The pack after the deal's shuffle (R-4), top first."""
    return shuffled(PACK, seed)


def reshuffle_prefix(number: int) -> str:
    """Message prefix of the r-th reshuffle of a deal (R-6)."""
    return f"pisyedili-reshuffle-v1:{number}:"
