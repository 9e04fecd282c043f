/* selfid — see selfid.h. */
#include "selfid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sha256.h"

unsigned char *self_image(size_t *size, char *err, size_t errlen)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read our own executable: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    unsigned char *buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0) {
            snprintf(err, errlen, "cannot read our own executable: %s",
                     r < 0 ? strerror(errno) : "it got shorter");
            free(buf);
            close(fd);
            return NULL;
        }
        got += (size_t)r;
    }
    close(fd);
    if (!buf)
        snprintf(err, errlen, "out of memory for our own executable");
    *size = got;
    return buf;
}

const char *self_build_id(void)
{
    static char id[SELF_BUILD_ID_LEN + 1];
    if (id[0])
        return id;
    char err[256];
    size_t size;
    unsigned char *img = self_image(&size, err, sizeof err);
    if (!img)
        return "unknown";
    struct sha256 s;
    unsigned char digest[SHA256_BYTES];
    sha256_init(&s);
    sha256_update(&s, img, size);
    sha256_final(&s, digest);
    sha256_hex(digest, id);
    free(img);
    return id;
}

const char *self_machine(void)
{
    static struct utsname u;
    if (!u.machine[0] && uname(&u) != 0)
        snprintf(u.machine, sizeof u.machine, "unknown");
    return u.machine;
}
