/*
 * units: the one formatter of values for people. The scale is chosen per
 * value so that the number has one to three digits before the point;
 * the decimals then keep three significant digits (four from 1000 up),
 * which is about what a benchmark's repeatability supports.
 */
#include "units.h"

#include <math.h>
#include <string.h>

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

void units_add_plain(struct strbuf *sb, double v)
{
	double a = fabs(v);
	int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;

	if (!isfinite(v)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	if (a > 0 && a < 0.001) {
		strbuf_addf(sb, "%.3g", v);
		return;
	}
	/* What rounds to zero prints without a sign. */
	if (round(a * pow(10, decimals)) == 0)
		v = 0;
	strbuf_addf(sb, "%.*f", decimals, v + 0.0);
}

static const char *const times[] = { "ns", "\xc2\xb5s", "ms", "s" };
static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };

/* How many times a (>= 0) is divided by base, at most max times, to fall below base. */
static size_t steps(double a, double base, size_t max)
{
	size_t k = 0;
	while (k < max && a >= base) {
		a /= base;
		k++;
	}
	return k;
}

const char *units_scale(const char *unit, double v, double *factor)
{
	double sec = units_seconds(unit);
	size_t k;

	*factor = 1;
	if (!isfinite(v))
		return unit ? unit : "";
	if (sec > 0) {
		k = steps(fabs(v * sec * 1e9), 1000, ARRAY_SIZE(times) - 1);
		*factor = sec * 1e9 / pow(1000, (double)k);
		return times[k];
	}
	if (units_is_bytes(unit)) {
		k = steps(fabs(v), 1024, ARRAY_SIZE(bytes) - 1);
		*factor = 1 / pow(1024, (double)k);
		return bytes[k];
	}
	return unit ? unit : "";
}

void units_add(struct strbuf *sb, double v, const char *unit)
{
	double sec = units_seconds(unit);
	size_t k;

	if (!isfinite(v)) {
		strbuf_adds(sb, "n/a");
		return;
	}
	if (sec > 0) {
		double ns = v * sec * 1e9;
		k = steps(fabs(ns), 1000, ARRAY_SIZE(times) - 1);
		for (size_t i = 0; i < k; i++)
			ns /= 1000;
		units_add_plain(sb, ns);
		strbuf_addf(sb, " %s", times[k]);
		return;
	}
	if (units_is_bytes(unit)) {
		k = steps(fabs(v), 1024, ARRAY_SIZE(bytes) - 1);
		for (size_t i = 0; i < k; i++)
			v /= 1024;
		if (k == 0)
			strbuf_addf(sb, "%.0f B", v + 0.0);
		else {
			units_add_plain(sb, v);
			strbuf_addf(sb, " %s", bytes[k]);
		}
		return;
	}
	units_add_plain(sb, v);
	if (unit && *unit)
		strbuf_addf(sb, " %s", unit);
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
