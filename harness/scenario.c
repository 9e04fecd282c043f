/* scenario — see scenario.h.  The tables below and the kinds' own tables
 * are the scenario reference. */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/block.h"
#include "../lib/ini.h"
#include "../lib/errbuf.h"
#include "../lib/units.h"

#define F(field) KEY_FIELD(struct scenario, field)

/* --- the general keys --- */

static const struct key_def scenario_keys[] = {
    {"name", KEY_TEXT, NULL, NULL, F(name), 0, 0,
     "names the run and its directory (default: the file name without .scn)", 0},
    {"description", KEY_TEXT, NULL, NULL, F(description), 0, 0, "one line for the report", 0},
    {"duration", KEY_DURATION, "10s", NULL, F(duration_ns), 1000000, 0,
     "how long the workload runs (then: final flush and a sweep over every written block)", 0},
    {"seed", KEY_COUNT, NULL, NULL, F(seed), 0, 0,
     "seed of the op sequence; the same seed repeats the same ops (default: random, printed "
     "in the report)", KEY_GIVEN(struct scenario, seed_given)},
    {"repeat", KEY_COUNT, "1", NULL, F(repeat), 1, 1000,
     "run the scenario this many times (the lab up once, its health checked in between), each "
     "in DIR/rep-K, then a summary with each metric's distribution (`--repeat N` overrides)",
     0},
    {"journal", KEY_BOOL, "yes", NULL, F(journal), 0, 0,
     "journal write intents so that `faultline verify` works even after a crash", 0},
    {"journal_segment", KEY_SIZE, NULL, NULL, F(journal_segment), 1u << 16, 0,
     "journal size before a state checkpoint starts a new segment (default: 64 MiB or 4 times "
     "the state map, the larger)", 0},
    {"findings_limit", KEY_COUNT, "10000", NULL, F(findings_limit), 1, 0,
     "findings listed in detail (counts always cover all)", 0},
    {"memory_limit", KEY_SIZE, NULL, NULL, F(memory_limit), 1u << 20, 0,
     "memory the state map may use (2 bytes per block); a run whose map would not fit is "
     "refused before it starts (default: 50% of MemAvailable)", 0},
    {"allow_destructive", KEY_BOOL, "no", NULL, F(allow_destructive), 0, 0,
     "corrupt faults may overwrite data (of the target, or of allow_paths)", 0},
    {"allow_paths", KEY_TEXT, NULL, NULL, F(allow_paths), 0, 0,
     "comma-separated files or devices corrupt may write to besides the target", 0},
    {"bucket", KEY_DURATION, "100ms", NULL, F(bucket_ns), 1000000ull, 10000000000ull,
     "width of the time slices completions are counted in (timeline.csv, the plots, the "
     "recovery analysis)", 0},
    {"warmup", KEY_DURATION, "1s", NULL, F(warmup_ns), 0, AT_MOST_A_DAY,
     "the start of the workload left out of the baseline throughput", 0},
    {"heal_wait", KEY_DURATION, "60s", NULL, F(heal_wait_ns), 0, AT_MOST_A_DAY,
     "lab = gluster or ceph, or a [cluster]: after the workload, wait at most this long for the "
     "volume to have "
     "nothing left to heal (heal_s of each fault, expect_heal), the ceph cluster to recover "
     "(recover_s, expect_recover)", 0},
    {"hung_after", KEY_DURATION, "10s", NULL, F(hung_after_ns), 10000000ull, AT_MOST_A_DAY,
     "an I/O outstanding this long is reported as hung (the no-progress watchdog)", 0},
    {"grace", KEY_DURATION, "30s", NULL, F(grace_ns), 100000000ull, AT_MOST_A_DAY,
     "the run ends at its end plus this, with a report, even if the target never answers "
     "again (workers still waiting are left behind)", 0},
    {"lab", KEY_TEXT, "none", NULL, F(lab_name), 0, 0,
     "bring up this embedded lab for the run (and take it down after, unless --keep-lab): none, "
     "or one of the kinds under Labs below; an iscsi target without portals then means the lab "
     "LUN through both controllers, a files target without path the lab's FUSE mount", 0},
};

static const struct key_def target_keys[] = {
    {"kind", KEY_TEXT, NULL, NULL, F(target.kind), 0, 0,
     "file, blockdev, iscsi or files (required)", 0},
    {"path", KEY_TEXT, NULL, NULL, F(target.path), 0, 0,
     "the file or device; for files the directory (any mounted filesystem) the tree "
     "faultline-NAME is made in (required)", 0},
    {"size", KEY_SIZE, NULL, NULL, F(target.size), FL_BLOCK_MIN, 0,
     "bytes to test; a file is created or extended to it (default: the whole device or "
     "existing file); for files the data budget of the tree (default 64MiB)", 0},
    {"sync", KEY_BOOL, "no", NULL, F(target.sync), 0, 0,
     "open with O_DSYNC: every write is durable when it completes", 0},
};

static const struct key_def workload_keys[] = {
    {"block", KEY_SIZE, "4KiB", NULL, F(block), FL_BLOCK_MIN, FL_BLOCK_MAX,
     "block size, 512 B to 1 MiB in steps of 512 B", 0},
    {"pattern", KEY_CHOICE, "random", "random|sequential", F(pattern_choice), 0, 0,
     "which block comes next", 0},
    {"read", KEY_PERCENT, "50%", NULL, F(workload.read_pct), 0, 0,
     "share of reads; every read is verified", 0},
    {"depth", KEY_COUNT, "8", NULL, F(depth), 1, 4096, "reads and writes in flight", 0},
    {"flush", KEY_COUNT, "64", NULL, F(flush), 0, 0,
     "writes between flushes (fdatasync), counted per worker; 0: only at the end of the run", 0},
    {"direct", KEY_BOOL, "no", NULL, F(direct), 0, 0,
     "O_DIRECT for files (block devices always use it)", 0},
    {"engine", KEY_CHOICE, "auto", "auto|io_uring|sync", F(engine_choice), 0, 0,
     "how I/O is issued: io_uring keeps `depth` I/Os in flight from one thread; sync runs one "
     "thread per I/O in flight with pread/pwrite (auto: io_uring with O_DIRECT, sync for "
     "buffered files, where the kernel would hand io_uring's work to helper threads)", 0},
    {"prefill", KEY_BOOL, "no", NULL, F(prefill), 0, 0,
     "write every block once before the timed workload, so that even read = 100% verifies "
     "real data (times of those writes count as 0)", 0},
    {"reread", KEY_PERCENT, "0%", NULL, F(workload.reread_pct), 0, 0,
     "this share of reads goes to a block the same stream wrote in its last 8 writes (read "
     "after write: a write read back while the storage may still be settling it)", 0},
    {"cross_reads", KEY_PERCENT, "0%", NULL, F(workload.cross_pct), 0, 0,
     "a run over several clients (mpirun, or [lab] clients): this share of reads goes to "
     "blocks (or files) another client owns, each checked at the end against the owner's "
     "history: a read that began after the owner's write was acknowledged (for files: "
     "flushed and closed, then opened anew) must return it or newer", 0},
    {"workers", KEY_COUNT, NULL, NULL, F(workers), 1, 256,
     "io_uring (or iscsi) threads sharing `depth`, each owning every workers-th block "
     "(default 1)", 0},
};

