/*
 * suggest: three rows of the classic dynamic programme on the stack (the
 * row before the previous one is for swaps). Substring mode is Sellers'
 * variant: the word may start anywhere in the candidate (the first row is
 * all zeros) and end anywhere (the best cell of the last row), so "Prase"
 * is 2 edits from "Bench.Parse.Json". Plan keys are compared with case
 * (a key is spelt one way), test names without (the fix a reader needs is
 * often just that).
 */
#include "util/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

static int same(char a, char b, unsigned how)
{
	if (how & SUGGEST_ANY_CASE)
		return tolower((unsigned char)a) == tolower((unsigned char)b);
	return a == b;
}

/* One row: cur from prev (and prev2 for a swap), for word[i - 1]. */
static void distance_row(const char *word, const char *cand, size_t n, size_t i, unsigned how,
			 const size_t *prev2, const size_t *prev, size_t *cur)
{
	cur[0] = i;
	for (size_t j = 1; j <= n; j++) {
		cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
			      prev[j - 1] + !same(word[i - 1], cand[j - 1], how));
		if ((how & SUGGEST_SWAPS) && i > 1 && j > 1 &&
		    same(word[i - 1], cand[j - 2], how) && same(word[i - 2], cand[j - 1], how) &&
		    prev2[j - 2] + 1 < cur[j])
			cur[j] = prev2[j - 2] + 1;
	}
}

size_t suggest_distance(const char *word, const char *cand, unsigned how)
{
	size_t rows[3][SUGGEST_LEN_MAX + 1];
	size_t m = strnlen(word, SUGGEST_LEN_MAX), n = strnlen(cand, SUGGEST_LEN_MAX);
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], best;

	for (size_t j = 0; j <= n; j++)
		prev[j] = (how & SUGGEST_PART) ? 0 : j;
	for (size_t i = 1; i <= m; i++) {
		size_t *t = prev2;
		distance_row(word, cand, n, i, how, prev2, prev, cur);
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	if (!(how & SUGGEST_PART))
		return prev[n];
	best = prev[0];
	for (size_t j = 1; j <= n; j++)
		if (prev[j] < best)
			best = prev[j];
	return best;
}

const char *suggest_nearest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, lw = strlen(word);

	if (!lw || lw > SUGGEST_WORD_MAX)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t ln = strlen(names[i]);
		size_t longer = lw > ln ? lw : ln;
		size_t d;

		if (ln > SUGGEST_WORD_MAX || !strcmp(word, names[i]))
			continue;
		d = suggest_distance(word, names[i], SUGGEST_SWAPS);
		if (d > 1 + longer / 4 || 2 * d > lw) {
			/* A clipped name is a likely slip too, though far by distance. */
			if (!(lw >= 3 && lw < ln && !strncmp(word, names[i], lw)))
				continue;
			d = ln - lw;
		}
		if (d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

size_t suggest_list(const char *word, const char *const *cands, size_t ncands, unsigned how,
		    size_t max_distance, const char **out, size_t max)
{
	size_t dist[SUGGEST_OUT_MAX], n = 0;

	if (max > SUGGEST_OUT_MAX)
		max = SUGGEST_OUT_MAX;
	if (!max)
		return 0;
	if (ncands > SUGGEST_CANDIDATES_MAX)
		ncands = SUGGEST_CANDIDATES_MAX;
	for (size_t i = 0; i < ncands; i++) {
		size_t d, k;
		int dup = 0;

		if (!cands[i])
			continue;
		d = suggest_distance(word, cands[i], how);
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
