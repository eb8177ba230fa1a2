/*
 * json_out: building JSON documents with cJSON in abev's way — every
 * allocation failure fatal (so callers never check), integers through
 * double (every figure abev writes is below 2^53), rounded and full
 * precision numbers, null for what is absent or not finite, and printing
 * with a final newline. It is for the modules that serialise evidence;
 * it decides no key order and no content.
 */
#ifndef ABEV_JSON_OUT_H
#define ABEV_JSON_OUT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

cJSON *jnew_object(void);
cJSON *jnew_array(void);
cJSON *jnull(void);
/* Adds val (which the object then owns) under key. */
void jadd(cJSON *obj, const char *key, cJSON *val);
/* s or null. */
void jadd_str(cJSON *obj, const char *key, const char *s);
void jadd_int(cJSON *obj, const char *key, int64_t v);
void jadd_int_or_null(cJSON *obj, const char *key, int64_t v, int present);
/* v rounded to 6 decimals, so that a measured figure's text is stable and short. */
void jadd_num(cJSON *obj, const char *key, double v);
/* v at full precision (cJSON prints what reads back as the same double); null unless finite. */
void jadd_real(cJSON *obj, const char *key, double v);
cJSON *jreal(double v);
void jadd_bool(cJSON *obj, const char *key, int b);
/* Appends val to arr (which then owns it). */
void jpush(cJSON *arr, cJSON *val);
/* An array of the n strings of v. */
cJSON *jstrings(const char *const *v, size_t n);
/*
 * o formatted, plus a newline. Caller frees. o stays the caller's. DEL,
 * C1 controls, bidirectional controls, line separators and the other
 * code points unicode_hidden() names are written as \uXXXX (as cJSON
 * writes C0), and a byte that is not UTF-8 as \ufffd: the text is UTF-8
 * that no terminal or viewer reorders or acts on.
 */
char *json_print(const cJSON *o);
/* json_print() without the newline, formatted or (formatted 0) on one line. Caller frees. */
char *json_print_bare(const cJSON *o, int formatted);

#endif
