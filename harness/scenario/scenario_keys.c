/* scenario_keys — the general keys of every section and the lookups over
 * them and the kinds' own tables (see scenario.h): with the kinds' tables
 * they are the scenario reference. */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../checks/block.h"
#include "../../lib/ini.h"
#include "../../lib/errbuf.h"
#include "../../lib/units.h"
#include "scenario_parts.h"
#include "thrash.h"

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
    {"expect_verdict", KEY_CHOICE, "pass", "pass|fail", F(expect_verdict), 0, 0,
     "the verdict `faultline suite` expects of the scenario: pass, or fail for one that must "
     "fail (a known flaw shown on purpose), met when it fails on the rules of expect_failing "
     "and on no other; `faultline run` gives its verdict and exit status as always", 0},
    {"expect_failing", KEY_TEXT, NULL, NULL, F(expect_failing_text), 0, 0,
     "with expect_verdict = fail (and required by it): the rules that must fail, "
     "comma-separated: an integrity rule or a metric of [expect] (lost_writes, zeroed, "
     "max_stall), a fault metric of any fault (stall) or of one (kill-a:stall); RULE? may "
     "fail but need not (stale_reads?).  With expect_verdict = pass only RULE? rules: what "
     "the storage is known to do at times, a fail on those alone met", 0},
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
    {"settle", KEY_CHOICE, "none", "none|whole", FAULT_COMMON(settle), 0, 0,
     "whole: before its inject, wait until no fault is in effect and the storage is whole "
     "(the gluster or ceph lab's or [cluster]'s heal or recovery, or settle_command); every "
     "fault not yet begun moves later by the wait, and one moved past the end of the "
     "workload does not happen ([thrash] settle writes it on each fault it draws)", 0},
    {"settle_command", KEY_TEXT, NULL, NULL, FAULT_COMMON(settle_command), 0, 0,
     "settle = whole: a command run here with /bin/sh -c every 2 s that says the storage is "
     "whole by exiting 0 (a change in its output is progress)", 0},
    {"settle_timeout", KEY_DURATION, "5m", NULL, FAULT_COMMON(settle_timeout_ns), 1000000000ull,
     AT_MOST_A_DAY,
     "settle = whole: given up after this long without progress (fewer entries pending, or "
     "a new output of settle_command); the fault is then not injected", 0},
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
    {"cluster_logs", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, cluster_logs), 0, 0,
     "the [cluster]'s log files on this host (ssh), comma-separated paths, read over ssh after "
     "the workload for what the cluster did there (pacemaker: /var/log/pacemaker/pacemaker.log,"
     "/var/log/corosync/corosync.log: memberships, fencing, resources, as path events and each "
     "fault's failover split)", 0},
    {"power_off", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, power.off), 0, 0,
     "power-off: the command that cuts the host's power, run with /bin/sh -c here, on the "
     "controller, not on the host (no ssh needed): ipmitool -I lanplus -H bmc-gs2 -U admin -E "
     "chassis power off; needs power_on", 0},
    {"power_on", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, power.on), 0, 0,
     "power-off: the command that powers the host on again, run here at the fault's clear, "
     "and by `faultline cleanup` after a killed run (it is in the undo log before the cut); "
     "needs power_off", 0},
    {"power_status", KEY_TEXT, NULL, NULL, KEY_FIELD(struct host_spec, power.status), 0, 0,
     "power-off, optional: a command run here that tells the host's power, as ipmitool's "
     "chassis power status does (\"Chassis Power is off\"): it says off when it exits 0 and "
     "its output has the word off and not the word on (any case), and on the other way round; "
     "asked every 0.5 s after power_off until it says off (never within power_wait: the fault "
     "is indeterminate) and after power_on until it says on (never: the clear failed); needs "
     "power_off and power_on", 0},
    {"power_wait", KEY_DURATION, "30s", NULL, KEY_FIELD(struct host_spec, power.wait_ns),
     1000000000ull, 600000000000ull,
     "power_status: how long it may take to say off after power_off, or on after power_on", 0},
};

static const struct key_def cluster_keys[] = {
    {"kind", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, kind_name), 0, 0,
     "gluster, ceph or pacemaker: the real storage the run is against (required); the run then "
     "measures each fault's heal_s (gluster) or recover_s (ceph), waits heal_wait for it after "
     "the workload, describes the storage and its options in the manifest and (ceph) reports "
     "the monitors' MDS and OSD events, as with a lab; pacemaker: an HA cluster, described by "
     "its versions, token, consensus and fencing, and with [host] cluster_logs what its nodes "
     "logged (memberships, fencing, resources) as path events and each fault's failover "
     "split", 0},
    {"volume", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, volume), 0, 0,
     "gluster: the volume (required); ceph: the CephFS filesystem (default: the cluster's)", 0},
    {"via", KEY_TEXT, NULL, NULL, KEY_FIELD(struct cluster_spec, via), 0, 0,
     "the [host NAME] (with ssh) on which the storage's own CLI is asked, as an operator there "
     "would type it (through sudo -n with sudo = yes): a server of the cluster (required)", 0},
};

/* --- the sections, and every table of keys each may hold --- */

const char *const section_names[S_COUNT] = {"scenario", "target", "workload", "lab", "expect",
                                            "fault",    "host",   "cluster",  "thrash"};

int scenario_section_of(const char *type)
{
    for (int t = 0; t < S_COUNT; t++)
        if (strcmp(section_names[t], type) == 0)
            return t;
    return -1;
}

/* The general keys of a section. */
struct key_table scenario_general_keys(int section)
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
    case S_THRASH:
        return thrash_keys();
    }
    return (struct key_table){NULL, 0};
}

/* A kind's own keys in a section: the i-th target kind, lab kind or fault
 * family (false past the last), with its name. */
bool scenario_kind_keys(int section, unsigned i, struct key_table *t, const char **owner)
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

void scenario_owners_of(int section, const char *key, char *out, size_t n,
                        const struct key_def **def)
{
    struct key_table t;
    const char *owner;
    size_t used = 0;
    out[0] = '\0';
    *def = NULL;
    for (unsigned i = 0; scenario_kind_keys(section, i, &t, &owner) && used < n; i++) {
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
void scenario_unknown_key_hint(int section, const char *key, char *out, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3, used = 0;
    char known[1024] = "", seen[1024] = " ";
    struct key_table t = scenario_general_keys(section);
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
        if (!scenario_kind_keys(section, k, &t, &owner))
            break;
    }
    if (best)
        snprintf(out, n, "; did you mean '%s'? (known keys: %s)", best, known);
    else
        snprintf(out, n, " (known keys: %s)", known);
}
