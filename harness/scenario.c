/* scenario — see scenario.h.  The table `keys` is the scenario reference. */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/block.h"
#include "../lib/ini.h"
#include "../lib/units.h"

enum ktype { K_STRING, K_SIZE, K_DURATION, K_PERCENT, K_BOOL, K_COUNT, K_CHOICE, K_RATE };

/* Where a key's field lives: the scenario, one [fault NAME] or one [host NAME]. */
enum kbase { IN_SCENARIO, IN_FAULT, IN_HOST };

struct key {
    const char *section;
    const char *key;
    enum ktype type;
    const char *def;     /* default as it would be written; NULL: see help */
    const char *choices; /* K_CHOICE: "a|b|c" */
    size_t off;          /* field in struct scenario */
    size_t len;          /* K_STRING: buffer size */
    uint64_t min, max;   /* K_COUNT, K_SIZE, K_DURATION: allowed range (max 0: none) */
    const char *help;
    enum kbase base;
};

#define F(field) offsetof(struct scenario, field), sizeof(((struct scenario *)0)->field)
#define FF(field) offsetof(struct fault_spec, field), sizeof(((struct fault_spec *)0)->field)
#define FH(field) offsetof(struct host_spec, field), sizeof(((struct host_spec *)0)->field)
#define AT_MOST_A_DAY 86400000000000ull

