/*
 * compiler: what abev asks of the compiler beyond C11 — printf-format
 * checking of its variadic functions and a noreturn mark, empty where the
 * compiler has neither — and ARRAY_SIZE. Macros only: no function, no
 * type, no header of the C library.
 */
#ifndef ABEV_COMPILER_H
#define ABEV_COMPILER_H

#if defined(__GNUC__)
#define ABEV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ABEV_NORETURN __attribute__((noreturn))
#else
#define ABEV_PRINTF(f, a)
#define ABEV_NORETURN
#endif

/* The number of elements of the array a (an array, not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
