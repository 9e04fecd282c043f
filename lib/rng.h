/*
 * rng — the one pseudo-random generator, and the hashes that go with it.
 *
 * Everything faultline draws at random comes from here: the op sequence of
 * a workload, the payload pad of a run, the blocks and bytes a corrupt
 * fault changes, the shape of a `tree` file tree, the names a metadata
 * stream picks.  A seed therefore means the same thing everywhere, and the
 * same seed repeats a run.
 *
 *   rng_mix(z)       the splitmix64 finaliser: a strong 64-bit mixer (derives
 *                    per-sector seeds, scatters block numbers)
 *   rng_split(&s)    splitmix64: steps s by the golden ratio and mixes it; a
 *                    small generator of its own, and the seeder of struct rng
 *   struct rng       xoshiro256**: the fast generator of the hot path,
 *                    seeded from one 64-bit value through rng_split
 *   rng_slot(x)      a cheap multiplicative hash for open-addressing tables
 *
 * Header only: every call is a few instructions and sits on the hot path.
 */
#ifndef FL_RNG_H
#define FL_RNG_H

#include <stdint.h>

#define RNG_GOLDEN 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio */

static inline uint64_t rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rng_split(uint64_t *state)
{
    return rng_mix(*state += RNG_GOLDEN);
}

struct rng {
    uint64_t s[4];
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_split(&seed);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n) without a division (Lemire's multiply-shift). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Slot of key x in a table of 2^k entries: mask the result with 2^k - 1. */
static inline uint64_t rng_slot(uint64_t x)
{
    uint64_t z = x * RNG_GOLDEN;
    return z ^ (z >> 29);
}

#endif