static const struct key keys[] = {
    {"scenario", "name", K_STRING, NULL, NULL, F(name), 0, 0,
     "names the run and its directory (default: the file name without .scn)", IN_SCENARIO},
    {"scenario", "description", K_STRING, NULL, NULL, F(description), 0, 0,
     "one line for the report", IN_SCENARIO},
    {"scenario", "duration", K_DURATION, "10s", NULL, F(duration_ns), 1000000, 0,
     "how long the workload runs (then: final flush and a sweep over every written block)", IN_SCENARIO},
    {"scenario", "seed", K_COUNT, NULL, NULL, F(seed), 0, 0,
     "seed of the op sequence; the same seed repeats the same ops (default: random, "
     "printed in the report)", IN_SCENARIO},
    {"scenario", "journal", K_BOOL, "yes", NULL, F(journal), 0, 0,
     "journal write intents so that `faultline verify` works even after a crash", IN_SCENARIO},
    {"scenario", "journal_segment", K_SIZE, NULL, NULL, F(journal_segment), 1u << 16, 0,
     "journal size before a state checkpoint starts a new segment (default: 64 MiB or 4 "
     "times the state map, the larger)", IN_SCENARIO},
    {"scenario", "findings_limit", K_COUNT, "10000", NULL, F(findings_limit), 1, 0,
     "findings listed in detail (counts always cover all)", IN_SCENARIO},
    {"scenario", "allow_destructive", K_BOOL, "no", NULL, F(allow_destructive), 0, 0,
     "corrupt faults may overwrite data (of the target, or of allow_paths)", IN_SCENARIO},
    {"scenario", "allow_paths", K_STRING, NULL, NULL, F(allow_paths), 0, 0,
     "comma-separated files or devices corrupt may write to besides the target", IN_SCENARIO},
    {"scenario", "bucket", K_DURATION, "100ms", NULL, F(bucket_ns), 1000000ull, 10000000000ull,
     "width of the time slices completions are counted in (timeline.csv, the plots, the "
     "recovery analysis)", IN_SCENARIO},
    {"scenario", "warmup", K_DURATION, "1s", NULL, F(warmup_ns), 0, AT_MOST_A_DAY,
     "the start of the workload left out of the baseline throughput", IN_SCENARIO},
    {"scenario", "heal_wait", K_DURATION, "60s", NULL, F(heal_wait_ns), 0, AT_MOST_A_DAY,
     "lab = gluster: after the workload, wait at most this long for the volume to have "
     "nothing left to heal (heal_s of each fault, expect_heal)", IN_SCENARIO},
    {"scenario", "hung_after", K_DURATION, "10s", NULL, F(hung_after_ns), 10000000ull,
     AT_MOST_A_DAY, "an I/O outstanding this long is reported as hung (the no-progress "
     "watchdog)", IN_SCENARIO},
    {"scenario", "grace", K_DURATION, "30s", NULL, F(grace_ns), 100000000ull, AT_MOST_A_DAY,
     "the run ends at its end plus this, with a report, even if the target never answers "
     "again (workers still waiting are left behind)", IN_SCENARIO},
    {"scenario", "lab", K_CHOICE, "none", "none|iscsi|gluster", F(lab_choice), 0, 0,
     "bring up this embedded lab for the run (and take it down after, unless --keep-lab); an "
     "iscsi target without portals then means the lab LUN through both controllers, a files "
     "target without path the lab volume's FUSE mount", IN_SCENARIO},

    {"target", "kind", K_STRING, NULL, NULL, F(target.kind), 0, 0,
     "file, blockdev, iscsi or files (required)", IN_SCENARIO},
    {"target", "path", K_STRING, NULL, NULL, F(target.path), 0, 0,
     "the file or device; for files the directory (any mounted filesystem) the tree "
     "faultline-NAME is made in (required)", IN_SCENARIO},
    {"target", "size", K_SIZE, NULL, NULL, F(target.size), FL_BLOCK_MIN, 0,
     "bytes to test; a file is created or extended to it (default: the whole device or "
     "existing file); for files the data budget of the tree (default 64MiB)", IN_SCENARIO},
    {"target", "sync", K_BOOL, "no", NULL, F(target.sync), 0, 0,
     "open with O_DSYNC: every write is durable when it completes", IN_SCENARIO},
    {"target", "portals", K_STRING, NULL, NULL, F(portals_text), 0, 0,
     "iscsi: paths to one LUN, comma-separated iscsi://HOST[:PORT]/IQN/LUN; the first that "
     "logs in carries I/O, the next takes over when it fails", IN_SCENARIO},
    {"target", "fua", K_BOOL, "no", NULL, F(target.iscsi.fua), 0, 0,
     "iscsi: every write with FUA, durable when it completes", IN_SCENARIO},
    {"target", "command_timeout", K_DURATION, "5s", NULL, F(command_timeout_ns), 1000000000ull,
     3600000000000ull, "iscsi: a command unanswered this long fails its path (whole seconds)", IN_SCENARIO},
    {"target", "tcp_user_timeout", K_DURATION, "5s", NULL, F(tcp_user_timeout_ns), 100000000ull,
     3600000000000ull, "iscsi: data unacknowledged this long breaks the connection", IN_SCENARIO},
    {"target", "nop_interval", K_DURATION, "1s", NULL, F(nop_interval_ns), 100000000ull,
     3600000000000ull, "iscsi: a NOP-Out on every path this often", IN_SCENARIO},
    {"target", "nop_missed", K_COUNT, "3", NULL, F(nop_missed), 1, 1000,
     "iscsi: NOP-Outs without answer before the path counts as dead", IN_SCENARIO},
    {"target", "io_timeout", K_DURATION, "30s", NULL, F(io_timeout_ns), 1000000000ull, 0,
     "iscsi: an I/O that finds no healthy path this long fails", IN_SCENARIO},
    {"target", "login_timeout", K_DURATION, "10s", NULL, F(login_timeout_ns), 1000000000ull, 0,
     "iscsi: connecting and logging in on a path", IN_SCENARIO},
    {"target", "retry_interval", K_DURATION, "1s", NULL, F(retry_interval_ns), 100000000ull, 0,
     "iscsi: a dead path is tried again this often", IN_SCENARIO},

    {"workload", "block", K_SIZE, "4KiB", NULL, F(block), FL_BLOCK_MIN, FL_BLOCK_MAX,
     "block size, 512 B to 1 MiB in steps of 512 B", IN_SCENARIO},
    {"workload", "pattern", K_CHOICE, "random", "random|sequential", F(pattern_choice), 0, 0,
     "which block comes next", IN_SCENARIO},
    {"workload", "read", K_PERCENT, "50%", NULL, F(workload.read_pct), 0, 0,
     "share of reads; every read is verified", IN_SCENARIO},
    {"workload", "depth", K_COUNT, "8", NULL, F(depth), 1, 4096,
     "reads and writes in flight", IN_SCENARIO},
    {"workload", "flush", K_COUNT, "64", NULL, F(flush), 0, 0,
     "writes between flushes (fdatasync), counted per worker; 0: only at the end of the "
     "run", IN_SCENARIO},
    {"workload", "direct", K_BOOL, "no", NULL, F(direct), 0, 0,
     "O_DIRECT for files (block devices always use it)", IN_SCENARIO},
    {"workload", "engine", K_CHOICE, "auto", "auto|io_uring|sync", F(engine_choice), 0, 0,
     "how I/O is issued: io_uring keeps `depth` I/Os in flight from one thread; sync runs "
     "one thread per I/O in flight with pread/pwrite (auto: io_uring with O_DIRECT, sync "
     "for buffered files, where the kernel would hand io_uring's work to helper threads)", IN_SCENARIO},
    {"workload", "prefill", K_BOOL, "no", NULL, F(prefill), 0, 0,
     "write every block once before the timed workload, so that even read = 100% verifies "
     "real data (times of those writes count as 0)", IN_SCENARIO},
    {"workload", "class", K_CHOICE, "mixed", "large|medium|small|tree|mixed", F(class_choice),
     0, 0, "files: the tree's shape: large (4 big files), medium (10 MiB files in 10 "
     "directories), small (3 KiB files, 100 per directory), tree (a source tree), mixed (a "
     "third each of large, medium, small)", IN_SCENARIO},
    {"workload", "procs", K_COUNT, NULL, NULL, F(procs), 1, 256,
     "files: parallel streams, each a thread doing one I/O at a time (the same as depth; "
     "default: depth)", IN_SCENARIO},
    {"workload", "metadata", K_COUNT, "1", NULL, F(metadata), 0, 16,
     "files: metadata streams (create, rename, unlink, mkdir, readdir, stat checked against "
     "a model of the tree), each in its own directory; 0: none", IN_SCENARIO},
    {"workload", "workers", K_COUNT, NULL, NULL, F(workers), 1, 256,
     "io_uring (or iscsi) threads sharing `depth`, each owning every workers-th block "
     "(default 1)", IN_SCENARIO},

    {"lab", "write_cache", K_BOOL, "off", NULL, F(lab_write_cache), 0, 0,
     "the lab LUN acknowledges writes from its cache (on) or only once they are on disk "
     "(off)", IN_SCENARIO},
    {"lab", "size", K_SIZE, NULL, NULL, F(lab_size), 1u << 20, 0,
     "iscsi: size of the lab LUN (a sparse file shared by both controllers; default 256MiB); "
     "gluster: size of each brick (sparse xfs image, at least 300MiB; default 512MiB)",
     IN_SCENARIO},
    {"lab", "ping_timeout", K_DURATION, "10s", NULL, F(lab_ping_timeout_ns), 1000000000ull,
     3600000000000ull, "gluster: network.ping-timeout of the volume (whole seconds): how long "
     "a client waits for a silent server", IN_SCENARIO},
    {"lab", "bitrot", K_BOOL, "off", NULL, F(lab_bitrot), 0, 0,
     "gluster: enable bit-rot detection on the volume (the signer and the scrubber)",
     IN_SCENARIO},
    {"lab", "heal_timeout", K_DURATION, "5s", NULL, F(lab_heal_timeout_ns), 1000000000ull,
     3600000000000ull, "gluster: cluster.heal-timeout of the volume (whole seconds): how often "
     "the self-heal daemon crawls for pending heals", IN_SCENARIO},

    {"fault", "action", K_CHOICE, NULL, NULL, FF(action_choice), 0, 0,
     "what happens (required): link-down, port-down, port-flap, switch-down, partition, loss, "
     "bandwidth, kill, pause, restart, corrupt, command", IN_FAULT},
    {"fault", "host", K_STRING, "local", NULL, FF(host), 0, 0,
     "where: a lab host (client, ctrl-a, ctrl-b), local, or a [host NAME]", IN_FAULT},
    {"fault", "at", K_DURATION, "0s", NULL, FF(at_ns), 0, AT_MOST_A_DAY,
     "when, counted from the start of the workload", IN_FAULT},
    {"fault", "duration", K_DURATION, NULL, NULL, FF(duration_ns), 1000000, AT_MOST_A_DAY,
     "how long (default: until the end of the workload, and cleared then)", IN_FAULT},
    {"fault", "count", K_COUNT, "3", NULL, FF(count), 1, 100000, "port-flap: bounces",
     IN_FAULT},
    {"fault", "period", K_DURATION, "2s", NULL, FF(period_ns), 2000000, AT_MOST_A_DAY,
     "port-flap: one bounce every period, down for half of it", IN_FAULT},
    {"fault", "peers", K_STRING, NULL, NULL, FF(peers), 0, 0,
     "partition: hosts to cut off from (default: every other host, the client included)",
     IN_FAULT},
    {"fault", "direction", K_CHOICE, "both", "both|in|out", FF(direction_choice), 0, 0,
     "partition, loss, bandwidth: which traffic of the host", IN_FAULT},
    {"fault", "percent", K_PERCENT, NULL, NULL, FF(percent), 0, 0,
     "loss: share of packets dropped (required)", IN_FAULT},
    {"fault", "port", K_COUNT, NULL, NULL, FF(port), 1, 65535,
     "loss: only TCP to or from this port (3260 for iSCSI)", IN_FAULT},
    {"fault", "rate", K_RATE, NULL, NULL, FF(rate_bps), 0, 0,
     "bandwidth: the cap (required), e.g. 10mbit", IN_FAULT},
    {"fault", "burst", K_SIZE, NULL, NULL, FF(burst), 1500, 1u << 24,
     "bandwidth: bucket size (default 10 ms of the rate)", IN_FAULT},
    {"fault", "interface", K_STRING, NULL, NULL, FF(interface), 0, 0,
     "link-down, bandwidth: the host's interface (lab hosts know theirs)", IN_FAULT},
    {"fault", "switch_port", K_STRING, NULL, NULL, FF(switch_port), 0, 0,
     "port-down, port-flap, bandwidth: the switch port facing the host (lab hosts know theirs)",
     IN_FAULT},
    {"fault", "switch", K_STRING, NULL, NULL, FF(switch_name), 0, 0,
     "switch-down: the bridge (default: the lab's switch)", IN_FAULT},
    {"fault", "process", K_STRING, NULL, NULL, FF(process), 0, 0,
     "kill, pause, restart: process name (default on a lab host: its service, tgtd)", IN_FAULT},
    {"fault", "pidfile", K_STRING, NULL, NULL, FF(pidfile), 0, 0,
     "kill, pause: the process whose PID this file holds", IN_FAULT},
    {"fault", "pid", K_COUNT, NULL, NULL, FF(pid), 1, 4194304, "kill, pause: this PID",
     IN_FAULT},
    {"fault", "restart_after", K_DURATION, NULL, NULL, FF(restart_after_ns), 1000000,
     AT_MOST_A_DAY, "kill: start a lab host's service again this much later", IN_FAULT},
    {"fault", "path", K_STRING, NULL, NULL, FF(path), 0, 0,
     "corrupt: file or device (default: the scenario's target; for the iscsi lab its LUN)",
     IN_FAULT},
    {"fault", "replica", K_STRING, NULL, NULL, FF(replica), 0, 0,
     "corrupt: a gluster lab server (gs1, gs2, gs3): overwrite that server's brick copy of "
     "path (a file or directory of the volume; default: the tree of the target), the bit-rot "
     "case; the clients' view is not touched", IN_FAULT},
    {"fault", "offset", K_SIZE, "0", NULL, FF(offset), 0, 0, "corrupt: first byte", IN_FAULT},
    {"fault", "length", K_SIZE, NULL, NULL, FF(length), 1, 0, "corrupt: bytes from offset",
     IN_FAULT},
    {"fault", "blocks", K_COUNT, NULL, NULL, FF(blocks), 1, 64,
     "corrupt: this many random blocks (of the workload's block size) instead", IN_FAULT},
    {"fault", "mode", K_CHOICE, "random", "random|zero|bitflip", FF(mode_choice), 0, 0,
     "corrupt: random bytes, zeroes, or one bit flipped in every byte", IN_FAULT},
    {"fault", "seed", K_COUNT, NULL, NULL, FF(seed), 0, 0,
     "corrupt: which blocks and bytes (default: random, in the report)", IN_FAULT},
    {"fault", "command", K_STRING, NULL, NULL, FF(command), 0, 0,
     "command: run with /bin/sh -c on the host at inject (required)", IN_FAULT},
    {"fault", "undo", K_STRING, NULL, NULL, FF(undo), 0, 0,
     "command: run at clear, and by faultline cleanup after a crash", IN_FAULT},

    {"host", "netns", K_STRING, NULL, NULL, FH(netns), 0, 0,
     "the network namespace the host lives in (default: ours)", IN_HOST},
    {"host", "interface", K_STRING, NULL, NULL, FH(interface), 0, 0,
     "its network interface (inside netns)", IN_HOST},
    {"host", "switch_port", K_STRING, NULL, NULL, FH(port), 0, 0,
     "the switch (bridge) port facing it, in our namespace", IN_HOST},
    {"host", "address", K_STRING, NULL, NULL, FH(address), 0, 0,
     "its IPv4 address (for partitions)", IN_HOST},
};

