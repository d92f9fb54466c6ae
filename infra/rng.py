"""A counter-based random number generator for compiled code (SplitMix64).

Every random draw of datagen and the match/regret engines is a pure function of
(seed, stream, counter), so results do not depend on thread scheduling and two
games can share their throws (duplicate matches) by sharing a stream.
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def mix64(x):
    """The SplitMix64 finaliser: a bijective scramble of a uint64."""
    x = np.uint64(x)
    x = (x ^ (x >> np.uint64(30))) * MIX1
    x = (x ^ (x >> np.uint64(27))) * MIX2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def stream_key(seed, stream):
    """A key for stream `stream` (a game, a pair) of run `seed`."""
    return mix64(mix64(np.uint64(seed) + GOLDEN) ^ (np.uint64(stream) * GOLDEN))


@njit(cache=True)
def uniform(key, counter):
    """The counter-th uniform float in [0, 1) of a stream."""
    x = mix64(key + np.uint64(counter + 1) * GOLDEN)
    return np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def below(key, counter, n):
    """The counter-th uniform integer in 0..n-1 of a stream."""
    return min(np.int64(uniform(key, counter) * n), n - 1)


@njit(cache=True)
def draw_throw(throws, cum_probs, key, counter):
    """A throw with the game's probabilities (cum_probs: cumulative, last = 1)."""
    u = uniform(key, counter)
    for t in range(len(throws)):
        if u < cum_probs[t]:
            return throws[t]
    return throws[len(throws) - 1]


def cumulative(probs) -> np.ndarray:
    cum = np.cumsum(np.asarray(probs, dtype=np.float64))
    cum[-1] = 1.0
    return cum
