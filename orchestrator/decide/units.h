/*
 * units: how abev writes a measured value for people — times scaled to
 * ns/µs/ms/s, byte counts to B/KiB/MiB/GiB, any other unit left as it
 * is — with three or four significant digits and never "-0". It formats;
 * it does not round what is stored (evidence keeps full precision).
 */
#ifndef ABEV_UNITS_H
#define ABEV_UNITS_H

struct strbuf;

/* Seconds per unit for a time unit (ns, us, µs, ms, s), or 0 for any other. */
double units_seconds(const char *unit);
/* Non-zero for "bytes" and "B". */
int units_is_bytes(const char *unit);
/*
 * A display scale chosen once for a row of values, so that they share a
 * unit and a number of decimals: units_pick() chooses it from the value
 * that matters most (a median), units_add_in() writes any value in it.
 */
struct units_scale {
	double factor;       /* value in unit * factor = value in name */
	const char *name;    /* "ms", "MiB", or the unit itself */
	int decimals;
};
void units_pick(double v, const char *unit, struct units_scale *out);
/* Appends v (in the unit units_pick() saw) in scale s, without the unit's name. */
void units_add_in(struct strbuf *sb, double v, const struct units_scale *s);

/* Appends v (in unit) scaled and with its unit: "17.2 ms", "98.4 MiB", "3.25 ops/s". */
void units_add(struct strbuf *sb, double v, const char *unit);
/*
 * The unit units_add() would show v (in unit) in, and in *factor what a
 * value in unit is multiplied by to be in that one: "ms" and 2.5e3 give
 * "s" and 0.001, bytes scale by 1024 ("MiB"), any other unit is kept
 * with factor 1. A plot scales a whole axis by its largest value.
 */
const char *units_scale(const char *unit, double v, double *factor);
/* Appends a change in percent with two decimals and its sign: "+19.24%", "-11.76%", "+0.00%". */
void units_add_pct(struct strbuf *sb, double pct);

#endif