static const struct key_def lab_keys[] = {
    {"size", KEY_SIZE, NULL, NULL, KEY_FIELD(struct lab_opts, size), 1u << 20, 0,
     "iscsi: size of the lab LUN (a sparse file shared by both controllers; default 256MiB); "
     "gluster: size of each brick (sparse xfs image, at least 300MiB; default 512MiB)", 0},
    {"control", KEY_CHOICE, "direct", "direct|ssh", KEY_FIELD(struct lab_opts, control), 0, 0,
     "how faults reach the lab's hosts: direct (from here, into their namespaces) or ssh "
     "(through each host's sshd and `faultline agent`, as on a real cluster)", 0},
    {"clients", KEY_COUNT, "1", NULL, KEY_FIELD(struct lab_opts, clients), 1, LAB_MAX_CLIENTS,
     "client hosts: 1 (this namespace is the client), or 2 and more: hosts c1..cN, each a "
     "namespace on the switch with an address of its own, an sshd on a management network "
     "that faults never touch, and (gluster) its own FUSE mount; `faultline run` then starts "
     "one rank in each with mpirun", 0},
    {"lease", KEY_DURATION, "5s", NULL, KEY_FIELD(struct lab_opts, lease_ns), 0, AT_MOST_A_DAY,
     "control = ssh: each host's agent clears a fault by itself this long after its planned "
     "clear (as [host] lease)", 0},
};

static const struct key_def fault_keys[] = {
    {"host", KEY_TEXT, "local", NULL, FAULT_COMMON(host), 0, 0,
     "where: a lab host (each kind's under Labs below; c1..cN with [lab] clients), local, or a "
     "[host NAME]", 0},
    {"at", KEY_DURATION, "0s", NULL, FAULT_COMMON(at_ns), 0, AT_MOST_A_DAY,
     "when, counted from the start of the workload", 0},
    {"loses", KEY_CHOICE, "nothing", "nothing|unflushed", FAULT_COMMON(loses), 0, 0,
     "unflushed: the fault cuts the storage's power, so writes acknowledged but not yet "
     "flushed at its inject may be gone (read back older, they count as `reverted`, not as "
     "lost writes); a flush after it covers none of them", 0},
};

static const struct key_def host_keys[] = {
    {"netns", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, netns), 0, 0,
     "the network namespace the host lives in (default: ours)", 0},
    {"interface", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, interface), 0, 0,
     "its network interface (inside netns)", 0},
    {"switch_port", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, port), 0, 0,
     "the switch (bridge) port facing it, in our namespace", 0},
    {"address", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, address), 0, 0,
     "its IPv4 address (for partitions)", 0},
    {"ssh", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, ssh), 0, 0,
     "[USER@]ADDRESS[:PORT]: a machine reached over OpenSSH; its faults run there, through "
     "`faultline agent` (copied over when missing)", 0},
    {"ssh_identity", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, via.identity), 0, 0,
     "ssh: the private key (ssh -i)", 0},
    {"ssh_known_hosts", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, via.known_hosts), 0,
     0, "ssh: a known_hosts file (host keys are then checked strictly)", 0},
    {"ssh_options", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, via.options), 0, 0,
     "ssh: more options for ssh, as words (-o ProxyJump=bastion); ~/.ssh/config applies too",
     0},
    {"sudo", KEY_BOOL, "no", NULL, KEY_FIELD(struct host_spec, via.sudo), 0, 0,
     "ssh: start the agent through sudo -n", 0},
    {"agent_dir", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, via.agent_dir), 0, 0,
     "ssh: where the agent lives on the host (default /var/lib/faultline-agent for root and "
     "sudo, else ~/.faultline-agent); refused unless only its user or root can write to it "
     "and to every directory above it", 0},
    {"lease", KEY_DURATION, "5s", NULL, KEY_FIELD(struct host_spec, via.lease_ns), 0,
     AT_MOST_A_DAY,
     "ssh: the agent clears a fault by itself this long after its planned clear, whatever "
     "happened to us or the network", 0},
    {"restart", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, restart), 0, 0,
     "the command that starts its service again (restart, kill restart_after), run on the "
     "host: systemctl start tgt", 0},
    {"switch", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, switch_host), 0, 0,
     "the [host] of the Linux switch that holds its switch_port (port-down, port-flap, "
     "switch-down, bandwidth direction = in run there)", 0},
};

static const struct key_def cluster_keys[] = {
    {"kind", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, kind_name), 0, 0,
     "gluster or ceph: the real storage the run is against (required); the run then measures "
     "each fault's heal_s (gluster) or recover_s (ceph), waits heal_wait for it after the "
     "workload, describes the storage and its options in the manifest and (ceph) reports the "
     "monitors' MDS and OSD events, as with a lab", 0},
    {"volume", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, volume), 0, 0,
     "gluster: the volume (required); ceph: the CephFS filesystem (default: the cluster's)", 0},
    {"via", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, via), 0, 0,
     "the [host NAME] (with ssh) on which the storage's own CLI is asked, as an operator there "
     "would type it (through sudo -n with sudo = yes): a server of the cluster (required)", 0},
};

/* --- the sections, and every table of keys each may hold --- */

enum section_type {
    S_SCENARIO, S_TARGET, S_WORKLOAD, S_LAB, S_EXPECT, S_FAULT, S_HOST, S_CLUSTER, S_COUNT
};

static const char *const section_names[S_COUNT] = {"scenario", "target", "workload", "lab",
                                                   "expect",   "fault",  "host",     "cluster"};

static int section_of(const char *type)
{
    for (int t = 0; t < S_COUNT; t++)
        if (strcmp(section_names[t], type) == 0)
            return t;
    return -1;
}

/* The general keys of a section. */
static struct key_table general_keys(int section)
{
    switch (section) {
    case S_SCENARIO:
        return (struct key_table)KEY_TABLE(scenario_keys);
    case S_TARGET:
        return (struct key_table)KEY_TABLE(target_keys);
    case S_WORKLOAD:
        return (struct key_table)KEY_TABLE(workload_keys);
    case S_LAB:
        return (struct key_table)KEY_TABLE(lab_keys);
    case S_FAULT:
        return (struct key_table)KEY_TABLE(fault_keys);
    case S_HOST:
        return (struct key_table)KEY_TABLE(host_keys);
    case S_CLUSTER:
        return (struct key_table)KEY_TABLE(cluster_keys);
    }
    return (struct key_table){NULL, 0};
}

/* A kind's own keys in a section: the i-th target kind, lab kind or fault
 * family (false past the last), with its name. */
static bool kind_keys(int section, unsigned i, struct key_table *t, const char **owner)
{
    const struct backend_ops *const *b;
    const struct lab_kind *const *l;
    const struct fault_ops *const *f;
    if (section == S_TARGET || section == S_WORKLOAD) {
        if (i >= backend_all(&b))
            return false;
        *t = section == S_TARGET ? b[i]->target_keys : b[i]->workload_keys;
        *owner = b[i]->kind;
    } else if (section == S_LAB) {
        if (i >= lab_kinds_all(&l))
            return false;
        *t = l[i]->keys;
        *owner = l[i]->name;
    } else if (section == S_FAULT) {
        if (i >= fault_families(&f))
            return false;
        *t = (struct key_table){f[i]->keys, f[i]->nkeys};
        *owner = f[i]->action;
    } else {
        return false;
    }
    return true;
}

