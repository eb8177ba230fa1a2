/*
 * suggest: edit distance with two rows and the row before them (for the
 * swap), on the stack: names are short, and anything longer than
 * SUGGEST_MAX_LEN is no typo of a key.
 */
#include "suggest.h"

#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

size_t suggest_distance(const char *a, const char *b)
{
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t la = strlen(a), lb = strlen(b);
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *suggest_nearest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, lw = strlen(word);

	if (!lw || lw > SUGGEST_MAX_LEN)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t ln = strlen(names[i]);
		size_t longer = lw > ln ? lw : ln;
		size_t d = suggest_distance(word, names[i]);
		if (d == SIZE_MAX || !strcmp(word, names[i]))
			continue;
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
