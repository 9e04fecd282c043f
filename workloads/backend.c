/* backend — the table of known backends, one line each; see backend.h. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

/* Every target kind, one line each, in the order of the reference. */
#define KINDS(X)                                                                               \
    X(backend_file_ops)                                                                        \
    X(backend_blockdev_ops)                                                                    \
    X(backend_iscsi_ops)                                                                       \
    X(backend_files_ops)                                                                       \
    /* one line per target kind, each ending in a backslash */

#define DECLARE(ops) extern const struct backend_ops ops;
KINDS(DECLARE)
#define ENTRY(ops) &ops,
static const struct backend_ops *const all[] = {KINDS(ENTRY)};

const struct backend_ops *backend_find(const char *kind)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->kind, kind) == 0)
            return all[i];
    return NULL;
}

unsigned backend_all(const struct backend_ops *const **out)
{
    *out = all;
    return sizeof all / sizeof all[0];
}

const char *backend_kinds(void)
{
    static char text[256];
    if (!text[0]) {
        size_t used = 0;
        for (size_t i = 0; i < sizeof all / sizeof all[0] && used < sizeof text; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? ", " : "",
                                     all[i]->kind);
    }
    return text;
}

void io_stats_sum(struct io_stats *to, const struct io_stats *s)
{
    to->reads += s->reads;
    to->writes += s->writes;
    to->flushes += s->flushes;
    to->bytes_read += s->bytes_read;
    to->bytes_written += s->bytes_written;
    to->errors += s->errors;
    if (s->ns > to->ns)
        to->ns = s->ns;
    if (s->lat_max_ns > to->lat_max_ns)
        to->lat_max_ns = s->lat_max_ns;
}

void io_stats_add(struct io_stats *s, const struct io *io)
{
    uint64_t lat = io->t_done > io->t_submit ? io->t_done - io->t_submit : 0;
    if (lat > s->lat_max_ns)
        s->lat_max_ns = lat;
    if (io->result < 0) {
        s->errors++;
        return;
    }
    switch (io->op) {
    case IO_READ:
        s->reads++;
        s->bytes_read += (uint64_t)io->result;
        break;
    case IO_WRITE:
        s->writes++;
        s->bytes_written += (uint64_t)io->result;
        break;
    case IO_FLUSH:
        s->flushes++;
        break;
    }
}