/* The kinds that declare key in a section: "iscsi" or "iscsi, files";
 * the first one's definition in *def.  "" when none does. */
static void owners_of(int section, const char *key, char *out, size_t n,
                      const struct key_def **def)
{
    struct key_table t;
    const char *owner;
    size_t used = 0;
    out[0] = '\0';
    *def = NULL;
    for (unsigned i = 0; kind_keys(section, i, &t, &owner) && used < n; i++) {
        const struct key_def *k = key_find(t.keys, t.n, key);
        if (!k)
            continue;
        if (!*def)
            *def = k;
        used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "", owner);
    }
}

/* "; did you mean 'block'? (known keys: a, b, c)" over every key a section
 * may hold. */
static void unknown_key_hint(int section, const char *key, char *out, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3, used = 0;
    char known[1024] = "", seen[1024] = " ";
    struct key_table t = general_keys(section);
    const char *owner;
    for (unsigned k = 0;; k++) {
        for (unsigned i = 0; i < t.n; i++) {
            const char *name = t.keys[i].name;
            char word[48];
            snprintf(word, sizeof word, " %s ", name);
            if (strstr(seen, word))
                continue; /* a key several kinds share */
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", name);
            size_t d = key_distance(key, name);
            if (d < bestd) {
                bestd = d;
                best = name;
            }
            used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0,
                                     "%s%s", used ? ", " : "", name);
        }
        if (!kind_keys(section, k, &t, &owner))
            break;
    }
    if (best)
        snprintf(out, n, "; did you mean '%s'? (known keys: %s)", best, known);
    else
        snprintf(out, n, " (known keys: %s)", known);
}

/* --- expectations --- */

/* "; did you mean 'max_stall'? (known: ...)" for a metric name. */
static void unknown_metric_hint(const char *name, bool fault, char *out, size_t n)
{
    char best[48] = "", known[768] = "";
    size_t bestd = 3, used = 0;
    for (int i = 0; i < METRIC_COUNT; i++) {
        if (metric_table[i].scope != (fault ? SCOPE_FAULT : SCOPE_RUN))
            continue;
        char full[48];
        snprintf(full, sizeof full, "%s%s", fault ? "expect_" : "", metric_table[i].name);
        size_t d = key_distance(name, full);
        if (d < bestd) {
            bestd = d;
            snprintf(best, sizeof best, "%s", full);
        }
        used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0,
                                 "%s%s", used ? ", " : "", full);
    }
    if (best[0])
        snprintf(out, n, "; did you mean '%s'? (known: %s)", best, known);
    else
        snprintf(out, n, " (known: %s)", known);
}

