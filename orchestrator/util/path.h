/*
 * path: names of files as strings, and the directories on the way to
 * one. It neither opens nor checks what a name reaches: a name beneath a
 * directory abev opened itself, with no link followed, is dirat.h's.
 */
#ifndef ABEV_PATH_H
#define ABEV_PATH_H

/* Joins dir and name with one '/'. Caller frees. */
char *path_join(const char *dir, const char *name);
/* Creates dir and missing parents with mode 0755. 0 or -1 with error(). */
int mkdir_p(const char *path);

#endif
