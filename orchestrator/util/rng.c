/* rng: splitmix64 and an unbiased draw below a bound. */
#include "util/rng.h"

/*
 * splitmix64 is tiny and fully specified by its constants; a libc
 * generator would differ between platforms and break reproducibility.
 */
uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * Draws below 2^64 mod bound are rejected: what remains is a whole
 * number of copies of [0, bound), so r % bound has no bias.
 */
uint64_t rng_below(uint64_t *state, uint64_t bound)
{
	uint64_t threshold = (0 - bound) % bound;
	for (;;) {
		uint64_t r = rng_next(state);
		if (r >= threshold)
			return r % bound;
	}
}
