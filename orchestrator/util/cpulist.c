/*
 * cpulist: parses and formats CPU lists. Input comes from plans, so every
 * number is bounded and every character checked.
 */
#include "util/cpulist.h"
#include "util/strbuf.h"

#include <string.h>

void cpulist_add(struct cpulist *cl, unsigned cpu)
{
	if (cpu < CPULIST_MAX && !cpulist_has(cl, cpu)) {
		cl->bits[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		cl->count++;
	}
}

int cpulist_has(const struct cpulist *cl, unsigned cpu)
{
	return cpu < CPULIST_MAX && (cl->bits[cpu / 8] >> (cpu % 8)) & 1u;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A CPU number below CPULIST_MAX; advances *pp. */
static int take_cpu(const char **pp, unsigned *out)
{
	const char *p = skip_blanks(*pp);
	unsigned v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= CPULIST_MAX)
			return -2;
		p++;
	}
	*pp = skip_blanks(p);
	*out = v;
	return 0;
}

int cpulist_parse(const char *text, struct cpulist *out, char **why)
{
	struct cpulist cl = CPULIST_INIT;
	const char *p = text;

	*why = NULL;
	if (!text || strlen(text) > CPULIST_TEXT_MAX) {
		*why = xasprintf("a CPU list is at most %d characters", CPULIST_TEXT_MAX);
		return -1;
	}
	for (;;) {
		unsigned lo, hi;
		int r = take_cpu(&p, &lo);
		if (r == 0 && *p == '-') {
			p++;
			r = take_cpu(&p, &hi);
		} else {
			hi = lo;
		}
		if (r == -2) {
			*why = xasprintf("'%s': CPUs are numbered below %d", text, CPULIST_MAX);
			return -1;
		}
		if (r < 0 || (*p != ',' && *p != '\0')) {
			*why = xasprintf("'%s' is not a CPU list (expected numbers and ranges such "
					 "as \"0\", \"0-1\" or \"0,2-3\")",
					 text);
			return -1;
		}
		if (hi < lo) {
			*why = xasprintf("'%s': the range %u-%u runs backwards", text, lo, hi);
			return -1;
		}
		for (unsigned c = lo; c <= hi; c++)
			cpulist_add(&cl, c);
		if (*p == '\0')
			break;
		p++;
	}
	*out = cl;
	return 0;
}

char *cpulist_format(const struct cpulist *cl)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned c = 0; c < CPULIST_MAX; c++) {
		unsigned end = c;
		if (!cpulist_has(cl, c))
			continue;
		while (end + 1 < CPULIST_MAX && cpulist_has(cl, end + 1))
			end++;
		if (sb.len)
			strbuf_addch(&sb, ',');
		if (end == c)
			strbuf_addf(&sb, "%u", c);
		else
			strbuf_addf(&sb, "%u-%u", c, end);
		c = end;
	}
	return strbuf_detach(&sb, NULL);
}
