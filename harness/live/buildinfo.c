/* buildinfo — see buildinfo.h. */
#include "buildinfo.h"

#include <stdio.h>
#include <string.h>

/* The release, for a build outside a git checkout. */
#define FL_RELEASE "0.1.0"

#ifndef FL_VERSION
#define FL_VERSION FL_RELEASE
#endif
#ifndef FL_CC
#define FL_CC "unknown"
#endif
#ifndef FL_CFLAGS
#define FL_CFLAGS "unknown"
#endif

const char *build_version(void)
{
    return FL_VERSION[0] ? FL_VERSION : FL_RELEASE;
}

const char *build_cc(void)
{
    return FL_CC[0] ? FL_CC : "unknown";
}

const char *build_cflags(void)
{
    return FL_CFLAGS;
}

const char *build_sanitizers(void)
{
    static char out[128];
    const char *s = strstr(FL_CFLAGS, "-fsanitize=");
    if (!s) {
#if defined(__SANITIZE_ADDRESS__)
        return "address"; /* flags passed some other way */
#else
        return "off";
#endif
    }
    s += strlen("-fsanitize=");
    snprintf(out, sizeof out, "%.*s", (int)strcspn(s, " "), s);
    return out;
}
