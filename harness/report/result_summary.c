/* result_summary — the lines a run prints when it ends, and the manifest's
 * lines of report.txt (see result_render.h). */
#include "result_render.h"

#include <inttypes.h>
#include <string.h>

#include "../../lib/jread.h"

/* "0.214 s", or "-" for what could not be measured. */
static void fmt_maybe(struct result_time t, char *out, size_t n)
{
    if (t.known)
        snprintf(out, n, "%.3f s", t.s);
    else
        snprintf(out, n, "-");
}

/* "smoke: PASS, 0 findings; 125658 IOPS over 10.0 s" */
static void summary_first_line(const struct result *res, FILE *out)
{
    fprintf(out, "%s: %s", res->scenario, report_verdict_caps(res->verdict));
    uint64_t bad = result_bad(res);
    uint64_t distinct = res->nfindings + res->findings_unlisted;
    char why[4096];
    result_why_not_pass(res, why, sizeof why);
    if (why[0])
        fprintf(out, " (%s)", why);
    else if (res->interrupted) /* a run that found something, then was stopped */
        fprintf(out, " (interrupted by %s)", res->interrupted_by);
    fprintf(out, ", %" PRIu64 " finding%s", distinct, distinct == 1 ? "" : "s");
    bool first = true;
    for (int c = 0; c < RESULT_CLASSES; c++) {
        uint64_t k = 0;
        for (size_t i = 0; i < res->nfindings; i++)
            k += strcmp(res->findings[i].cls, res->class_name[c]) == 0;
        if (!res->class_is_finding[c] || !k)
            continue;
        fprintf(out, "%s%s %" PRIu64, first ? " (" : ", ", res->class_name[c], k);
        first = false;
    }
    if (!first)
        fputc(')', out);
    if (bad != distinct)
        fprintf(out, " in %" PRIu64 " bad reads or I/Os", bad);
    fprintf(out, "; %.0f IOPS over %.1f s%s\n", result_iops(&res->io), result_secs(&res->io),
            res->interrupted ? " (cut short)" : "");
}

void result_summary(const struct result *res, const char *dir, FILE *out)
{
    summary_first_line(res, out);
    if (res->judged && res->nexpect) {
        fprintf(out, "expectations: %zu of %zu hold\n", res->nexpect - res->failed,
                res->nexpect);
        for (size_t i = 0; i < res->nexpect; i++) {
            char line[256];
            if (res->expect[i].pass)
                continue;
            result_expect_describe(&res->expect[i], line, sizeof line);
            fprintf(out, "  FAIL %s\n", line);
        }
    }
    for (size_t i = 0; res->outage && i < res->nfaults; i++) {
        const struct result_fault *x = &res->faults[i];
        if (!x->analysed)
            continue;
        char rec[48];
        if (x->clear_failed)
            snprintf(rec, sizeof rec, "- (its clear failed)");
        else
            fmt_maybe(x->recovery, rec, sizeof rec);
        char heal[48] = "";
        if (x->heal_measured && x->healed)
            snprintf(heal, sizeof heal, ", %sed after %.1f s", x->heal_word, x->heal_s);
        else if (x->heal_measured)
            snprintf(heal, sizeof heal, ", NOT %sed", x->heal_word);
        fprintf(out, "fault %s (%s): stall %.3f s, recovery %s%s, %" PRIu64 " errors\n", x->name,
                x->action, x->stall.s, rec, heal, x->errors);
    }
    if (res->hung)
        fprintf(out, "hung: %" PRIu64 " I/Os outstanding longer than %.1f s\n", res->hung,
                res->hung_after_s);
    fprintf(out, "report: %s/report.txt\n", dir);
    if (strcmp(res->mode, "run") == 0)
        fprintf(out, "plots: %s/report.html\n", dir);
}

static const char *str_at(const struct jv *v, const char *path)
{
    const char *s = jv_str(jv_path(v, path));
    return s ? s : "";
}

/* The string members of an object but those named in skip, "key value"
 * each, sep between them; how many there were. */