#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const sections[] = {"scenario", "target", "workload", "lab",
                                       "expect",   "fault",  "host"};

/* The keys each fault action takes besides action, host and at.  A key of
 * another action in a [fault] section is a mistake worth naming. */
static const struct {
    const char *action;
    const char *keys;
} action_keys[] = {
    {"link-down", " duration interface "},
    {"port-down", " duration switch_port "},
    {"port-flap", " switch_port count period "},
    {"switch-down", " duration switch "},
    {"partition", " duration peers direction "},
    {"loss", " duration percent port direction "},
    {"bandwidth", " duration rate burst direction interface switch_port "},
    {"kill", " process pidfile pid restart_after "},
    {"pause", " duration process pidfile pid "},
    {"restart", " process pidfile pid "},
    {"corrupt", " path replica offset length blocks mode seed "},
    {"command", " duration command undo "},
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

static const struct key *find_key(const char *section, const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

/* "; did you mean 'block'? known keys: a, b, c" */
static void unknown_key_hint(const char *section, const char *key, char *out, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3;
    size_t used = 0;
    char known[512] = "";
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].section, section) != 0)
            continue;
        size_t d = edit_distance(key, keys[i].key);
        if (d < bestd) {
            bestd = d;
            best = keys[i].key;
        }
        used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0,
                                 "%s%s", used ? ", " : "", keys[i].key);
    }
    if (best)
        snprintf(out, n, "; did you mean '%s'? (known keys: %s)", best, known);
    else
        snprintf(out, n, " (known keys: %s)", known);
}

