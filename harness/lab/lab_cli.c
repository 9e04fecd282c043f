/* lab_cli — `faultline lab up|down|status KIND`, and restart and power of
 * one of its hosts; see lab.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/units.h"
#include "lab_kind.h"
#include "lab_server.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: faultline lab up|down|status KIND [--prefix P] [--json] [--size SIZE]\n"
                 "                     [--clients N] [--KEY VALUE]...\n"
                 "       faultline lab restart KIND HOST [--prefix P]\n"
                 "       faultline lab power KIND HOST off|on|status [--prefix P]\n"
                 "\n"
                 "The embedded lab: a storage cluster on this machine, in network namespaces\n"
                 "on a Linux bridge, addresses from 198.18.0.0/15.  KIND:\n");
    const struct lab_kind *const *kinds;
    unsigned n = lab_kinds_all(&kinds);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "  %-8s %s\n", kinds[i]->name, kinds[i]->summary);
    fprintf(out, "\n"
                 "  up       build it (harmless when it is up already)\n"
                 "  down     remove everything it created, also after a crash\n"
                 "  status   hosts, addresses, switch ports, processes, portals, ssh (exit 1: not\n"
                 "           up)\n"
                 "  restart  start the service of HOST again, configured as before (what a\n"
                 "           restart fault does; over ssh, the host's agent runs this)\n"
                 "  power    cut the power of server HOST (off), bring it back as after a cold\n"
                 "           start (on), or say which it is (status: prints on, off or unknown;\n"
                 "           exit 1 for unknown): a power-off fault's lab side, and with\n"
                 "           [lab] control = ssh the server's BMC, run through the switch's sshd\n"
                 "  init     (no KIND) PID 1 of a gluster or ceph server's PID namespace, as\n"
                 "           lab up starts it; nothing else runs it\n"
                 "  --prefix P   names start with P (default fl, or $FAULTLINE_LAB_PREFIX): 2 to 8\n"
                 "               lower-case letters or digits starting with fl (interface names\n"
                 "               have at most 15 characters); labs of different prefixes and\n"
                 "               kinds run side by side, each on a subnet of its own\n"
                 "  --json       status as JSON\n"
                 "  --size SIZE  for up: the storage of each server (sparse); default");
    for (unsigned i = 0; i < n; i++) {
        char size[32];
        format_size(kinds[i]->build->default_size, size, sizeof size);
        fprintf(out, "%s %s %s", i ? "," : "", kinds[i]->name, size);
    }
    fprintf(out, "\n  --clients N  for up: client hosts c1..cN (2 to %d), each a namespace on the "
                 "switch\n               with an sshd on a management network (default: we "
                 "are the client)\n", LAB_MAX_CLIENTS);
    fprintf(out, "  --KEY VALUE  for up: a [lab] key of the kind, with - for _:\n");
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < kinds[i]->keys.n; k++) {
            char opt[40];
            snprintf(opt, sizeof opt, "--%s", kinds[i]->keys.keys[k].name);
            for (char *c = opt + 2; *c; c++)
                *c = *c == '_' ? '-' : *c;
            fprintf(out, "               %s (%s)\n", opt, kinds[i]->name);
        }
}

/* --write-cache on: a [lab] key of kind k given as an option. */
static int set_option(const struct lab_kind *k, struct lab_opts *o, const char *opt,
                      const char *value)
{
    char name[40];
    snprintf(name, sizeof name, "%s", opt + 2);
    for (char *c = name; *c; c++)
        *c = *c == '-' ? '_' : *c;
    const struct key_def *key = key_find(k->keys.keys, k->keys.n, name);
    if (!key) {
        fprintf(stderr, "faultline: unknown option %s for lab %s\n\n", opt, k->name);
        usage(stderr);
        return -1;
    }
    char why[256];
    if (key_set(o, key, value, why, sizeof why) != 0) {
        fprintf(stderr, "faultline: %s: %s\n", opt, why);
        return -1;
    }
    return 0;
}

/* The verb's words: operation, kind and options.  0, or the exit status. */
struct lab_args {
    const char *op, *kind, *host, *prefix;
    const char *power; /* lab power: off, on or status */
    bool json;
    const char *size, *clients;
    const char *options[32][2]; /* --KEY VALUE, applied once the kind is known */
    unsigned noptions;
};

