/*
 * nearest: two rows of the classic dynamic programme. Substring mode is
 * Sellers' variant: the word may start anywhere in the candidate (the
 * first row is all zeros) and end anywhere (the best cell of the last
 * row), so "Prase" is 2 edits from "Bench.Parse.Json". Case is ignored
 * for ASCII letters because the fix a reader needs is often just that.
 */
#define _POSIX_C_SOURCE 200809L
#include "nearest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

static int same(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

size_t nearest_distance(const char *word, const char *cand, int substring)
{
	size_t row[2][NEAREST_LEN_MAX + 1];
	size_t m = strnlen(word, NEAREST_LEN_MAX), n = strnlen(cand, NEAREST_LEN_MAX);
	size_t *prev = row[0], *cur = row[1], best;

	for (size_t j = 0; j <= n; j++)
		prev[j] = substring ? 0 : j;
	for (size_t i = 1; i <= m; i++) {
		size_t *t;
		cur[0] = i;
		for (size_t j = 1; j <= n; j++)
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + !same(word[i - 1], cand[j - 1]));
		t = prev;
		prev = cur;
		cur = t;
	}
	if (!substring)
		return prev[n];
	best = prev[0];
	for (size_t j = 1; j <= n; j++)
		if (prev[j] < best)
			best = prev[j];
	return best;
}

size_t nearest(const char *word, const char *const *cands, size_t ncands, int substring,
	       size_t max_distance, const char **out, size_t max)
{
	size_t dist[NEAREST_OUT_MAX], n = 0;

	if (max > NEAREST_OUT_MAX)
		max = NEAREST_OUT_MAX;
	if (!max)
		return 0;
	if (ncands > NEAREST_CANDIDATES_MAX)
		ncands = NEAREST_CANDIDATES_MAX;
	for (size_t i = 0; i < ncands; i++) {
		size_t d, k;
		int dup = 0;

		if (!cands[i])
			continue;
		d = nearest_distance(word, cands[i], substring);
		if (d > max_distance || (n == max && d >= dist[n - 1]))
			continue;
		for (k = 0; k < n && !dup; k++)
			dup = !strcmp(out[k], cands[i]);
		if (dup)
			continue;
		/* Insert after every candidate as near or nearer: ties keep their order. */
		k = n < max ? n++ : max - 1;
		for (; k > 0 && dist[k - 1] > d; k--) {
			dist[k] = dist[k - 1];
			out[k] = out[k - 1];
		}
		dist[k] = d;
		out[k] = cands[i];
	}
	return n;
}