static int set_value(void *base, const struct key *k, const char *value, char *why, size_t n)
{
    char *field = (char *)base + k->off;
    uint64_t u;
    switch (k->type) {
    case K_STRING:
        if (strlen(value) >= k->len) {
            snprintf(why, n, "value longer than %zu characters", k->len - 1);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case K_RATE:
        if (parse_rate(value, &u, why, n) != 0)
            return -1;
        memcpy(field, &u, sizeof u);
        return 0;
    case K_SIZE:
    case K_DURATION:
    case K_COUNT:
        if ((k->type == K_SIZE ? parse_size(value, &u, why, n)
             : k->type == K_DURATION ? parse_duration(value, &u, why, n)
                                     : parse_count(value, &u, why, n)) != 0)
            return -1;
        if (u < k->min || (k->max && u > k->max)) {
            if (k->type == K_DURATION)
                snprintf(why, n, "'%s' is too short (at least %llu ms)", value,
                         (unsigned long long)(k->min / 1000000));
            else if (k->max)
                snprintf(why, n, "'%s' is out of range (%llu to %llu)", value,
                         (unsigned long long)k->min, (unsigned long long)k->max);
            else
                snprintf(why, n, "'%s' is too small (at least %llu)", value,
                         (unsigned long long)k->min);
            return -1;
        }
        memcpy(field, &u, sizeof u);
        return 0;
    case K_PERCENT: {
        unsigned p;
        if (parse_percent(value, &p, why, n) != 0)
            return -1;
        memcpy(field, &p, sizeof p);
        return 0;
    }
    case K_BOOL: {
        bool b;
        if (parse_bool(value, &b, why, n) != 0)
            return -1;
        memcpy(field, &b, sizeof b);
        return 0;
    }
    case K_CHOICE: {
        const char *c = k->choices ? k->choices : fault_actions;
        int idx = 0;
        size_t vl = strlen(value);
        while (*c) {
            size_t l = strcspn(c, "|");
            if (l == vl && strncmp(c, value, l) == 0) {
                memcpy(field, &idx, sizeof idx);
                return 0;
            }
            c += l + (c[l] == '|');
            idx++;
        }
        snprintf(why, n, "'%s' is not one of %s", value, k->choices ? k->choices : fault_actions);
        return -1;
    }
    }
    return -1;
}

void scenario_use_mount(struct scenario *sc, const char *dir)
{
    snprintf(sc->target.path, sizeof sc->target.path, "%s", dir);
}

void scenario_use_portals(struct scenario *sc, char urls[][FL_URL_MAX], unsigned n)
{
    struct iscsi_cfg *c = &sc->target.iscsi;
    c->nportals = 0;
    for (unsigned i = 0; i < n && i < FL_MAX_PORTALS; i++)
        snprintf(c->portals[c->nportals++], FL_URL_MAX, "%s", urls[i]);
}

/* Defaults of every key of one base (the scenario, a fault, a host). */
static int set_defaults_of(void *base, enum kbase which, char *err, size_t n)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (!keys[i].def || keys[i].base != which)
            continue;
        char why[256];
        if (set_value(base, &keys[i], keys[i].def, why, sizeof why) != 0) {
            snprintf(err, n, "internal: default of %s.%s: %s", keys[i].section, keys[i].key, why);
            return -1;
        }
    }
    return 0;
}