/* One line of [expect] (fault < 0) or an expect_* key of a fault. */
static int add_expectation(const struct ini *ini, struct scenario *sc, int fault,
                           const struct ini_entry *e, char *err, size_t n)
{
    char name[64];
    enum dist_stat stat = expect_split_stat(fault >= 0 ? e->key + 7 : e->key, name, sizeof name);
    enum metric_scope scope = fault >= 0 ? SCOPE_FAULT : SCOPE_RUN;
    int m = metric_find(scope, name);
    if (m < 0 && stat != DS_NONE) { /* a metric whose own name ends so ("max_latency_max") */
        stat = DS_NONE;
        snprintf(name, sizeof name, "%s", fault >= 0 ? e->key + 7 : e->key);
        m = metric_find(scope, name);
    }
    if (m < 0) {
        char hint[1200];
        unknown_metric_hint(e->key, fault >= 0, hint, sizeof hint);
        snprintf(err, n, "%s:%d: unknown %s '%s'%s", ini->file, e->line,
                 fault >= 0 ? "fault expectation" : "metric in [expect]", e->key, hint);
        return -1;
    }
    if (sc->nexpects == FL_MAX_EXPECTS) {
        snprintf(err, n, "%s:%d: at most %d expectations", ini->file, e->line, FL_MAX_EXPECTS);
        return -1;
    }
    struct expect_rule *x = &sc->expects[sc->nexpects];
    memset(x, 0, sizeof *x);
    x->metric = m;
    x->fault = fault;
    x->line = e->line;
    x->stat = stat;
    if (fault < 0 && m == M_PASS_RATE && stat != DS_NONE) {
        snprintf(err, n, "%s:%d: %s: pass_rate is one number over the repetitions; it has no "
                 "%s", ini->file, e->line, e->key, dist_stat_names[stat]);
        return -1;
    }
    if (expect_op_parse(e->op, &x->op) != 0) {
        snprintf(err, n, "%s:%d: %s: '%s' is not a comparison (=, <, <=, >, >=)", ini->file,
                 e->line, e->key, e->op);
        return -1;
    }
    char why[256];
    uint64_t u;
    if (expect_metric(x)->unit == UNIT_SECONDS) {
        if (parse_duration(e->value, &u, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s: %s (a duration: 500ms, 20s)", ini->file, e->line,
                     e->key, why);
            return -1;
        }
        x->value = (double)u / 1e9;
    } else if (expect_metric(x)->unit == UNIT_PERCENT) {
        char *end;
        double pct = strtod(e->value, &end);
        if (end == e->value || strcmp(end, "%") != 0 || pct < 0 || pct > 100) {
            snprintf(err, n, "%s:%d: %s: '%s' is not a percentage from 0%% to 100%%", ini->file,
                     e->line, e->key, e->value);
            return -1;
        }
        x->value = pct;
    } else if (stat == DS_MEAN || stat == DS_SD) { /* a mean of counts need not be whole */
        char *end;
        double v = strtod(e->value, &end);
        if (end == e->value || *end || v < 0) {
            snprintf(err, n, "%s:%d: %s: '%s' is not a number", ini->file, e->line, e->key,
                     e->value);
            return -1;
        }
        x->value = v;
    } else {
        if (parse_count(e->value, &u, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s: %s (a count)", ini->file, e->line, e->key, why);
            return -1;
        }
        x->value = (double)u;
    }
    snprintf(x->text, sizeof x->text, "%s %s %s", e->key, expect_op_text(x->op), e->value);
    sc->nexpects++;
    return 0;
}

/* --- every mistake, not only the first --- */

/* The mistakes found so far, one "file:line: why" per line (the first
 * SCENARIO_MAX_ERRORS of them, then how many more). */
struct errlist {
    char *out;
    size_t cap, len;
    unsigned n;
};

static void note(struct errlist *e, const char *msg)
{
    e->n++;
    if (e->n > SCENARIO_MAX_ERRORS || e->len + 1 >= e->cap)
        return;
    int w = snprintf(e->out + e->len, e->cap - e->len, "%s%s", e->len ? "\n" : "", msg);
    e->len = w < 0 ? e->len : e->len + (size_t)w >= e->cap ? e->cap - 1 : e->len + (size_t)w;
}

/* The list into err; -1 when it holds anything. */
static int noted(struct errlist *e)
{
    if (e->n > SCENARIO_MAX_ERRORS && e->len + 1 < e->cap)
        snprintf(e->out + e->len, e->cap - e->len, "\n(and %u more mistakes)",
                 e->n - SCENARIO_MAX_ERRORS);
    return e->n ? -1 : 0;
}

/* --- binding sections to fields --- */

/* What binding needs beyond the scenario: the file, and the entries that
 * belong to a kind not known yet (bound once [target] kind and [scenario]
 * lab are). */
struct binding {
    const struct ini *ini;
    struct scenario *sc;
    struct errlist *errs; /* every mistake found, for `faultline check` */
    const struct ini_entry *deferred[256];
    int deferred_section[256];
    unsigned ndeferred;
};

static int set_key(const struct binding *b, void *base, const struct key_def *k,
                   const struct ini_entry *e, char *err, size_t n)
{
    char why[300];
    if (key_set(base, k, e->value, why, sizeof why) != 0) {
        snprintf(err, n, "%s:%d: %s: %s", b->ini->file, e->line, e->key, why);
        return -1;
    }
    return 0;
}

/* Mistakes every entry of a section can make: a comparison outside
 * [expect], a key given twice. */
static int plain_entry(const struct binding *b, const struct ini_section *s, size_t k, char *err,
                       size_t n)
{
    const struct ini_entry *e = &s->entries[k];
    if (strcmp(e->op, "=") != 0) {
        snprintf(err, n, "%s:%d: %s %s %s: only [expect] and expect_* keys compare; set it with "
                 "'='", b->ini->file, e->line, e->key, e->op, e->value);
        return -1;
    }
    for (size_t p = 0; p < k; p++)
        if (strcmp(s->entries[p].key, e->key) == 0) {
            snprintf(err, n, "%s:%d: '%s' is set twice in [%s] (first at line %d)", b->ini->file,
                     e->line, e->key, s->type, s->entries[p].line);
            return -1;
        }
    return 0;
}

static int unknown_key(const struct binding *b, int section, const struct ini_entry *e,
                       char *err, size_t n)
{
    char hint[1400];
    unknown_key_hint(section, e->key, hint, sizeof hint);
    snprintf(err, n, "%s:%d: unknown key '%s' in [%s]%s", b->ini->file, e->line, e->key,
             section_names[section], hint);
    return -1;
}

/* Where a kind's key is parsed to check its value before its kind is known
 * (the parser runs on one thread). */
static struct scenario scratch;

/* The block of memory a general key of a section fills. */
static void *general_base(struct scenario *sc, int section)
{
    return section == S_LAB ? (void *)&sc->lab_opts
           : section == S_CLUSTER ? (void *)&sc->cluster
                                  : (void *)sc;
}

/* [scenario], [target], [workload], [lab]: the general keys now, a kind's
 * own keys once the kinds are known. */
static int bind_plain(struct binding *b, int section, const struct ini_section *s, char *err,
                      size_t n)
{
    struct key_table general = general_keys(section);
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (plain_entry(b, s, k, err, n) != 0) {
            note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(general.keys, general.n, e->key);
        if (def) {
            if (set_key(b, general_base(b->sc, section), def, e, err, n) != 0)
                note(b->errs, err);
            continue;
        }
        char owners[256];
        owners_of(section, e->key, owners, sizeof owners, &def);
        if (!def) {
            unknown_key(b, section, e, err, n);
            note(b->errs, err);
            continue;
        }
        /* Its value is checked now, whatever kind it turns out to be for. */
        if (set_key(b, section == S_LAB ? (void *)&scratch.lab_opts : (void *)&scratch.target, def,
                    e, err, n) != 0) {
            note(b->errs, err);
            continue;
        }
        if (b->ndeferred == sizeof b->deferred / sizeof b->deferred[0]) {
            snprintf(err, n, "%s:%d: too many keys", b->ini->file, e->line);
            note(b->errs, err);
            break;
        }
        b->deferred_section[b->ndeferred] = section;
        b->deferred[b->ndeferred++] = e;
    }
    return b->errs->n > before ? -1 : 0;
}

/* A kind's key, once the kinds are known: into the chosen kind's options;
 * for another kind, checked and refused, naming the kinds it is for. */
static int bind_deferred(struct binding *b, int section, const struct ini_entry *e, char *err,
                         size_t n)
{
    struct scenario *sc = b->sc;
    bool lab = section == S_LAB;
    struct key_table mine = {NULL, 0};
    if (lab && sc->lab)
        mine = sc->lab->keys;
    else if (!lab && sc->backend)
        mine = section == S_TARGET ? sc->backend->target_keys : sc->backend->workload_keys;
    const struct key_def *def = key_find(mine.keys, mine.n, e->key);
    void *base = lab ? (void *)&sc->lab_opts : (void *)&sc->target;
    if (def)
        return set_key(b, base, def, e, err, n);
    char owners[256];
    owners_of(section, e->key, owners, sizeof owners, &def);
    snprintf(err, n, "%s:%d: %s: only for %s = %s", b->ini->file, e->line, e->key,
             lab ? "lab" : "kind", owners);
    return -1;
}

/* [fault NAME]: its action first, then every key against the action's
 * family. */
static int bind_fault(struct binding *b, const struct ini_section *s, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    const char *file = b->ini->file;
    for (unsigned i = 0; i < sc->nfaults; i++)
        if (strcmp(sc->faults[i].name, s->name) == 0) {
            snprintf(err, n, "%s:%d: a second [fault %s] (the first is at line %d)", file,
                     s->line, s->name, sc->faults[i].line);
            note(b->errs, err);
            return -1;
        }
    if (sc->nfaults == FL_MAX_FAULTS) {
        snprintf(err, n, "%s:%d: at most %d faults", file, s->line, FL_MAX_FAULTS);
        note(b->errs, err);
        return -1;
    }
    struct fault_spec *f = &sc->faults[sc->nfaults++];
    memset(f, 0, sizeof *f);
    f->line = f->at_line = s->line;
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->entries[k].key, "at") == 0)
            f->at_line = s->entries[k].line;
    snprintf(f->name, sizeof f->name, "%s", s->name);
    const struct ini_entry *action = NULL;
    for (size_t k = 0; k < s->n && !action; k++)
        if (strcmp(s->entries[k].key, "action") == 0)
            action = &s->entries[k];
    if (!action) {
        snprintf(err, n, "%s:%d: [fault %s] needs action (%s)", file, s->line, f->name,
                 fault_actions());
        note(b->errs, err);
        sc->nfaults--; /* nothing of it can be checked further */
        return -1;
    }
    if (!(f->ops = fault_ops_find(action->value))) {
        snprintf(err, n, "%s:%d: action: '%s' is not one of %s", file, action->line,
                 action->value, fault_actions());
        note(b->errs, err);
        sc->nfaults--;
        return -1;
    }
    struct key_table common = general_keys(S_FAULT);
    if (key_defaults(f, common.keys, common.n, err, n) != 0 ||
        key_defaults(f, f->ops->keys, f->ops->nkeys, err, n) != 0) {
        note(b->errs, err);
        return -1;
    }
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (e == action)
            continue;
        if (strncmp(e->key, "expect_", 7) == 0) {
            if (add_expectation(b->ini, sc, (int)sc->nfaults - 1, e, err, n) != 0)
                note(b->errs, err);
            continue;
        }
        if (plain_entry(b, s, k, err, n) != 0) {
            note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(common.keys, common.n, e->key);
        if (!def)
            def = key_find(f->ops->keys, f->ops->nkeys, e->key);
        if (def) {
            if (set_key(b, f, def, e, err, n) != 0)
                note(b->errs, err);
            continue;
        }
        char owners[256], takes[512];
        owners_of(S_FAULT, e->key, owners, sizeof owners, &def);
        if (!def) {
            unknown_key(b, S_FAULT, e, err, n);
        } else {
            fault_keys_text(f->ops, takes, sizeof takes);
            snprintf(err, n, "%s:%d: '%s' does not apply to action %s (it takes:%s)", file,
                     e->line, e->key, f->ops->action, takes);
        }
        note(b->errs, err);
    }
    return b->errs->n > before ? -1 : 0;
}

