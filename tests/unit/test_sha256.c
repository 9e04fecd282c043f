/*
 * SHA-256 against the FIPS 180-2 / NIST test vectors ("abc", the 448-bit
 * two-block message, a million 'a'), the empty message, every length
 * around the padding boundary fed in odd pieces (against a one-call hash),
 * and sha256_file against the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/sha256.h"

static void hash(const void *data, size_t len, char hex[65])
{
    struct sha256 s;
    unsigned char d[SHA256_BYTES];
    sha256_init(&s);
    sha256_update(&s, data, len);
    sha256_final(&s, d);
    sha256_hex(d, hex);
}

static void test_fips_vectors(void **state)
{
    (void)state;
    char hex[65];
    hash("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hash(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    hash("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *four =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnop"
        "qrlmnopqrsmnopqrstnopqrstu";
    hash(four, strlen(four), hex);
    assert_string_equal(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state)
{
    (void)state;
    struct sha256 s;
    unsigned char d[SHA256_BYTES];
    char hex[65], chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    sha256_init(&s);
    for (int i = 0; i < 1000; i++)
        sha256_update(&s, chunk, sizeof chunk);
    sha256_final(&s, d);
    sha256_hex(d, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Any split of the input gives the digest of one call (lengths 0..200 cross
 * the 55/56/64-byte padding edges). */
static void test_pieces(void **state)
{
    (void)state;
    unsigned char data[200];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    for (size_t len = 0; len <= sizeof data; len++) {
        char whole[65], parts[65];
        hash(data, len, whole);
        struct sha256 s;
        unsigned char d[SHA256_BYTES];
        sha256_init(&s);
        for (size_t at = 0, step = 1; at < len; at += step, step = step % 13 + 1)
            sha256_update(&s, data + at, at + step > len ? len - at : step);
        sha256_final(&s, d);
        sha256_hex(d, parts);
        assert_string_equal(whole, parts);
    }
}

static void test_file(void **state)
{
    (void)state;
    char path[] = "/tmp/fl-sha256-XXXXXX", hex[65], err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    assert_int_equal(sha256_file(path, hex, err, sizeof err), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    assert_int_equal(sha256_file(path, hex, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips_vectors),
        cmocka_unit_test(test_million_a),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
