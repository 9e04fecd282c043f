/* suite_lab — the lab a suite holds up for its scenarios: brought up for
 * the first scenario that needs it, shared by the next ones that need the
 * same kind with the same settings (brought back to health in between:
 * lab_revive), rebuilt when it cannot be or when the settings differ,
 * replaced by one of another kind.  A lab costs minutes to bring up and a
 * scenario often less to run: a suite that shares its labs is the
 * difference between an hour and three.  See suite.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"
#include "suite_parts.h"

/* Takes down the lab the suite holds, when the suite brought it up (one
 * found up before it started is left as it was), and lets go of it. */
static void drop_lab(struct suite *s, const char *why)
{
    struct suite_lab *L = &s->lab;
    if (!L->lab)
        return;
    char err[512];
    if (L->ours) {
        if (!s->o->quiet)
            fprintf(stderr, "suite: taking the %s lab (prefix %s) down: %s\n", L->lab->kind->name,
                    L->lab->prefix, why);
        uint64_t t0 = mono_ns();
        if (lab_down(L->lab->kind, L->lab->prefix, err, sizeof err) != 0)
            fprintf(stderr, "suite: lab down %s (prefix %s): %s (run `faultline lab down %s "
                    "--prefix %s`)\n", L->lab->kind->name, L->lab->prefix, err,
                    L->lab->kind->name, L->lab->prefix);
        L->down_s += (double)(mono_ns() - t0) / 1e9;
    }
    free(L->lab);
    L->lab = NULL;
    L->ours = false;
}

/* Brings up the lab sc asks for; e->lab_use says `use` ("up", "rebuilt"),
 * or "shared" when it was found up already (not the suite's: it stays up
 * at the end).  0, or -1 with err. */
static int bring_up(struct suite *s, const struct scenario *sc, struct suite_entry *e,
                    const char *use, char *err, size_t errlen)
{
    struct suite_lab *L = &s->lab;
    snprintf(e->lab_use, sizeof e->lab_use, "%s", use); /* also when it fails */
    struct lab *lab = calloc(1, sizeof *lab);
    if (!lab) {
        snprintf(err, errlen, "lab up %s: out of memory", sc->lab->name);
        return -1;
    }
    if (!s->o->quiet)
        fprintf(stderr, "suite: bringing up the %s lab for %s\n", sc->lab->name, e->name);
    bool created = false;
    uint64_t t0 = mono_ns();
    char why[1024];
    if (lab_up(sc->lab, &sc->lab_opts, lab, &created, why, sizeof why) != 0) {
        snprintf(err, errlen, "lab up %s failed: %s", sc->lab->name, why);
        free(lab);
        return -1;
    }
    double t = (double)(mono_ns() - t0) / 1e9;
    L->lab = lab;
    L->ours = created;
    /* The run finds it up by its prefix, and leaves it up. */
    setenv("FAULTLINE_LAB_PREFIX", lab->prefix, 1);
    if (created) {
        L->ups++;
        L->up_s += t;
    } else {
        L->shared++;
        snprintf(e->lab_use, sizeof e->lab_use, "shared");
    }
    if (!e->lab_health[0])
        snprintf(e->lab_health, sizeof e->lab_health, "healthy");
    if (!s->o->quiet)
        fprintf(stderr, "suite: the %s lab (prefix %s) is %s in %.1f s\n", sc->lab->name,
                lab->prefix, created ? "up" : "found up already (left up at the end)", t);
    return 0;
}

/* The lab held up, of sc's kind: shared when its settings are sc's and it
 * is healthy (or made so), else rebuilt. */
static int share_or_rebuild(struct suite *s, const struct scenario *sc, struct suite_entry *e,
                            char *err, size_t errlen)
{
    struct suite_lab *L = &s->lab;
    char differ[256], why[600];
    lab_settings_differ(L->lab, &sc->lab_opts, true, differ, sizeof differ);
    if (differ[0]) {
        snprintf(why, sizeof why, "%s needs other settings (%s)", e->name, differ);
        drop_lab(s, why);
        return bring_up(s, sc, e, "rebuilt", err, errlen);
    }
    enum lab_revival r = lab_revive(sc->lab, L->lab->prefix, e->lab_health, sizeof e->lab_health);
    if (r != LAB_BROKEN) {
        L->shared++;
        snprintf(e->lab_use, sizeof e->lab_use, "shared");
        if (r == LAB_REVIVED && !s->o->quiet)
            fprintf(stderr, "suite: the %s lab: %s\n", sc->lab->name, e->lab_health);
        return 0;
    }
    if (strncmp(e->lab_health, "broken", 6) != 0) { /* "gone: ..." */
        char was[sizeof e->lab_health];
        snprintf(was, sizeof was, "%s", e->lab_health);
        snprintf(e->lab_health, sizeof e->lab_health, "broken: %.1150s", was);
    }
    snprintf(why, sizeof why, "it is %.300s", e->lab_health);
    drop_lab(s, why);
    return bring_up(s, sc, e, "rebuilt", err, errlen);
}

int suite_lab_ready(struct suite *s, const struct scenario *sc, struct suite_entry *e,
                    char *err, size_t errlen)
{
    struct suite_lab *L = &s->lab;
    snprintf(e->lab_use, sizeof e->lab_use, "none");
    if (!sc->lab || sc->nhosts) {
        /* As it is: a lab of its own is its run's to bring up and take down,
         * and would meet ours by the same prefix. */
        if (sc->lab && L->lab && L->lab->kind == sc->lab)
            drop_lab(s, "the next scenario brings up its own");
        return 0;
    }
    snprintf(e->lab, sizeof e->lab, "%s", sc->lab->name);
    int rc;
    if (L->lab && L->lab->kind == sc->lab) {
        rc = share_or_rebuild(s, sc, e, err, errlen);
    } else {
        if (L->lab)
            drop_lab(s, "the next scenario needs another kind");
        rc = bring_up(s, sc, e, "up", err, errlen);
    }
    if (rc == 0) {
        snprintf(e->lab_prefix, sizeof e->lab_prefix, "%s", L->lab->prefix);
        lab_settings_text(L->lab, e->lab_settings, sizeof e->lab_settings);
    }
    return rc;
}

void suite_lab_drop(struct suite *s, const char *why)
{
    drop_lab(s, why);
}

void suite_lab_release(struct suite *s, bool keep)
{
    struct suite_lab *L = &s->lab;
    if (!L->lab)
        return;
    if (L->ours && keep) {
        if (!s->o->quiet)
            fprintf(stderr, "suite: the %s lab (prefix %s) stays up; `faultline lab down %s "
                    "--prefix %s` removes it\n", L->lab->kind->name, L->lab->prefix,
                    L->lab->kind->name, L->lab->prefix);
        free(L->lab);
        L->lab = NULL;
        return;
    }
    drop_lab(s, "the suite is over");
}