/* Whether text may go into the agent's shell script and undo record as
 * it is (no quoting there). */
static bool plain_path(const char *t)
{
    return strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") ==
           strlen(t);
}

/* The ssh keys of a [host]: ssh parsed into dest and port; the others only
 * with it. */
static int check_host_ssh(const char *file, const struct ini_section *s, struct host_spec *h,
                          char *err, size_t n)
{
    struct ssh_dest *d = &h->via;
    const char *need = d->identity[0] ? "ssh_identity" : d->known_hosts[0] ? "ssh_known_hosts"
                       : d->options[0] ? "ssh_options" : d->agent_dir[0] ? "agent_dir"
                       : d->sudo ? "sudo" : NULL;
    if (!h->ssh[0] && !need && h->restart[0])
        need = "restart"; /* started again by the host's agent */
    if (!h->ssh[0]) {
        if (need) {
            snprintf(err, n, "%s:%d: [host %s] %s needs ssh = [USER@]ADDRESS[:PORT]", file,
                     s->line, h->name, need);
            return -1;
        }
        return 0;
    }
    char text[160];
    snprintf(text, sizeof text, "%s", h->ssh);
    char *at = strrchr(text, '@'), *colon = strrchr(text, ':');
    if (colon && (!at || colon > at)) {
        char *end;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (*end || !port || port > 65535) {
            snprintf(err, n, "%s:%d: [host %s] ssh: '%s' is not a port (1..65535)", file,
                     s->line, h->name, colon + 1);
            return -1;
        }
        d->port = port;
        *colon = '\0';
    }
    if (!text[0] || (at && !at[1]) || strchr(text, ' ') || strchr(text, '|')) {
        snprintf(err, n, "%s:%d: [host %s] ssh: '%s' is not [USER@]ADDRESS[:PORT]", file,
                 s->line, h->name, h->ssh);
        return -1;
    }
    if (strlen(text) >= sizeof d->dest) {
        snprintf(err, n, "%s:%d: [host %s] ssh: longer than %zu characters", file, s->line,
                 h->name, sizeof d->dest - 1);
        return -1;
    }
    memcpy(d->dest, text, strlen(text) + 1);
    const char *paths[] = {d->identity, d->known_hosts, d->agent_dir};
    const char *names[] = {"ssh_identity", "ssh_known_hosts", "agent_dir"};
    for (int i = 0; i < 3; i++)
        if (!plain_path(paths[i])) {
            snprintf(err, n, "%s:%d: [host %s] %s: '%s' may hold only letters, digits and "
                     "/._-+", file, s->line, h->name, names[i], paths[i]);
            return -1;
        }
    if (strchr(d->options, '\'') || strchr(d->options, '|')) {
        snprintf(err, n, "%s:%d: [host %s] ssh_options: no quotes or '|' (give options as "
                 "plain words)", file, s->line, h->name);
        return -1;
    }
    return 0;
}

/* [host NAME] */
static int bind_host(struct binding *b, const struct ini_section *s, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    for (unsigned i = 0; i < sc->nhosts; i++)
        if (strcmp(sc->hosts[i].name, s->name) == 0) {
            snprintf(err, n, "%s:%d: a second [host %s] (the first is at line %d)", b->ini->file,
                     s->line, s->name, sc->hosts[i].line);
            note(b->errs, err);
            return -1;
        }
    if (sc->nhosts == FL_MAX_HOSTS) {
        snprintf(err, n, "%s:%d: at most %d hosts", b->ini->file, s->line, FL_MAX_HOSTS);
        note(b->errs, err);
        return -1;
    }
    struct host_spec *h = &sc->hosts[sc->nhosts++];
    memset(h, 0, sizeof *h);
    h->line = s->line;
    snprintf(h->name, sizeof h->name, "%s", s->name);
    struct key_table keys = general_keys(S_HOST);
    if (key_defaults(h, keys.keys, keys.n, err, n) != 0) {
        note(b->errs, err);
        return -1;
    }
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (plain_entry(b, s, k, err, n) != 0) {
            note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(keys.keys, keys.n, e->key);
        if (!def) {
            unknown_key(b, S_HOST, e, err, n);
            note(b->errs, err);
        } else if (set_key(b, h, def, e, err, n) != 0) {
            note(b->errs, err);
        }
    }
    if (b->errs->n > before)
        return -1; /* the ssh keys are checked together once each is good */
    if (check_host_ssh(b->ini->file, s, h, err, n) != 0) {
        note(b->errs, err);
        return -1;
    }
    return 0;
}

/* Which sections there are, named or not, each once. */
static int check_section(const struct ini *ini, size_t i, int *type, char *err, size_t n)
{
    const struct ini_section *s = &ini->sections[i];
    *type = section_of(s->type);
    if (*type < 0) {
        snprintf(err, n, "%s:%d: unknown section [%s] (known: scenario, target, workload, lab, "
                 "expect, fault NAME, host NAME, cluster)", ini->file, s->line, s->type);
        return -1;
    }
    bool named = *type == S_FAULT || *type == S_HOST;
    if (s->name && !named && *type != S_WORKLOAD) {
        snprintf(err, n, "%s:%d: [%s] takes no name", ini->file, s->line, s->type);
        return -1;
    }
    if (named && !s->name) {
        snprintf(err, n, "%s:%d: [%s] needs a name: [%s NAME]", ini->file, s->line, s->type,
                 s->type);
        return -1;
    }
    for (size_t j = 0; j < i && !named; j++)
        if (strcmp(ini->sections[j].type, s->type) == 0) {
            snprintf(err, n, "%s:%d: a second [%s] section (the first is at line %d); one %s per "
                     "scenario", ini->file, s->line, s->type, ini->sections[j].line, s->type);
            return -1;
        }
    return 0;
}

/* Every section, going on past each mistake (the sections after it are
 * checked too); -1 when there was any (b->errs has them all). */
static int bind_sections(struct binding *b, char *err, size_t n)
{
    const struct ini *ini = b->ini;
    unsigned before = b->errs->n;
    for (size_t i = 0; i < ini->n; i++) {
        const struct ini_section *s = &ini->sections[i];
        int type;
        if (check_section(ini, i, &type, err, n) != 0) {
            note(b->errs, err);
            continue;
        }
        /* each binder notes its own mistakes and goes on */
        if (type == S_FAULT)
            bind_fault(b, s, err, n);
        else if (type == S_HOST)
            bind_host(b, s, err, n);
        else if (type == S_EXPECT)
            for (size_t k = 0; k < s->n; k++) {
                if (add_expectation(ini, b->sc, -1, &s->entries[k], err, n) != 0)
                    note(b->errs, err);
            }
        else
            bind_plain(b, type, s, err, n);
    }
    return b->errs->n > before ? -1 : 0;
}

/* --- the whole scenario --- */

/* Line of key in the first section of that type (the section's line when the
 * key is absent), for messages about combinations. */
