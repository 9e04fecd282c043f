/*
 * dispatch — a fault applied here (fault_via_local): the timeline's calls
 * go to the fault's family, its undo records written ahead; and the
 * questions about a fault that its transport answers (runtime.h).
 */
#include "runtime.h"

#include <stdio.h>

#include "../lib/clock.h"

static int local_prepare(struct fault *f, char *err, size_t errlen)
{
    return f->ops->prepare ? f->ops->prepare(f, err, errlen) : 0;
}

static int local_arm(struct fault *f, uint64_t at, uint64_t clear_at, char *err, size_t errlen)
{
    (void)at;
    (void)clear_at;
    return fault_write_undo(f, err, errlen);
}

static int local_inject(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    f->effect_ns = 0;
    int rc = f->ops->inject(f, err, errlen);
    *when = f->effect_ns ? f->effect_ns : mono_ns();
    return rc;
}

static int local_clear(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    f->effect_ns = 0;
    int rc = f->ops->clear ? f->ops->clear(f, err, errlen) : fault_undo_all(f, err, errlen);
    *when = f->effect_ns ? f->effect_ns : mono_ns();
    return rc;
}

static void local_describe(const struct fault *f, char *out, size_t n)
{
    out[0] = '\0';
    if (f->ops->describe)
        f->ops->describe(f, out, n);
}

static unsigned local_overwrote(const struct fault *f, const uint64_t (**ranges)[2],
                                bool *on_target)
{
    return f->ops->overwrote ? f->ops->overwrote(f, ranges, on_target) : 0;
}

const struct fault_via fault_via_local = {
    .transport = "local",
    .prepare = local_prepare,
    .arm = local_arm,
    .inject = local_inject,
    .clear = local_clear,
    .describe = local_describe,
    .overwrote = local_overwrote,
};

unsigned fault_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target)
{
    *on_target = false;
    if (f->remote) /* its state is the connection's: the agent said */
        return f->via->overwrote(f, ranges, on_target);
    return local_overwrote(f, ranges, on_target);
}