static int set_defaults(struct scenario *sc, char *err, size_t n)
{
    return set_defaults_of(sc, IN_SCENARIO, err, n);
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

/* Line of key in the first section of that type (the section's line when the
 * key is absent), for messages about combinations. */
static int line_of(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++) {
        if (strcmp(ini->sections[i].type, section) != 0)
            continue;
        for (size_t k = 0; k < ini->sections[i].n; k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return ini->sections[i].entries[k].line;
        return ini->sections[i].line;
    }
    return 1;
}

static bool has_key(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++)
        for (size_t k = 0; strcmp(ini->sections[i].type, section) == 0 && k < ini->sections[i].n; k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return true;
    return false;
}

/* "iscsi://a/iqn/1, iscsi://b/iqn/1" -> target.iscsi.portals[] */
static int split_portals(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    struct iscsi_cfg *c = &sc->target.iscsi;
    c->nportals = 0;
    const char *p = sc->portals_text;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        if (c->nportals == FL_MAX_PORTALS) {
            snprintf(err, n, "%s:%d: portals: at most %d", ini->file,
                     line_of(ini, "target", "portals"), FL_MAX_PORTALS);
            return -1;
        }
        if (len >= FL_URL_MAX || strncmp(p, "iscsi://", 8) != 0) {
            snprintf(err, n, "%s:%d: portals: '%.*s' is not iscsi://HOST[:PORT]/IQN/LUN",
                     ini->file, line_of(ini, "target", "portals"), (int)(len < 200 ? len : 200),
                     p);
            return -1;
        }
        memcpy(c->portals[c->nportals], p, len);
        c->portals[c->nportals++][len] = '\0';
        p += len;
    }
    return 0;
}

/* Checks that only make sense with the whole scenario in view. */
static int check_whole(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    int target_line = 0;
    for (size_t i = 0; i < ini->n; i++)
        if (strcmp(ini->sections[i].type, "target") == 0)
            target_line = ini->sections[i].line;
    if (!target_line) {
        snprintf(err, n, "%s: no [target] section (say what to test: kind and path)", ini->file);
        return -1;
    }
    if (!sc->target.kind[0]) {
        snprintf(err, n, "%s:%d: [target] needs 'kind' (%s)", ini->file, target_line,
                 backend_kinds());
        return -1;
    }
    bool iscsi = strcmp(sc->target.kind, "iscsi") == 0;
    bool lab_mount = strcmp(sc->target.kind, "files") == 0 && sc->lab_choice == 2;
    if (!iscsi && !sc->target.path[0] && !lab_mount) {
        snprintf(err, n, "%s:%d: [target] needs 'path'%s", ini->file, target_line,
                 strcmp(sc->target.kind, "files") == 0 ? " (or [scenario] lab = gluster for the "
                 "embedded GlusterFS volume)" : "");
        return -1;
    }
    if (iscsi && sc->target.path[0]) {
        snprintf(err, n, "%s:%d: path: kind = iscsi takes portals, not a path", ini->file,
                 line_of(ini, "target", "path"));
        return -1;
    }
    if (iscsi && !sc->portals_text[0] && sc->lab_choice != 1) {
        snprintf(err, n, "%s:%d: [target] kind = iscsi needs portals (or [scenario] lab = iscsi "
                 "for the embedded lab)", ini->file, target_line);
        return -1;
    }
    if (!iscsi && sc->portals_text[0]) {
        snprintf(err, n, "%s:%d: portals: only for kind = iscsi", ini->file,
                 line_of(ini, "target", "portals"));
        return -1;
    }
    if (sc->portals_text[0] && split_portals(sc, ini, err, n) != 0)
        return -1;
    bool files = strcmp(sc->target.kind, "files") == 0;
    if (files && (sc->engine_choice == 1 || sc->direct)) {
        snprintf(err, n, "%s:%d: %s: kind = files runs the sync engine, buffered (one thread "
                 "per stream, as applications use a filesystem)", ini->file,
                 line_of(ini, "workload", sc->direct ? "direct" : "engine"),
                 sc->direct ? "direct" : "engine");
        return -1;
    }
    static const char *const files_only[] = {"class", "procs", "metadata"};
    for (size_t i = 0; !files && i < 3; i++)
        if (has_key(ini, "workload", files_only[i])) {
            snprintf(err, n, "%s:%d: %s: only for kind = files", ini->file,
                     line_of(ini, "workload", files_only[i]), files_only[i]);
            return -1;
        }
    if (files && sc->procs && has_key(ini, "workload", "depth")) {
        snprintf(err, n, "%s:%d: procs and depth say the same for kind = files: give one",
                 ini->file, line_of(ini, "workload", "procs"));
        return -1;
    }
    if (files && sc->procs)
        sc->depth = sc->procs;
    if (files && !sc->target.size)
        sc->target.size = 64ull << 20;
    if (sc->block % FL_SECTOR != 0) {
        snprintf(err, n, "%s:%d: block: %llu is not a multiple of 512", ini->file,
                 line_of(ini, "workload", "block"), (unsigned long long)sc->block);
        return -1;
    }
    bool direct = sc->direct || strcmp(sc->target.kind, "blockdev") == 0;
    bool sync = !iscsi && (sc->engine_choice == 2 || (sc->engine_choice == 0 && !direct));
    if (sync && sc->workers) {
        snprintf(err, n, "%s:%d: workers: the sync engine runs one worker per I/O in flight "
                 "(depth); workers applies to engine = io_uring", ini->file,
                 line_of(ini, "workload", "workers"));
        return -1;
    }
    if (sync && sc->depth > 256) {
        snprintf(err, n, "%s:%d: depth: at most 256 with the sync engine (one thread per I/O "
                 "in flight); use engine = io_uring for more", ini->file,
                 line_of(ini, "workload", "depth"));
        return -1;
    }
    if (sc->workers > sc->depth) {
        snprintf(err, n, "%s:%d: workers: %llu workers need depth >= %llu", ini->file,
                 line_of(ini, "workload", "workers"), (unsigned long long)sc->workers,
                 (unsigned long long)sc->workers);
        return -1;
    }
    if (sc->target.size && sc->target.size < sc->block) {
        snprintf(err, n, "%s:%d: size: %llu bytes is smaller than one block (%llu)", ini->file,
                 line_of(ini, "target", "size"), (unsigned long long)sc->target.size,
                 (unsigned long long)sc->block);
        return -1;
    }
    return 0;
}