static int line_of(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++) {
        if (strcmp(ini->sections[i].type, section) != 0)
            continue;
        for (size_t k = 0; key && k < ini->sections[i].n; k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return ini->sections[i].entries[k].line;
        return ini->sections[i].line;
    }
    return 1;
}

static bool has_key(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++)
        for (size_t k = 0; strcmp(ini->sections[i].type, section) == 0 && k < ini->sections[i].n;
             k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return true;
    return false;
}

static bool setup_given(const struct backend_setup *s, const char *section, const char *key)
{
    return has_key(s->ctx, section, key);
}

/* [scenario] lab and [target] kind: which kinds the rest is about. */
static int resolve_kinds(struct binding *b, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    const struct ini *ini = b->ini;
    if (strcmp(sc->lab_name, "none") != 0 && !(sc->lab = lab_kind_find(sc->lab_name))) {
        char names[128] = "none";
        const struct lab_kind *const *kinds;
        unsigned nk = lab_kinds_all(&kinds);
        for (unsigned i = 0; i < nk; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "|%s", kinds[i]->name);
        snprintf(err, n, "%s:%d: lab: '%s' is not one of %s", ini->file,
                 line_of(ini, "scenario", "lab"), sc->lab_name, names);
        return -1;
    }
    if (sc->lab && key_defaults(&sc->lab_opts, sc->lab->keys.keys, sc->lab->keys.n, err, n) != 0)
        return -1;
    bool have_target = false;
    for (size_t i = 0; i < ini->n; i++)
        have_target |= strcmp(ini->sections[i].type, "target") == 0;
    if (!have_target) {
        snprintf(err, n, "%s: no [target] section (say what to test: kind and path)", ini->file);
        return -1;
    }
    if (!sc->target.kind[0]) {
        snprintf(err, n, "%s:%d: [target] needs 'kind' (%s)", ini->file,
                 line_of(ini, "target", NULL), backend_kinds());
        return -1;
    }
    if (!(sc->backend = backend_find(sc->target.kind))) {
        snprintf(err, n, "%s:%d: kind: unknown target kind '%s' (known: %s)", ini->file,
                 line_of(ini, "target", "kind"), sc->target.kind, backend_kinds());
        return -1;
    }
    const struct backend_ops *o = sc->backend;
    if (key_defaults(&sc->target, o->target_keys.keys, o->target_keys.n, err, n) != 0 ||
        key_defaults(&sc->target, o->workload_keys.keys, o->workload_keys.n, err, n) != 0)
        return -1;
    int rc = 0;
    for (unsigned i = 0; i < b->ndeferred; i++)
        if (bind_deferred(b, b->deferred_section[i], b->deferred[i], err, n) != 0) {
            note(b->errs, err); /* each one: the others are checked too */
            rc = -1;
        }
    if (rc != 0)
        err[0] = '\0'; /* noted already */
    return rc;
}

/* The workload as the engine reads it, and the target's engine. */
static void derive(struct scenario *sc)
{
    struct workload_cfg *w = &sc->workload;
    w->block_size = (uint32_t)sc->block;
    w->pattern = sc->pattern_choice == 0 ? PATTERN_RANDOM : PATTERN_SEQUENTIAL;
    w->depth = (unsigned)sc->depth;
    w->flush_every = sc->flush > UINT32_MAX ? UINT32_MAX : (unsigned)sc->flush;
    w->duration_ns = sc->duration_ns;
    w->seed = sc->seed;
    w->prefill = sc->prefill;
    sc->target.direct = sc->direct;
    sc->target.engine = sc->engine_choice == 1   ? ENGINE_URING
                        : sc->engine_choice == 2 ? ENGINE_SYNC
                        : sc->target.direct      ? ENGINE_URING
                                                 : ENGINE_SYNC;
}

/* Whether the scenario's lab gives places to its target's kind (more than
 * one kind of lab serves "files"). */
static bool lab_serves(const struct scenario *sc)
{
    return sc->lab && sc->lab->serves && strcmp(sc->lab->serves, sc->target.kind) == 0;
}

/* The target kind's own rules, with a lab that may give it its place. */
static int check_kind(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    const struct lab_kind *server = lab_kind_serving(sc->target.kind);
    char hint[160] = "";
    if (server)
        snprintf(hint, sizeof hint, " (or [scenario] lab = %s for %s)", server->name,
                 server->serves_what);
    struct backend_setup s = {.t = &sc->target, .w = &sc->workload, .name = sc->name,
                              .engine_choice = sc->engine_choice,
                              .lab_serves = lab_serves(sc), .lab_hint = hint,
                              .given = setup_given, .ctx = ini};
    char why[1024];
    if (sc->backend->check && sc->backend->check(&s, why, sizeof why) != 0) {
        snprintf(err, n, "%s:%d: %s", ini->file, line_of(ini, s.section ? s.section : "target",
                                                          s.key), why);
        return -1;
    }
    return 0;
}

/* What holds for every kind once its own rules are applied. */
static void check_workload(const struct scenario *sc, const struct ini *ini, struct errlist *errs)
{
    char err[1024];
    size_t n = sizeof err;
    const struct workload_cfg *w = &sc->workload;
    if (sc->block % FL_SECTOR != 0) {
        snprintf(err, n, "%s:%d: block: %llu is not a multiple of 512", ini->file,
                 line_of(ini, "workload", "block"), (unsigned long long)sc->block);
        note(errs, err);
    }
    bool sync = sc->target.engine == ENGINE_SYNC;
    if (sync && sc->workers) {
        snprintf(err, n, "%s:%d: workers: the sync engine runs one worker per I/O in flight "
                 "(depth); workers applies to engine = io_uring", ini->file,
                 line_of(ini, "workload", "workers"));
        note(errs, err);
    }
    if (sync && w->depth > 256) {
        snprintf(err, n, "%s:%d: depth: at most 256 with the sync engine (one thread per I/O in "
                 "flight); use engine = io_uring for more", ini->file,
                 line_of(ini, "workload", "depth"));
        note(errs, err);
    }
    if (sc->workers > w->depth) {
        snprintf(err, n, "%s:%d: workers: %llu workers need depth >= %llu", ini->file,
                 line_of(ini, "workload", "workers"), (unsigned long long)sc->workers,
                 (unsigned long long)sc->workers);
        note(errs, err);
    }
    if (sc->target.size && sc->target.size < sc->block) {
        snprintf(err, n, "%s:%d: size: %llu bytes is smaller than one block (%llu)", ini->file,
                 line_of(ini, "target", "size"), (unsigned long long)sc->target.size,
                 (unsigned long long)sc->block);
        note(errs, err);
    }
}

/* "client, ctrl-a, ctrl-b" of the lab, " (there is no lab)" without. */
static bool lab_host_known(const struct scenario *sc, const char *host, char *names, size_t n)
{
    if (!sc->lab) {
        snprintf(names, n, " (there is no lab)");
        return false;
    }
    char hosts[LAB_MAX_HOSTS + LAB_MAX_CLIENTS][16];
    unsigned nh = lab_kind_hosts(sc->lab, (unsigned)sc->lab_opts.clients, hosts,
                                 LAB_MAX_HOSTS + LAB_MAX_CLIENTS);
    size_t used = (size_t)snprintf(names, n, " (");
    bool known = false;
    for (unsigned i = 0; i < nh && used < n; i++) {
        known |= strcmp(hosts[i], host) == 0;
        used += (size_t)snprintf(names + used, n - used, "%s%s", i ? ", " : "", hosts[i]);
    }
    /* With control = ssh the switch is a host too: its agent holds the ports. */
    if (sc->lab_opts.control == LAB_CONTROL_SSH && used < n) {
        known |= strcmp(host, LAB_SWITCH_HOST) == 0;
        used += (size_t)snprintf(names + used, n - used, ", %s", LAB_SWITCH_HOST);
    }
    if (used < n)
        snprintf(names + used, n - used, ")");
    return known;
}

