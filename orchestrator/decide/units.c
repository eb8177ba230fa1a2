/*
 * units: the one formatter of values for people. The scale is chosen per
 * value so that the number has one to three digits before the point;
 * the decimals then keep three significant digits (four from 1000 up),
 * which is about what a benchmark's repeatability supports.
 */
#include "decide/units.h"

#include <math.h>
#include <string.h>

#include "util/compiler.h"
#include "util/strbuf.h"

static const struct {
	const char *unit;
	double seconds;
} time_units[] = {
	{ "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
};

double units_seconds(const char *unit)
{
	for (size_t i = 0; unit && i < ARRAY_SIZE(time_units); i++)
		if (!strcmp(unit, time_units[i].unit))
			return time_units[i].seconds;
	return 0;
}

int units_is_bytes(const char *unit)
{
	return unit && (!strcmp(unit, "bytes") || !strcmp(unit, "B"));
}

static int decimals_for(double a);

/* Appends v with three or four significant digits and no unit. */
static void units_add_plain(struct strbuf *sb, double v)
{
	double a = fabs(v);
	int decimals = decimals_for(a);

	if (!isfinite(v)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	if (a == 0) {
		strbuf_addch(sb, '0');
		return;
	}
	if (a < 0.001) {
		strbuf_addf(sb, "%.3g", v);
		return;
	}
	/* What rounds to zero prints without a sign. */
	if (round(a * pow(10, decimals)) == 0)
		v = 0;
	strbuf_addf(sb, "%.*f", decimals, v + 0.0);
}

/* Decimals for three significant digits at magnitude a (0 from 100 up). */
static int decimals_for(double a)
{
	return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

/*
 * The one place a scale is chosen: times go up from ns by thousands,
 * byte counts up from B by 1024s, other units stay as they are.
 */
void units_pick(double v, const char *unit, struct units_scale *out)
{
	static const char *const times[] = { "ns", "\xc2\xb5s", "ms", "s" };
	static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double sec = units_seconds(unit), a = isfinite(v) ? fabs(v) : 0;
	size_t k = 0;

	out->factor = 1;
	out->name = unit ? unit : "";
	if (sec > 0) {
		double ns_per_unit = sec * 1e9, x = a * ns_per_unit, div = 1;
		while (k + 1 < ARRAY_SIZE(times) && x >= 1000) {
			x /= 1000;
			div *= 1000;
			k++;
		}
		out->factor = ns_per_unit / div;
		out->name = times[k];
		out->decimals = decimals_for(x);
		return;
	}
	if (units_is_bytes(unit)) {
		double x = a;
		double div = 1;
		while (k + 1 < ARRAY_SIZE(bytes) && x >= 1024) {
			x /= 1024;
			div *= 1024;
			k++;
		}
		out->factor = 1 / div;
		out->name = bytes[k];
		out->decimals = k == 0 ? 0 : decimals_for(x);
		return;
	}
	out->decimals = decimals_for(a);
}

const char *units_scale(const char *unit, double v, double *factor)
{
	struct units_scale s;

	*factor = 1;
	if (!isfinite(v))
		return unit ? unit : "";
	units_pick(v, unit, &s);
	*factor = s.factor;
	return s.name;
}

void units_add(struct strbuf *sb, double v, const char *unit)
{
	struct units_scale s;

	if (!isfinite(v)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	if (v == 0) {
		strbuf_addf(sb, "0 %s", units_is_bytes(unit) ? "B" : unit && *unit ? unit : "");
		if (!unit || !*unit)
			sb->buf[--sb->len] = '\0';
		return;
	}
	units_pick(v, unit, &s);
	if (units_is_bytes(unit) && s.factor == 1)
		strbuf_addf(sb, "%.0f", v + 0.0);
	else
		units_add_plain(sb, v * s.factor);
	if (*s.name)
		strbuf_addf(sb, " %s", s.name);
}

void units_add_pct(struct strbuf *sb, double pct)
{
	if (!isfinite(pct)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	if (fabs(pct) < 0.005)
		pct = 0;
	strbuf_addf(sb, "%+.2f%%", pct + 0.0);
}

void units_add_in(struct strbuf *sb, double v, const struct units_scale *s)
{
	double x;

	if (!isfinite(v)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	x = v * s->factor;
	if (round(fabs(x) * pow(10, s->decimals)) == 0)
		x = 0;
	strbuf_addf(sb, "%.*f", s->decimals, x + 0.0);
}
