/*
 * rng: a seeded pseudo-random generator that gives the same stream on
 * every platform: splitmix64 (Steele, Lea, Flood), whose whole state is
 * the caller's *state. Seed it by assigning any value. Not for secrets.
 */
#ifndef ABEV_RNG_H
#define ABEV_RNG_H

#include <stdint.h>

/*
 * rng_next() returns the next 64 bits; rng_below() a value uniform in
 * [0, bound) without modulo bias (bound must be > 0; it may draw more
 * than once). schedule's shuffles and stats' bootstrap use it, so a
 * change to either function changes recorded evidence.
 */
uint64_t rng_next(uint64_t *state);
uint64_t rng_below(uint64_t *state, uint64_t bound);

#endif
