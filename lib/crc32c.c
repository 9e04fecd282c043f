/* crc32c — see crc32c.h.  Reflected polynomial 0x82F63B78. */
#include "crc32c.h"

#include <string.h>

#define POLY 0x82F63B78u

static uint32_t table[8][256];
static int use_hw;      /* decided once in crc32c_init() */
static int forced_table;

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v; /* x86 and every target we build on are little-endian */
}

__attribute__((constructor)) static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
#if defined(__x86_64__)
    __builtin_cpu_init();
    use_hw = __builtin_cpu_supports("sse4.2");
#endif
}

/* Raw update (no pre/post inversion), slicing-by-8. */
static uint32_t sw_update(uint32_t crc, const unsigned char *p, size_t len)
{
    while (len >= 8) {
        uint64_t w = load64(p) ^ crc;
        crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
              table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^
              table[2][(w >> 40) & 0xff] ^ table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t hw_update(uint32_t crc, const unsigned char *p,
                                                             size_t len)
{
    uint64_t c = crc;
    while (len >= 8) {
        c = __builtin_ia32_crc32di(c, load64(p));
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}

/* Eight independent streams interleaved word by word, each in its own
 * register (an array would live on the stack and go through memory). */
__attribute__((target("sse4.2"))) static void hw_lanes8(const unsigned char *base, size_t stride,
                                                         size_t len, uint32_t *out)
{
    const unsigned char *p0 = base, *p1 = p0 + stride, *p2 = p1 + stride, *p3 = p2 + stride,
                        *p4 = p3 + stride, *p5 = p4 + stride, *p6 = p5 + stride,
                        *p7 = p6 + stride;
    uint64_t c0 = 0xffffffffu, c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    size_t w = 0;
    for (; w + 8 <= len; w += 8) {
        c0 = __builtin_ia32_crc32di(c0, load64(p0 + w));
        c1 = __builtin_ia32_crc32di(c1, load64(p1 + w));
        c2 = __builtin_ia32_crc32di(c2, load64(p2 + w));
        c3 = __builtin_ia32_crc32di(c3, load64(p3 + w));
        c4 = __builtin_ia32_crc32di(c4, load64(p4 + w));
        c5 = __builtin_ia32_crc32di(c5, load64(p5 + w));
        c6 = __builtin_ia32_crc32di(c6, load64(p6 + w));
        c7 = __builtin_ia32_crc32di(c7, load64(p7 + w));
    }
    uint64_t c[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
    for (int i = 0; i < 8; i++) {
        uint32_t c32 = (uint32_t)c[i];
        for (size_t b = w; b < len; b++)
            c32 = __builtin_ia32_crc32qi(c32, base[i * stride + b]);
        out[i] = ~c32;
    }
}

/* Two and four streams interleaved, for blocks of fewer sectors than eight
 * (a 1 KiB block has two): each stream's crc32 instructions depend on the
 * one before, so one stream alone waits out the instruction's latency. */
__attribute__((target("sse4.2"))) static void hw_lanes4(const unsigned char *base, size_t stride,
                                                         size_t len, uint32_t *out)
{
    const unsigned char *p0 = base, *p1 = p0 + stride, *p2 = p1 + stride, *p3 = p2 + stride;
    uint64_t c0 = 0xffffffffu, c1 = c0, c2 = c0, c3 = c0;
    size_t w = 0;
    for (; w + 8 <= len; w += 8) {
        c0 = __builtin_ia32_crc32di(c0, load64(p0 + w));
        c1 = __builtin_ia32_crc32di(c1, load64(p1 + w));
        c2 = __builtin_ia32_crc32di(c2, load64(p2 + w));
        c3 = __builtin_ia32_crc32di(c3, load64(p3 + w));
    }
    uint64_t c[4] = {c0, c1, c2, c3};
    for (int i = 0; i < 4; i++) {
        uint32_t c32 = (uint32_t)c[i];
        for (size_t b = w; b < len; b++)
            c32 = __builtin_ia32_crc32qi(c32, base[i * stride + b]);
        out[i] = ~c32;
    }
}

__attribute__((target("sse4.2"))) static void hw_lanes2(const unsigned char *base, size_t stride,
                                                         size_t len, uint32_t *out)
{
    const unsigned char *p0 = base, *p1 = p0 + stride;
    uint64_t c0 = 0xffffffffu, c1 = c0;
    size_t w = 0;
    for (; w + 8 <= len; w += 8) {
        c0 = __builtin_ia32_crc32di(c0, load64(p0 + w));
        c1 = __builtin_ia32_crc32di(c1, load64(p1 + w));
    }
    uint64_t c[2] = {c0, c1};
    for (int i = 0; i < 2; i++) {
        uint32_t c32 = (uint32_t)c[i];
        for (size_t b = w; b < len; b++)
            c32 = __builtin_ia32_crc32qi(c32, base[i * stride + b]);
        out[i] = ~c32;
    }
}
#endif

static int hw_active(void)
{
    return use_hw && !forced_table;
}

uint32_t crc32c(const void *buf, size_t len)
{
#if defined(__x86_64__)
    if (hw_active())
        return ~hw_update(0xffffffffu, buf, len);
#endif
    return ~sw_update(0xffffffffu, buf, len);
}

uint32_t crc32c_extend(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
    if (hw_active())
        return ~hw_update(~crc, buf, len);
#endif
    return ~sw_update(~crc, buf, len);
}

void crc32c_lanes(const void *base, size_t stride, size_t len, size_t n, uint32_t *out)
{
    const unsigned char *p = base;
    size_t i = 0;
#if defined(__x86_64__)
    if (hw_active()) {
        for (; i + 8 <= n; i += 8)
            hw_lanes8(p + i * stride, stride, len, out + i);
        for (; i + 4 <= n; i += 4)
            hw_lanes4(p + i * stride, stride, len, out + i);
        for (; i + 2 <= n; i += 2)
            hw_lanes2(p + i * stride, stride, len, out + i);
    }
#endif
    for (; i < n; i++)
        out[i] = crc32c(p + i * stride, len);
}

const char *crc32c_impl(void)
{
    return hw_active() ? "sse4.2" : "table";
}

void crc32c_force_table(int force)
{
    forced_table = force;
}