/* The field block a section's keys write into: the scenario, or a new
 * fault or host.  NULL with err when there is no room or a name repeats. */
static void *section_base(const struct ini *ini, const struct ini_section *s,
                          struct scenario *sc, char *err, size_t n)
{
    bool fault = strcmp(s->type, "fault") == 0, host = strcmp(s->type, "host") == 0;
    if (!fault && !host)
        return sc;
    if (!s->name) {
        snprintf(err, n, "%s:%d: [%s] needs a name: [%s NAME]", ini->file, s->line, s->type,
                 s->type);
        return NULL;
    }
    if (fault) {
        for (unsigned i = 0; i < sc->nfaults; i++)
            if (strcmp(sc->faults[i].name, s->name) == 0) {
                snprintf(err, n, "%s:%d: a second [fault %s] (the first is at line %d)",
                         ini->file, s->line, s->name, sc->faults[i].line);
                return NULL;
            }
        if (sc->nfaults == FL_MAX_FAULTS) {
            snprintf(err, n, "%s:%d: at most %d faults", ini->file, s->line, FL_MAX_FAULTS);
            return NULL;
        }
        struct fault_spec *f = &sc->faults[sc->nfaults++];
        memset(f, 0, sizeof *f);
        f->action_choice = -1;
        f->line = s->line;
        snprintf(f->name, sizeof f->name, "%s", s->name);
        if (set_defaults_of(f, IN_FAULT, err, n) != 0)
            return NULL;
        return f;
    }
    for (unsigned i = 0; i < sc->nhosts; i++)
        if (strcmp(sc->hosts[i].name, s->name) == 0) {
            snprintf(err, n, "%s:%d: a second [host %s] (the first is at line %d)", ini->file,
                     s->line, s->name, sc->hosts[i].line);
            return NULL;
        }
    if (sc->nhosts == FL_MAX_HOSTS) {
        snprintf(err, n, "%s:%d: at most %d hosts", ini->file, s->line, FL_MAX_HOSTS);
        return NULL;
    }
    struct host_spec *h = &sc->hosts[sc->nhosts++];
    memset(h, 0, sizeof *h);
    h->line = s->line;
    snprintf(h->name, sizeof h->name, "%s", s->name);
    return h;
}

/* A key of [fault] the section's action does not take. */
static int check_fault_keys(const struct ini *ini, const struct ini_section *s,
                            const struct fault_spec *f, char *err, size_t n)
{
    if (f->action_choice < 0) {
        snprintf(err, n, "%s:%d: [fault %s] needs action (%s)", ini->file, s->line, f->name,
                 fault_actions);
        return -1;
    }
    const char *action = fault_action_name(f->action_choice);
    const char *takes = "";
    for (size_t i = 0; i < sizeof action_keys / sizeof action_keys[0]; i++)
        if (strcmp(action_keys[i].action, action) == 0)
            takes = action_keys[i].keys;
    for (size_t k = 0; k < s->n; k++) {
        const char *key = s->entries[k].key;
        if (!strcmp(key, "action") || !strcmp(key, "host") || !strcmp(key, "at") ||
            !strncmp(key, "expect_", 7))
            continue;
        char word[40];
        snprintf(word, sizeof word, " %s ", key);
        if (!strstr(takes, word)) {
            snprintf(err, n, "%s:%d: '%s' does not apply to action %s (it takes:%s)", ini->file,
                     s->entries[k].line, key, action, takes);
            return -1;
        }
    }
    return 0;
}

