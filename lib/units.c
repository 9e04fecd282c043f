/* units — see units.h. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int parse_count(const char *s, uint64_t *out, char *why, size_t n)
{
    if (!isdigit((unsigned char)*s)) {
        snprintf(why, n, "'%s' is not a whole number", s);
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) {
        snprintf(why, n, "'%s' is not a whole number", s);
        return -1;
    }
    *out = v;
    return 0;
}

int parse_rate(const char *s, uint64_t *out, char *why, size_t n)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0 || !isfinite(v)) {
        snprintf(why, n, "'%s' is not a rate (examples: 10mbit, 500kbit, 1gbit)", s);
        return -1;
    }
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double bits;
    } units[] = {{"bit", 1},     {"kbit", 1e3},   {"mbit", 1e6},   {"gbit", 1e9},
                 {"bps", 8},     {"kbps", 8e3},   {"mbps", 8e6},   {"gbps", 8e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].suffix) != 0)
            continue;
        double bits = v * units[i].bits;
        if (bits < 8000 || bits > 1e12) {
            snprintf(why, n, "'%s' is out of range (8kbit to 1000gbit)", s);
            return -1;
        }
        *out = (uint64_t)bits;
        return 0;
    }
    snprintf(why, n, "unknown rate unit in '%s' (use kbit, mbit, gbit, or kbps, mbps for bytes)",
             s);
    return -1;
}

int parse_size(const char *s, uint64_t *out, char *why, size_t n)
{
    if (!isdigit((unsigned char)*s)) {
        snprintf(why, n, "'%s' is not a size (examples: 4KiB, 64MiB, 1GiB, 512)", s);
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) {
        snprintf(why, n, "'%s' is too large", s);
        return -1;
    }
    static const struct {
        const char *suffix;
        int shift;
    } units[] = {{"", 0},    {"b", 0},    {"k", 10},   {"kb", 10}, {"kib", 10},
                 {"m", 20},  {"mb", 20},  {"mib", 20}, {"g", 30},  {"gb", 30},
                 {"gib", 30}, {"t", 40},  {"tb", 40},  {"tib", 40}};
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].suffix) != 0)
            continue;
        if (units[i].shift && v > (UINT64_MAX >> units[i].shift)) {
            snprintf(why, n, "'%s' is too large", s);
            return -1;
        }
        *out = (uint64_t)v << units[i].shift;
        return 0;
    }
    snprintf(why, n, "unknown size unit in '%s' (use B, KiB, MiB, GiB or TiB)", s);
    return -1;
}

int parse_duration(const char *s, uint64_t *ns, char *why, size_t n)
{
    if (!isdigit((unsigned char)*s) && *s != '.') {
        snprintf(why, n, "'%s' is not a duration (examples: 10s, 500ms, 2m)", s);
        return -1;
    }
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || !isfinite(v) || v < 0) {
        snprintf(why, n, "'%s' is not a duration", s);
        return -1;
    }
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double ns;
    } units[] = {{"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1},
                 {"m", 60e9}, {"min", 60e9}, {"h", 3600e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        double t = v * units[i].ns;
        if (t > 1e18) {
            snprintf(why, n, "'%s' is too long", s);
            return -1;
        }
        *ns = (uint64_t)llround(t);
        return 0;
    }
    snprintf(why, n, "unknown time unit in '%s' (use ms, s, m or h)", s);
    return -1;
}

int parse_percent(const char *s, unsigned *out, char *why, size_t n)
{
    char buf[32];
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof buf) {
        snprintf(why, n, "'%s' is not a percentage", s);
        return -1;
    }
    memcpy(buf, s, len + 1);
    if (buf[len - 1] == '%')
        buf[--len] = '\0';
    uint64_t v;
    if (parse_count(buf, &v, why, n) != 0 || v > 100) {
        snprintf(why, n, "'%s' is not a percentage from 0 to 100", s);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

int parse_bool(const char *s, bool *out, char *why, size_t n)
{
    static const char *yes[] = {"yes", "true", "on", "1"}, *no[] = {"no", "false", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    snprintf(why, n, "'%s' is not yes or no", s);
    return -1;
}

void format_size(uint64_t bytes, char *out, size_t n)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(out, n, "%llu %s", (unsigned long long)bytes, names[u]);
}

void format_duration(uint64_t ns, char *out, size_t n)
{
    if (ns % 1000000000ull == 0)
        snprintf(out, n, "%llus", (unsigned long long)(ns / 1000000000ull));
    else if (ns % 1000000ull == 0)
        snprintf(out, n, "%llums", (unsigned long long)(ns / 1000000ull));
    else
        snprintf(out, n, "%lluns", (unsigned long long)ns);
}
