/*
 * evname: the policy for names inside evidence. A name must be one that
 * stock tools (sha256sum -c, signify -C) read back from the manifest;
 * evname says which names are (evname_problem), makes a safe one
 * (evname_safe_component), and tidies what a run left behind so that it can
 * be sealed without losing content (evname_tidy: used by runner, judge,
 * bundle and verify). It does not hash or list files (manifest.c).
 */
#ifndef ABEV_EVNAME_H
#define ABEV_EVNAME_H

#include <stddef.h>
#include <sys/types.h>

#include "record/layout.h"

/*
 * A name that stock tools can read back: relative, non-empty, no "." or
 * ".." component, no empty component, no ')' (signify cannot parse it),
 * no control character or newline, no backslash, valid UTF-8 not needed.
 * Returns NULL when safe, else a static reason.
 */
const char *evname_problem(const char *name);

/*
 * Makes what a run left under root/sub sealable without losing a byte of
 * content: a symlink, FIFO, socket or device is removed (it holds no
 * data of its own), a file or directory whose name stock tools cannot
 * read is renamed to a safe one ("bad)name" -> "bad_name", with a numeric
 * suffix when taken). Each change is handed to note(ctx, line) (ownership
 * passes) so that the evidence says what was changed. Returns the number
 * of changes, or -1 after error() when one could not be made.
 */
struct dirat;
int evname_tidy(const struct dirat *root, const char *sub,
		void (*note)(void *ctx, char *line), void *ctx);
/*
 * The mode evidence keeps for an entry of mode m: a directory abev can
 * read, enter and change (u+rwx), a regular file it can read and replace
 * (u+rw); no setuid, setgid or sticky bit, nothing writable by group or
 * others. Other kinds keep m (evname_tidy() removes them).
 */
mode_t evname_mode(mode_t m);
/*
 * Removes the extended attributes of base in the directory open as dirfd
 * (no link followed): POSIX ACLs, file capabilities, user.* and trusted.*
 * attributes — what cp -a or an extraction as root would carry on — but
 * not a security label (security.* other than security.capability).
 * Returns how many were removed, or -1 when they could not be listed.
 */
long evname_strip_xattrs(int dirfd, const char *base);
/*
 * Takes back what a run left under root/sub, sub itself included: every
 * directory and regular file gets evname_mode() (fchmodat() through the
 * directory that holds it, no link followed), a directory before it is
 * entered, so that one the run made unreadable is read too. A file with
 * more than one name is left alone: its mode is its other name's too
 * (the seal gives it an inode of its own). Extended attributes go too
 * (evname_strip_xattrs()). One note (ownership passes) says how many
 * entries were changed, another how many had attributes; none when
 * nothing was. With private_modes (a run as another user, run_as), group
 * and others keep no permission at all, so that a later run of that user
 * cannot read this one's. Returns that number, or -1 after error().
 */
int evname_take_back(const struct dirat *root, const char *sub, int private_modes,
		     void (*note)(void *ctx, char *line), void *ctx);
/* A name component stock tools can read: offending bytes become '_'. Caller frees. */
char *evname_safe_component(const char *name);

/*
 * A copy of len bytes of an outside string fit to quote in one line of an
 * error: escaped by strbuf_add_escaped() (util/escape.h), cut at 200 bytes with
 * "...". Caller frees.
 */
char *evname_printable(const char *s, size_t len);

#endif