/* "; did you mean 'max_stall'? (known: ...)" for a metric name. */
static void unknown_metric_hint(const char *name, bool fault, char *out, size_t n)
{
    char best[48] = "", known[768] = "";
    size_t bestd = 3, used = 0;
    int count = fault ? F_COUNT : M_RUN_COUNT;
    for (int i = 0; i < count; i++) {
        char full[48];
        snprintf(full, sizeof full, "%s%s", fault ? "expect_" : "",
                 fault ? fault_metrics[i].name : run_metrics[i].name);
        size_t d = edit_distance(name, full);
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
    const char *name = fault >= 0 ? e->key + 7 : e->key;
    int m = fault >= 0 ? fault_metric_find(name) : run_metric_find(name);
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
    if (expect_op_parse(e->op, &x->op) != 0) {
        snprintf(err, n, "%s:%d: %s: '%s' is not a comparison (=, <, <=, >, >=)", ini->file,
                 e->line, e->key, e->op);
        return -1;
    }
    char why[256];
    uint64_t u;
    if (expect_metric(x)->seconds) {
        if (parse_duration(e->value, &u, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s: %s (a duration: 500ms, 20s)", ini->file, e->line,
                     e->key, why);
            return -1;
        }
        x->value = (double)u / 1e9;
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

static int bind(const struct ini *ini, struct scenario *sc, char *err, size_t n)
{
    for (size_t i = 0; i < ini->n; i++) {
        const struct ini_section *s = &ini->sections[i];
        size_t t = 0;
        while (t < NSECTIONS && strcmp(sections[t], s->type) != 0)
            t++;
        if (t == NSECTIONS) {
            snprintf(err, n, "%s:%d: unknown section [%s] (known: scenario, target, workload, "
                     "lab, expect, fault NAME, host NAME)", ini->file, s->line, s->type);
            return -1;
        }
        bool named = strcmp(s->type, "fault") == 0 || strcmp(s->type, "host") == 0;
        if (s->name && !named && strcmp(s->type, "workload") != 0) {
            snprintf(err, n, "%s:%d: [%s] takes no name", ini->file, s->line, s->type);
            return -1;
        }
        for (size_t j = 0; j < i && !named; j++)
            if (strcmp(ini->sections[j].type, s->type) == 0) {
                snprintf(err, n, "%s:%d: a second [%s] section (the first is at line %d); one "
                         "%s per scenario", ini->file, s->line, s->type, ini->sections[j].line,
                         s->type);
                return -1;
            }
        void *base = section_base(ini, s, sc, err, n);
        if (!base)
            return -1;
        for (size_t k = 0; k < s->n; k++) {
            const struct ini_entry *e = &s->entries[k];
            bool is_fault = base != sc && strcmp(s->type, "fault") == 0;
            if (strcmp(s->type, "expect") == 0 ||
                (is_fault && strncmp(e->key, "expect_", 7) == 0)) {
                if (add_expectation(ini, sc, is_fault ? (int)sc->nfaults - 1 : -1, e, err, n) != 0)
                    return -1;
                continue;
            }
            if (strcmp(e->op, "=") != 0) {
                snprintf(err, n, "%s:%d: %s %s %s: only [expect] and expect_* keys compare; "
                         "set it with '='", ini->file, e->line, e->key, e->op, e->value);
                return -1;
            }
            const struct key *spec = find_key(s->type, e->key);
            if (!spec) {
                char hint[1400];
                unknown_key_hint(s->type, e->key, hint, sizeof hint);
                snprintf(err, n, "%s:%d: unknown key '%s' in [%s]%s", ini->file, e->line, e->key,
                         s->type, hint);
                return -1;
            }
            for (size_t p = 0; p < k; p++)
                if (strcmp(s->entries[p].key, e->key) == 0) {
                    snprintf(err, n, "%s:%d: '%s' is set twice in [%s] (first at line %d)",
                             ini->file, e->line, e->key, s->type, s->entries[p].line);
                    return -1;
                }
            char why[300];
            if (set_value(base, spec, e->value, why, sizeof why) != 0) {
                snprintf(err, n, "%s:%d: %s: %s", ini->file, e->line, e->key, why);
                return -1;
            }
            if (strcmp(e->key, "seed") == 0) {
                if (base == sc)
                    sc->seed_given = true;
                else
                    ((struct fault_spec *)base)->seed_given = true;
            }
            if (strcmp(s->type, "target") == 0 && strcmp(e->key, "kind") == 0 &&
                !backend_find(e->value)) {
                snprintf(err, n, "%s:%d: kind: unknown target kind '%s' (known: %s)", ini->file,
                         e->line, e->value, backend_kinds());
                return -1;
            }
        }
        if (strcmp(s->type, "fault") == 0 && check_fault_keys(ini, s, base, err, n) != 0)
            return -1;
    }
    return 0;
}

/* What only the whole scenario can tell about its faults: hosts exist,
 * required keys are there, destructive faults are allowed. */
static int check_faults(const struct scenario *sc, const char *file, char *err, size_t n)
{
    static const char *const lab_hosts[3][4] = {
        {NULL}, {"client", "ctrl-a", "ctrl-b", NULL}, {"client", "gs1", "gs2", "gs3"}};
    static const char *const lab_names[3] = {" (there is no lab)", " (client, ctrl-a, ctrl-b)",
                                             " (client, gs1, gs2, gs3)"};
    for (unsigned i = 0; i < sc->nfaults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        const char *action = fault_action_name(f->action_choice);
        bool known = strcmp(f->host, "local") == 0;
        for (unsigned h = 0; h < sc->nhosts && !known; h++)
            known = strcmp(sc->hosts[h].name, f->host) == 0;
        for (int h = 0; h < 4 && !known && lab_hosts[sc->lab_choice][h]; h++)
            known = strcmp(lab_hosts[sc->lab_choice][h], f->host) == 0;
        if (!known) {
            snprintf(err, n, "%s:%d: [fault %s] host '%s' is neither a lab host%s, local, nor a "
                     "[host NAME] of this scenario", file, f->line, f->name, f->host,
                     lab_names[sc->lab_choice]);
            return -1;
        }
        if (strcmp(action, "loss") == 0 && f->percent == 0) {
            snprintf(err, n, "%s:%d: [fault %s] loss needs percent", file, f->line, f->name);
            return -1;
        }
        if (strcmp(action, "bandwidth") == 0 && f->rate_bps == 0) {
            snprintf(err, n, "%s:%d: [fault %s] bandwidth needs rate (e.g. 10mbit)", file,
                     f->line, f->name);
            return -1;
        }
        if (strcmp(action, "command") == 0 && !f->command[0]) {
            snprintf(err, n, "%s:%d: [fault %s] command needs command", file, f->line, f->name);
            return -1;
        }
        if (strcmp(action, "corrupt") == 0) {
            if (!sc->allow_destructive) {
                snprintf(err, n, "%s:%d: refusing [fault %s] (corrupt): it needs [scenario] "
                         "allow_destructive = yes", file, f->line, f->name);
                return -1;
            }
            if (!f->length && !f->blocks) {
                snprintf(err, n, "%s:%d: [fault %s] corrupt needs offset and length, or blocks",
                         file, f->line, f->name);
                return -1;
            }
            if (f->length && f->blocks) {
                snprintf(err, n, "%s:%d: [fault %s] corrupt takes length or blocks, not both",
                         file, f->line, f->name);
                return -1;
            }
        }
        if (strcmp(action, "port-flap") == 0 && f->period_ns < 2000000) {
            snprintf(err, n, "%s:%d: [fault %s] period is too short", file, f->line, f->name);
            return -1;
        }
    }
    return 0;
}

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
    sc->target.direct = sc->direct || strcmp(sc->target.kind, "blockdev") == 0;
    sc->target.engine = sc->engine_choice == 1   ? ENGINE_URING
                        : sc->engine_choice == 2 ? ENGINE_SYNC
                        : sc->target.direct      ? ENGINE_URING
                                                 : ENGINE_SYNC;
    if (strcmp(sc->target.kind, "files") == 0) {
        sc->target.engine = ENGINE_SYNC;
        sc->target.files.tree_class = sc->class_choice;
        sc->target.files.block_size = (uint32_t)sc->block;
        snprintf(sc->target.files.tree_name, sizeof sc->target.files.tree_name, "%s", sc->name);
    }
    struct iscsi_cfg *c = &sc->target.iscsi;
    if (strcmp(sc->target.kind, "iscsi") == 0) {
        sc->target.engine = ENGINE_URING; /* libiscsi is asynchronous: one thread, depth commands */
        sc->target.direct = true;
    }
    c->command_timeout_s = (unsigned)((sc->command_timeout_ns + 999999999ull) / 1000000000ull);
    c->tcp_user_timeout_ms = (unsigned)(sc->tcp_user_timeout_ns / 1000000ull);
    c->nop_interval_ms = (unsigned)(sc->nop_interval_ns / 1000000ull);
    c->nop_missed = (unsigned)sc->nop_missed;
    c->io_timeout_ns = sc->io_timeout_ns;
    c->login_timeout_ns = sc->login_timeout_ns;
    c->retry_interval_ns = sc->retry_interval_ns;
}

int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->file, sizeof sc->file, "%s", file);
    if (set_defaults(sc, err, errlen) != 0)
        return -1;
    struct ini ini;
    if (ini_parse(text, file, &ini, err, errlen) != 0)
        return -1;
    int rc = bind(&ini, sc, err, errlen);
    if (rc == 0)
        rc = check_whole(sc, &ini, err, errlen);
    if (rc == 0)
        rc = check_faults(sc, file, err, errlen);
    ini_free(&ini);
    if (rc != 0)
        return -1;
    if (!sc->name[0])
        name_from_file(file, sc->name, sizeof sc->name);
    derive(sc);
    return 0;
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

static const char *type_name(enum ktype t)
{
    switch (t) {
    case K_STRING:
        return "text";
    case K_SIZE:
        return "size";
    case K_DURATION:
        return "duration";
    case K_PERCENT:
        return "percent";
    case K_BOOL:
        return "yes/no";
    case K_COUNT:
        return "count";
    case K_CHOICE:
        return "choice";
    case K_RATE:
        return "rate";
    }
    return "?";
}

void scenario_reference(FILE *out)
{
    for (size_t s = 0; s < NSECTIONS; s++) {
        bool named = strcmp(sections[s], "fault") == 0 || strcmp(sections[s], "host") == 0;
        fprintf(out, "[%s%s]\n", sections[s], named ? " NAME" : "");
        for (size_t i = 0; i < NKEYS; i++) {
            const struct key *k = &keys[i];
            if (strcmp(k->section, sections[s]) != 0)
                continue;
            fprintf(out, "  %-16s %-9s", k->key,
                    k->type == K_CHOICE && k->choices ? k->choices : type_name(k->type));
            if (k->def)
                fprintf(out, " default %s", k->def);
            fprintf(out, "\n      %s\n", k->help);
        }
        /* Expectations: a metric, a comparison, a value. */
        bool expect = strcmp(sections[s], "expect") == 0, fault = strcmp(sections[s], "fault") == 0;
        for (int i = 0; expect && i < M_RUN_COUNT; i++)
            fprintf(out, "  %-16s  %s %s\n      %s\n", run_metrics[i].name,
                    run_metrics[i].seconds ? "duration" : "count   ",
                    run_metrics[i].integrity ? "default = 0 (integrity rule)" : "",
                    run_metrics[i].help);
        for (int i = 0; fault && i < F_COUNT; i++) {
            char key[48];
            snprintf(key, sizeof key, "expect_%s", fault_metrics[i].name);
            fprintf(out, "  %-16s  %s\n      %s\n", key,
                    fault_metrics[i].seconds ? "duration" : "count", fault_metrics[i].help);
        }
        if (expect || fault)
            fprintf(out, "      (%s compare with =, <, <=, >, >=)\n",
                    expect ? "metrics" : "expect_* keys");
        fprintf(out, "\n");
    }
    for (size_t i = 0; i < sizeof action_keys / sizeof action_keys[0]; i++)
        fprintf(out, "%s %-12s takes%s\n", i ? "      " : "Faults:", action_keys[i].action,
                action_keys[i].keys);
    fprintf(out, "\n");
    fprintf(out, "Sizes: 512, 4k, 4KiB, 64MiB, 1GiB (binary units, as in fio).\n"
                 "Durations: 500ms, 10s, 2m, 1h; a bare number is seconds.\n"
                 "Comments start with # or ; (inline: after a blank).\n");
}
