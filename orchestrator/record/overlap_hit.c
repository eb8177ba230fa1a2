/*
 * overlap_hit: the names of the kinds and the release of hits
 * (overlap_hit.h).
 */
#include "record/overlap_hit.h"

#include <stdlib.h>

const char *overlap_hit_kind_name(enum overlap_kind k)
{
	switch (k) {
	case OVERLAP_EXCLUSIVE: return "exclusive";
	case OVERLAP_ABEV: return "abev";
	}
	return "unknown";
}

void overlap_hit_release(struct overlap_hit *h)
{
	if (!h)
		return;
	free(h->command);
	free(h->pattern);
	free(h->evidence);
	h->command = h->pattern = h->evidence = NULL;
}

void overlap_hit_list_free(struct overlap_hit *hits, size_t n)
{
	for (size_t i = 0; i < n; i++)
		overlap_hit_release(&hits[i]);
	free(hits);
}