/* A fault happens within the workload, every step of it: one whose time
 * comes after the end would never happen, and a run of it would prove
 * nothing about it. */
static int at_in_workload(const struct scenario *sc, const struct fault_spec *f, char *err,
                          size_t n)
{
    char at[32], end[32];
    snprintf(at, sizeof at, "%gs", (double)f->at_ns / 1e9);
    snprintf(end, sizeof end, "%gs", (double)sc->duration_ns / 1e9);
    if (f->at_ns >= sc->duration_ns) {
        snprintf(err, n, "[fault %s] at = %s is not before the end of the workload (duration = "
                 "%s): it would never happen", f->name, at, end);
        return -1;
    }
    struct fault_schedule s;
    fault_schedule_of(f, &s);
    uint64_t last = f->at_ns + (s.steps ? s.steps - 1 : 0) * s.period_ns;
    if (s.shape == FAULT_STEPPED && last >= sc->duration_ns) {
        char l[32];
        snprintf(l, sizeof l, "%gs", (double)last / 1e9);
        snprintf(err, n, "[fault %s] its last step (at %s) is not before the end of the workload "
                 "(duration = %s): it would not happen whole", f->name, l, end);
        return -1;
    }
    return 0;
}

/* What only the whole scenario can tell about its faults: hosts exist,
 * they happen within the workload, and each family's own checks of its
 * section. */
static void check_faults(const struct scenario *sc, const char *file, struct errlist *errs)
{
    char err[1400];
    size_t n = sizeof err;
    /* A [host]'s switch is another [host], reached over ssh. */
    for (unsigned i = 0; i < sc->nhosts; i++) {
        const struct host_spec *h = &sc->hosts[i];
        if (!h->switch_host[0])
            continue;
        bool ok = false;
        for (unsigned k = 0; k < sc->nhosts && !ok; k++)
            ok = k != i && strcmp(sc->hosts[k].name, h->switch_host) == 0 && sc->hosts[k].ssh[0];
        if (!ok) {
            snprintf(err, n, "%s:%d: [host %s] switch: '%s' is not another [host] of this "
                     "scenario with ssh = ADDRESS", file, h->line, h->name, h->switch_host);
            note(errs, err);
        }
    }
    struct fault_rules rules = {.allow_destructive = sc->allow_destructive};
    for (unsigned i = 0; i < sc->nfaults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        char names[160];
        bool known = strcmp(f->host, "local") == 0;
        for (unsigned h = 0; h < sc->nhosts && !known; h++)
            known = strcmp(sc->hosts[h].name, f->host) == 0;
        if (!lab_host_known(sc, f->host, names, sizeof names) && !known) {
            snprintf(err, n, "%s:%d: [fault %s] host '%s' is neither a lab host%s, local, nor a "
                     "[host NAME] of this scenario", file, f->line, f->name, f->host, names);
            note(errs, err);
            continue;
        }
        /* What its host can do: a lab host's lab runs and restarts its
         * service; a [host] restarts with its own command. */
        rules.host_known = true;
        rules.host_in_lab = !known;
        rules.host_restarts = false;
        for (unsigned h = 0; h < sc->nhosts; h++)
            if (strcmp(sc->hosts[h].name, f->host) == 0)
                rules.host_restarts = sc->hosts[h].restart[0] != '\0';
        char why[1024];
        if (at_in_workload(sc, f, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s", file, f->at_line, why);
            note(errs, err);
        }
        if (f->ops->check && f->ops->check(f, &rules, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s", file, f->line, why);
            note(errs, err);
        }
        if (f->loses == LOSES_UNFLUSHED && sc->lab && sc->lab_opts.clients > 1) {
            snprintf(err, n, "%s:%d: [fault %s] loses = unflushed: not with several clients yet "
                     "(the other clients could not be told of the cut while the workload runs, "
                     "and would call what it took lost writes)", file, f->line, f->name);
            note(errs, err);
        }
    }
}

/* [cluster]: a kind of storage known, what it needs, and a way to ask it:
 * a [host] reached over ssh.  Not with a lab, which knows its own storage
 * (lab = gluster is the cluster the run is against). */
static int check_cluster(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    struct cluster_spec *c = &sc->cluster;
    for (size_t i = 0; i < ini->n && !c->line; i++)
        if (strcmp(ini->sections[i].type, "cluster") == 0)
            c->line = ini->sections[i].line;
    if (!c->line)
        return 0;
    const char *file = ini->file;
    if (sc->lab) {
        snprintf(err, n, "%s:%d: [cluster] names a real cluster, and lab = %s (line %d) brings "
                 "up an embedded one whose storage the run knows already: one or the other",
                 file, c->line, sc->lab->name, line_of(ini, "scenario", "lab"));
        return -1;
    }
    if (!c->kind_name[0]) {
        snprintf(err, n, "%s:%d: [cluster] needs kind (%s)", file, c->line, storage_kinds());
        return -1;
    }
    if (!(c->kind = storage_kind_find(c->kind_name))) {
        snprintf(err, n, "%s:%d: kind: '%s' is not one of %s", file,
                 line_of(ini, "cluster", "kind"), c->kind_name, storage_kinds());
        return -1;
    }
    if (c->kind->needs_volume && !c->volume[0]) {
        snprintf(err, n, "%s:%d: [cluster] kind = %s needs volume (%s, as `%s volume info` "
                 "names it)", file, c->line, c->kind->name, c->kind->volume, c->kind->cli);
        return -1;
    }
    if (!c->kind->volume && c->volume[0]) {
        snprintf(err, n, "%s:%d: volume: kind = %s has none", file,
                 line_of(ini, "cluster", "volume"), c->kind->name);
        return -1;
    }
    if (!c->via[0]) {
        snprintf(err, n, "%s:%d: [cluster] needs via = the [host NAME] (with ssh) on which %s is "
                 "asked", file, c->line, c->kind->cli);
        return -1;
    }
    const struct host_spec *h = scenario_cluster_via(sc);
    if (!h || !h->ssh[0]) {
        snprintf(err, n, "%s:%d: via: '%s' is not a [host] of this scenario with ssh = "
                 "[USER@]ADDRESS[:PORT] (%s is asked there, over ssh)", file,
                 line_of(ini, "cluster", "via"), c->via, c->kind->cli);
        return -1;
    }
    return 0;
}

const struct host_spec *scenario_cluster_via(const struct scenario *sc)
{
    if (!sc->cluster.line)
        return NULL;
    for (unsigned i = 0; i < sc->nhosts; i++)
        if (strcmp(sc->hosts[i].name, sc->cluster.via) == 0)
            return &sc->hosts[i];
    return NULL;
}

/* Name of the scenario from its file: basename without ".scn". */
static void name_from_file(const char *file, char *out, size_t n)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t l = strlen(b);
    if (l > 4 && strcmp(b + l - 4, ".scn") == 0)
        l -= 4;
    if (l >= n)
        l = n - 1;
    memcpy(out, b, l);
    out[l] = '\0';
}

int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->file, sizeof sc->file, "%s", file);
    struct key_table t = general_keys(S_SCENARIO), tt = general_keys(S_TARGET),
                     wt = general_keys(S_WORKLOAD), lt = general_keys(S_LAB);
    if (key_defaults(sc, t.keys, t.n, err, errlen) != 0 ||
        key_defaults(sc, tt.keys, tt.n, err, errlen) != 0 ||
        key_defaults(sc, wt.keys, wt.n, err, errlen) != 0 ||
        key_defaults(&sc->lab_opts, lt.keys, lt.n, err, errlen) != 0)
        return -1;
    struct ini ini;
    if (ini_parse(text, file, &ini, err, errlen) != 0)
        return -1;
    struct binding *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        ini_free(&ini);
        return -1;
    }
    /* Every mistake goes to err, one per line: the keys and sections
     * first (all of them), then, once each key has its place, the rules
     * that hold between them. */
    err[0] = '\0';
    struct errlist errs = {.out = err, .cap = errlen};
    char one[FL_ERRLEN];
    *b = (struct binding){.ini = &ini, .sc = sc, .errs = &errs};
    if (bind_sections(b, one, sizeof one) == 0 && resolve_kinds(b, one, sizeof one) != 0 &&
        one[0])
        note(&errs, one);
    if (!errs.n) {
        if (!sc->name[0])
            name_from_file(file, sc->name, sizeof sc->name);
        derive(sc);
        if (check_kind(sc, &ini, one, sizeof one) != 0)
            note(&errs, one);
        check_workload(sc, &ini, &errs);
        check_faults(sc, file, &errs);
        if (check_cluster(sc, &ini, one, sizeof one) != 0)
            note(&errs, one);
    }
    free(b);
    ini_free(&ini);
    return noted(&errs);
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
    char *text = ini_read_file(path, err, errlen);
    if (!text)
        return -1;
    int rc = scenario_parse(text, path, sc, err, errlen);
    free(text);
    return rc;
}

