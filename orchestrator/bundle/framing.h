/*
 * framing: where the compressed layer of a bundle ends, read from the
 * file itself rather than from a decompressor. libarchive, like zstd -d
 * and gzip -d, reads concatenated zstd frames, zstd skippable frames and
 * concatenated gzip members as one stream, so what it consumed says
 * nothing about a second frame or member hidden behind the first. This
 * module walks the first zstd frame by its block headers, or the first
 * gzip member through its deflate blocks (decoding symbols, writing
 * nothing), and says where it ends and what follows. It does not check
 * content (the decompressor that reads the bundle does), except a gzip
 * header's own CRC; a gzip member's trailer (CRC-32 and size of the
 * content), which libarchive 3.6 reads past unchecked, it hands on for
 * read.c to compare with what it decompressed. It reads the file once,
 * in bounded chunks, and never allocates more than its buffer.
 */
#ifndef ABEV_FRAMING_H
#define ABEV_FRAMING_H

#include <stdint.h>

struct framing {
	uint64_t end;        /* bytes of the file the first frame or member spans */
	const char *after;   /* when end < the file's size, what follows: "a second
			      * zstd frame", "a zstd skippable frame", "a second gzip
			      * member", or NULL for bytes of no known kind */
	int gzip;            /* a gzip member: then its trailer, as written (unchecked): */
	uint32_t crc;        /* the CRC-32 of its content */
	uint32_t isize;      /* its content's size modulo 2^32 */
};

/*
 * Scans the regular file open at fd (read from offset 0 with pread, size
 * bytes long), which starts with the zstd or gzip magic. Fills *f and
 * returns 0; or returns -1 with *why (caller frees) when the first frame
 * or member is cut short or malformed, or when a gzip header carries data
 * of its own (a comment or extra field) or an overlong name, or fails its
 * own CRC (FHCRC).
 */
int framing_scan(int fd, uint64_t size, struct framing *f, char **why);

#endif