static unsigned text_members(FILE *f, const struct jv *obj, const char *const *skip,
                             const char *sep)
{
    unsigned n = 0;
    for (size_t i = 0; obj && obj->type == JV_OBJ && i < obj->n; i++) {
        bool skipped = obj->item[i].type != JV_STR;
        for (const char *const *k = skip; *k && !skipped; k++)
            skipped = strcmp(obj->key[i], *k) == 0;
        if (f && !skipped)
            fprintf(f, "%s%s %s", n ? sep : "", obj->key[i], obj->item[i].str);
        n += !skipped;
    }
    return n;
}

/* The lab's or the real cluster's line, and its options'. */
static void text_storage(FILE *f, const struct jv *target)
{
    static const char *const lab_skip[] = {"kind", NULL};
    static const char *const cluster_skip[] = {"kind", "via", NULL};
    const struct jv *lab = jv_get(target, "lab");
    if (lab) {
        fprintf(f, "    lab        %s%s", str_at(lab, "kind"),
                text_members(NULL, lab, lab_skip, "") ? ": " : "");
        text_members(f, lab, lab_skip, ", ");
        fprintf(f, "\n");
        const struct jv *opt = jv_get(lab, "options");
        if (opt) {
            fprintf(f, "    options    ");
            if (!text_members(f, opt, lab_skip + 1, ", "))
                fprintf(f, "all at their defaults");
            fprintf(f, "\n");
        }
    }
    const struct jv *cl = jv_get(target, "cluster");
    if (cl) {
        fprintf(f, "    cluster    %s, asked %s%s", str_at(cl, "kind"), str_at(cl, "via"),
                text_members(NULL, cl, cluster_skip, "") ? ": " : "");
        text_members(f, cl, cluster_skip, ", ");
        fprintf(f, "\n    options    ");
        if (!text_members(f, jv_get(cl, "options"), cluster_skip + 2, ", "))
            fprintf(f, "all at their defaults");
        fprintf(f, "\n");
    }
}

void result_text_manifest(FILE *f, const struct jv *m)
{
    static const char *const target_skip[] = {"kind", NULL};
    if (!m)
        return;
    double mem = 0, cpus = 0, usable = 0;
    jv_num(jv_path(m, "machine.memory_bytes"), &mem);
    jv_num(jv_path(m, "machine.cpus"), &cpus);
    jv_num(jv_path(m, "machine.cpus_usable"), &usable);
    fprintf(f, "\n  manifest:\n");
    fprintf(f, "    faultline  %s; %s; cflags %s; sanitizers %s\n", str_at(m, "faultline.version"),
            str_at(m, "faultline.build_flags.cc"), str_at(m, "faultline.build_flags.cflags"),
            str_at(m, "faultline.build_flags.sanitizers"));
    fprintf(f, "    machine    %s, kernel %s (%s), %.0f CPUs (%.0f usable) %s, %.1f GiB memory\n",
            str_at(m, "machine.hostname"), str_at(m, "machine.kernel"), str_at(m, "machine.arch"),
            cpus, usable, str_at(m, "machine.cpu_model"), mem / (1024.0 * 1024 * 1024));
    const struct jv *target = jv_get(m, "target");
    fprintf(f, "    target     %s: ", str_at(target, "kind"));
    text_members(f, target, target_skip, ", ");
    fprintf(f, "\n");
    text_storage(f, target);
    fprintf(f, "    versions   tgtd %s, glusterfs %s, libiscsi %s, libnl %s\n",
            str_at(m, "versions.tgtd"), str_at(m, "versions.glusterfs"),
            str_at(m, "versions.libiscsi"), str_at(m, "versions.libnl"));
    const struct jv *seed = jv_get(m, "seed");
    fprintf(f, "    scenario   sha256 %s, seed %s\n",
            jv_str(jv_get(m, "scenario_sha256")) ? str_at(m, "scenario_sha256")
                                                 : str_at(m, "scenario_error"),
            seed && seed->type == JV_NUM && seed->str ? seed->str : "0");
    const struct jv *hosts = jv_get(m, "hosts");
    for (size_t i = 0; i < jv_len(hosts); i++) {
        const struct jv *h = jv_at(hosts, i);
        fprintf(f, "    %-10s %s, kernel %s (%s)\n", i ? "" : "hosts", str_at(h, "name"),
                str_at(h, "kernel"), str_at(h, "hostname"));
    }
}