bool scenario_lab_places(const struct scenario *sc)
{
    return lab_serves(sc) && !sc->target.located;
}

int scenario_use_lab(struct scenario *sc, const struct lab *lab, unsigned client, char *err,
                     size_t errlen)
{
    if (!scenario_lab_places(sc) || !sc->backend->place)
        return 0;
    struct lab_place p;
    lab_place_for(lab, client, &p);
    return sc->backend->place(&sc->target, p.where, err, errlen);
}

/* --- the reference --- */

/* Every key of a section once, the general ones first. */
static void print_keys(FILE *out, int section)
{
    struct key_table general = general_keys(section);
    char printed[2048] = " ";
    for (unsigned i = 0; i < general.n; i++)
        key_print(out, &general.keys[i]);
    struct key_table t;
    const char *owner;
    for (unsigned k = 0; kind_keys(section, k, &t, &owner); k++)
        for (unsigned i = 0; i < t.n; i++) {
            char word[48];
            snprintf(word, sizeof word, " %s ", t.keys[i].name);
            if (strstr(printed, word) || key_find(general.keys, general.n, t.keys[i].name))
                continue; /* shared by several kinds */
            snprintf(printed + strlen(printed), sizeof printed - strlen(printed), "%s ",
                     t.keys[i].name);
            key_print(out, &t.keys[i]);
        }
}

void scenario_metrics_markdown(FILE *out)
{
    for (int scope = SCOPE_RUN; scope <= SCOPE_FAULT; scope++) {
        fprintf(out, "%s\n\n| key | type | default | meaning |\n|---|---|---|---|\n",
                scope == SCOPE_RUN ? "[expect]: the run's metrics (`metric OP value`)"
                                   : "[fault NAME]: each fault's metrics (`expect_metric OP value`)");
        for (int i = 0; i < METRIC_COUNT; i++) {
            const struct metric_def *m = &metric_table[i];
            if (m->scope == (enum metric_scope)scope)
                fprintf(out, "| `%s%s` | %s | %s | %s |\n", scope == SCOPE_FAULT ? "expect_" : "",
                        m->name, metric_unit_word(m), m->integrity ? "= 0" : "", m->help);
        }
        fprintf(out, scope == SCOPE_RUN ? "\n" : "");
    }
}

void scenario_reference(FILE *out)
{
    for (int s = 0; s < S_COUNT; s++) {
        bool named = s == S_FAULT || s == S_HOST;
        fprintf(out, "[%s%s]\n", section_names[s], named ? " NAME" : "");
        if (s == S_FAULT)
            fprintf(out, "  %-16s %-9s\n      what happens (required): %s\n", "action", "choice",
                    fault_actions());
        print_keys(out, s);
        /* Expectations: a metric, a comparison, a value. */
        for (int i = 0; i < METRIC_COUNT; i++) {
            const struct metric_def *m = &metric_table[i];
            if (s == S_EXPECT && m->scope == SCOPE_RUN)
                fprintf(out, "  %-16s  %-8s %s\n      %s\n", m->name, metric_unit_word(m),
                        m->integrity ? "default = 0 (integrity rule)" : "", m->help);
            if (s == S_FAULT && m->scope == SCOPE_FAULT)
                fprintf(out, "  expect_%-9s  %s\n      %s\n", m->name, metric_unit_word(m),
                        m->help);
        }
        if (s == S_EXPECT || s == S_FAULT)
            fprintf(out, "      (%s compare with =, <, <=, >, >=; with repeat = N a suffix _min, "
                         "_p50, _p95, _max, _mean or _sd\n       takes that statistic over the "
                         "repetitions: %s)\n",
                    s == S_EXPECT ? "metrics" : "expect_* keys",
                    s == S_EXPECT ? "recovery_p95 <= 8s" : "expect_stall_p95 <= 5s");
        fprintf(out, "\n");
    }
    const struct fault_ops *const *families;
    unsigned nf = fault_families(&families);
    for (unsigned i = 0; i < nf; i++) {
        char takes[512];
        fault_keys_text(families[i], takes, sizeof takes);
        fprintf(out, "%s %-12s takes%s\n", i ? "      " : "Faults:", families[i]->action, takes);
    }
    /* Every lab kind with its hosts, from the kinds' own table. */
    const struct lab_kind *const *kinds;
    unsigned nk = lab_kinds_all(&kinds);
    for (unsigned i = 0; i < nk; i++) {
        char hosts[LAB_MAX_HOSTS][16];
        unsigned nh = lab_kind_hosts(kinds[i], 1, hosts, LAB_MAX_HOSTS);
        fprintf(out, "%s %-8s %s\n             hosts:", i ? "     " : "\nLabs:", kinds[i]->name,
                kinds[i]->summary);
        for (unsigned h = 0; h < nh; h++)
            fprintf(out, " %s", hosts[h]);
        fputc('\n', out);
    }
    fprintf(out, "\n");
    fprintf(out, "Sizes: 512, 4k, 4KiB, 64MiB, 1GiB (binary units, as in fio).\n"
                 "Durations: 500ms, 10s, 2m, 1h; a bare number is seconds.\n"
                 "Comments start with # or ; (inline: after a blank).\n");
}