static int parse_args(int argc, char **argv, struct lab_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--prefix") == 0 && i + 1 < argc) {
            a->prefix = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            a->size = argv[++i];
        } else if (strcmp(argv[i], "--clients") == 0 && i + 1 < argc) {
            a->clients = argv[++i];
        } else if (strncmp(argv[i], "--", 2) == 0 && i + 1 < argc && a->noptions < 32) {
            a->options[a->noptions][0] = argv[i];
            a->options[a->noptions++][1] = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "faultline: unknown option %s\n\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!a->op) {
            a->op = argv[i];
        } else if (!a->kind) {
            a->kind = argv[i];
        } else if (!a->host && (strcmp(a->op, "restart") == 0 || strcmp(a->op, "power") == 0)) {
            a->host = argv[i];
        } else if (!a->power && strcmp(a->op, "power") == 0) {
            a->power = argv[i];
        } else {
            fprintf(stderr, "faultline: extra argument %s\n\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!a->op || !a->kind) {
        fprintf(stderr, "faultline: lab needs an operation and a kind\n\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static int lab_up_verb(const struct lab_kind *k, const struct lab_args *a, const char *prefix)
{
    struct lab_opts o;
    char err[2048];
    if (lab_opts_init(k, &o, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    snprintf(o.prefix, sizeof o.prefix, "%s", prefix);
    if (a->size && parse_size(a->size, &o.size, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: --size: %s\n", err);
        return 2;
    }
    if (a->clients) {
        char *end;
        unsigned long n = strtoul(a->clients, &end, 10);
        if (*end || n < 1 || n > LAB_MAX_CLIENTS) {
            fprintf(stderr, "faultline: --clients %s: a count from 1 to %d\n", a->clients,
                    LAB_MAX_CLIENTS);
            return 2;
        }
        o.clients = n;
    }
    for (unsigned i = 0; i < a->noptions; i++)
        if (set_option(k, &o, a->options[i][0], a->options[i][1]) != 0)
            return 2;
    struct lab lab;
    bool created;
    if (lab_up(k, &o, &lab, &created, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: lab up %s: %s\n", k->name, err);
        return 2;
    }
    if (!a->json)
        printf("%s\n", created ? "lab is up:" : "lab was up already:");
    lab_status(&lab, a->json, stdout);
    return 0;
}

static int lab_down_verb(const struct lab_kind *k, const char *prefix)
{
    char err[2048];
    struct lab lab;
    bool was = lab_load(k, prefix, &lab, err, sizeof err) == 0;
    char state[PATH_MAX];
    snprintf(state, sizeof state, "%s/%s-%s.state", LAB_STATE_DIR, prefix, k->name);
    bool recorded = access(state, F_OK) == 0;
    if (lab_down(k, prefix, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: lab down %s: %s\n", k->name, err);
        return 2;
    }
    printf("lab %s (prefix %s) %s\n", k->name, prefix,
           was || recorded ? "is down: everything it created is removed" : "was not up");
    return 0;
}

static int lab_status_verb(const struct lab_kind *k, bool json, const char *prefix)
{
    char err[2048];
    struct lab lab;
    if (lab_load(k, prefix, &lab, err, sizeof err) != 0) {
        if (json)
            printf("{\"lab\": \"%s\", \"prefix\": \"%s\", \"up\": false}\n", k->name, prefix);
        else
            printf("%s\n", err);
        return 1;
    }
    lab_status(&lab, json, stdout);
    return 0;
}

/* `lab power KIND HOST off|on|status`: what a BMC does and says. */
static int lab_power_verb(const struct lab_kind *k, const struct lab_args *a, const char *prefix)
{
    if (!a->host || !a->power ||
        (strcmp(a->power, "off") != 0 && strcmp(a->power, "on") != 0 &&
         strcmp(a->power, "status") != 0)) {
        fprintf(stderr, "faultline: lab power needs a host and off, on or status\n");
        return 2;
    }
    struct lab lab;
    char e[2048], what[512];
    if (lab_load(k, prefix, &lab, e, sizeof e) != 0) {
        fprintf(stderr, "faultline: lab power %s %s: %s\n", k->name, a->host, e);
        return 2;
    }
    if (strcmp(a->power, "status") == 0) {
        int on = lab_power_state(&lab, a->host, what, sizeof what);
        printf("%s\n", what);
        return on < 0 ? 1 : 0;
    }
    bool on = strcmp(a->power, "on") == 0;
    if (lab_power(&lab, a->host, on, what, sizeof what, e, sizeof e) != 0) {
        fprintf(stderr, "faultline: lab power %s %s %s: %s\n", k->name, a->host, a->power, e);
        return 2;
    }
    printf("%s\n", what); /* what the lab did: a power fault's report shows it */
    return 0;
}

int cmd_lab(int argc, char **argv)
{
    /* PID 1 of a lab server's PID namespace (lab_server_boot): no kind */
    if (argc == 3 && strcmp(argv[2], "init") == 0)
        return lab_init_main();
    struct lab_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    const struct lab_kind *k = lab_kind_find(a.kind);
    if (!k) {
        fprintf(stderr, "faultline: unknown lab '%s' (known: %s)\n", a.kind, lab_kinds());
        return 2;
    }
    char prefix[9], err[256];
    if (lab_prefix(a.prefix, prefix, sizeof prefix, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    if (strcmp(a.op, "up") == 0)
        return lab_up_verb(k, &a, prefix);
    if (strcmp(a.op, "down") == 0)
        return lab_down_verb(k, prefix);
    if (strcmp(a.op, "status") == 0)
        return lab_status_verb(k, a.json, prefix);
    if (strcmp(a.op, "restart") == 0) {
        struct lab lab;
        char e[2048];
        if (!a.host) {
            fprintf(stderr, "faultline: lab restart needs a host\n");
            return 2;
        }
        if (lab_load(k, prefix, &lab, e, sizeof e) != 0 || lab_restart(&lab, a.host, e, sizeof e)) {
            fprintf(stderr, "faultline: lab restart %s %s: %s\n", k->name, a.host, e);
            return 2;
        }
        printf("%s of lab %s (prefix %s) started again\n", a.host, k->name, prefix);
        return 0;
    }
    if (strcmp(a.op, "power") == 0)
        return lab_power_verb(k, &a, prefix);
    fprintf(stderr, "faultline: unknown lab operation '%s'\n\n", a.op);
    usage(stderr);
    return 2;
}
