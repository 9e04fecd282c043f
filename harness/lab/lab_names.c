/* lab_names — names that follow from a prefix: the prefix itself, the
 * hosts' names and addresses, a host by its name; and the small helpers
 * every part of the lab shares (a hash for names, a pause for polling).
 * See lab.h and lab_names.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab_names.h"

int lab_prefix(const char *given, char *out, size_t n, char *err, size_t errlen)
{
    const char *p = given && *given ? given : getenv("FAULTLINE_LAB_PREFIX");
    if (!p || !*p)
        p = "fl";
    size_t len = strlen(p);
    bool ok = len >= 2 && len <= 8 && strncmp(p, "fl", 2) == 0;
    for (size_t i = 0; ok && i < len; i++)
        ok = islower((unsigned char)p[i]) || isdigit((unsigned char)p[i]);
    if (!ok) {
        snprintf(err, errlen, "lab prefix '%s': 2 to 8 lower-case letters or digits starting "
                 "with 'fl' (interface names have at most 15 characters)", p);
        return -1;
    }
    snprintf(out, n, "%s", p);
    return 0;
}

void lab_pause_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

uint32_t lab_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void lab_lay_out_client(struct lab *lab, const char *ifname)
{
    struct lab_host *c = &lab->hosts[0];
    snprintf(c->name, sizeof c->name, "client");
    c->netns[0] = '\0';
    snprintf(c->ifname, sizeof c->ifname, "%s-%s", lab->prefix, ifname);
    snprintf(c->port, sizeof c->port, "%.12s-c", lab->bridge); /* P-xsw: at most 12 */
    snprintf(c->addr, sizeof c->addr, "198.18.%u.1", lab->subnet);
}

void lab_lay_out_server(struct lab *lab, struct lab_host *h, const char *name, const char *port,
                        unsigned hostno)
{
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->netns, sizeof h->netns, "%s-%s-%s", lab->prefix, lab->kind->name, name);
    snprintf(h->ifname, sizeof h->ifname, "eth0");
    snprintf(h->port, sizeof h->port, "%s", port);
    snprintf(h->addr, sizeof h->addr, "198.18.%u.%u", lab->subnet, hostno);
}

const struct lab_host *lab_host(const struct lab *lab, const char *name)
{
    for (unsigned i = 0; i < lab->nhosts; i++)
        if (strcmp(lab->hosts[i].name, name) == 0)
            return &lab->hosts[i];
    for (unsigned i = 0; i < lab->nclients; i++)
        if (strcmp(lab->clients[i].name, name) == 0)
            return &lab->clients[i];
    return NULL;
}

struct lab_host *lab_host_mut(struct lab *lab, const char *name)
{
    return (struct lab_host *)lab_host(lab, name);
}
