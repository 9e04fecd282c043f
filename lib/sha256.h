/*
 * sha256 — SHA-256 (FIPS 180-4), for the manifest's hash of the scenario
 * file as it was run (harness/manifest.c).  None of the libraries faultline
 * links has one, and the scenario is small: a plain implementation.
 *
 *   struct sha256 s;  sha256_init(&s);
 *   sha256_update(&s, buf, len);  ...
 *   sha256_final(&s, digest);           // 32 bytes
 *   sha256_hex(digest, hex);            // 64 hex digits and a NUL
 */
#ifndef FL_SHA256_H
#define FL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

struct sha256 {
    uint32_t h[8];
    uint64_t bytes;        /* message length so far */
    unsigned char buf[64]; /* a block not yet complete */
    size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char digest[SHA256_BYTES]);

/* The digest as 64 lower-case hex digits (out: 65 bytes). */
void sha256_hex(const unsigned char digest[SHA256_BYTES], char out[2 * SHA256_BYTES + 1]);

/* The SHA-256 of a file's bytes, in hex.  0, or -1 with err (strerror). */
int sha256_file(const char *path, char out[2 * SHA256_BYTES + 1], char *err, size_t errlen);

#endif
