/* lab_ha_config — what the HA lab's cluster is configured with, written
 * before it starts: each node's corosync.conf, the CIB both nodes start
 * from, and the fence agent.  See lab_ha.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../faults/host.h"
#include "../../lib/fsutil.h"
#include "lab_ha.h"

static int done(FILE *f, const char *path, char *err, size_t errlen)
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int ha_write_corosync_conf(const struct lab *lab, const char *path, const char *logfile,
                           char *err, size_t errlen)
{
    const struct ha_lab_opts *o = ha_opts(lab);
    FILE *f = file_create(path, 0644, true, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "# written by faultline lab up ha: the %s-ha cluster\n"
               "totem {\n"
               "    version: 2\n"
               "    cluster_name: %s-ha\n"
               "    transport: knet\n"
               "    crypto_cipher: none\n"
               "    crypto_hash: none\n"
               "    token: %llu\n",
            lab->prefix, lab->prefix, (unsigned long long)(o->token_ns / 1000000ull));
    if (o->consensus_ns)
        fprintf(f, "    consensus: %llu\n", (unsigned long long)(o->consensus_ns / 1000000ull));
    fprintf(f, "}\n"
               "logging {\n"
               "    to_stderr: no\n"
               "    to_syslog: no\n"
               "    to_logfile: yes\n"
               "    logfile: %s\n"
               "    timestamp: hires\n"
               "}\n"
               /* two nodes: each keeps quorum alone once both were seen
                * (wait_for_all), and fencing settles who serves */
               "quorum {\n"
               "    provider: corosync_votequorum\n"
               "    two_node: 1\n"
               "}\n"
               "nodelist {\n",
            logfile);
    for (unsigned i = 1; i < lab->nhosts; i++)
        fprintf(f, "    node {\n"
                   "        name: %s\n"
                   "        nodeid: %u\n"
                   "        ring0_addr: %s\n"
                   "    }\n",
                lab->hosts[i].name, i, lab->hosts[i].addr);
    fprintf(f, "}\n");
    return done(f, path, err, errlen);
}

void ha_lun_path(const struct lab *lab, char *out, size_t n)
{
    if (ha_opts(lab)->write_cache)
        snprintf(out, n, "%.150s/lun", ha_priv(lab)->cache);
    else
        snprintf(out, n, "%.150s", ha_priv(lab)->lun);
}

static void nvpair(FILE *f, const char *set, const char *name, const char *value)
{
    fprintf(f, "        <nvpair id=\"%s-%s\" name=\"%s\" value=\"%s\"/>\n", set, name, name,
            value);
}

/* One primitive of the group: its agent, parameters and monitor. */
static void primitive(FILE *f, const char *id, const char *type, const char *const params[],
                      const char *monitor)
{
    fprintf(f, "        <primitive id=\"%s\" class=\"ocf\" provider=\"heartbeat\" type=\"%s\">\n"
               "          <instance_attributes id=\"%s-ia\">\n", id, type, id);
    for (unsigned i = 0; params[i]; i += 2)
        fprintf(f, "            <nvpair id=\"%s-%s\" name=\"%s\" value=\"%s\"/>\n", id,
                params[i], params[i], params[i + 1]);
    fprintf(f, "          </instance_attributes>\n"
               "          <operations>\n"
               "            <op id=\"%s-monitor\" name=\"monitor\" interval=\"%s\" "
               "timeout=\"20s\"/>\n"
               "          </operations>\n"
               "        </primitive>\n", id, monitor);
}

int ha_write_cib(const struct lab *lab, const char *path, unsigned uid, unsigned gid, char *err,
                 size_t errlen)
{
    const struct ha_lab *x = ha_priv(lab);
    const struct ha_lab_opts *o = ha_opts(lab);
    FILE *f = file_create(path, 0600, true, err, errlen);
    if (!f)
        return -1;
    if (fchown(fileno(f), uid, gid) != 0) {
        snprintf(err, errlen, "cannot give %s to hacluster: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    char stick[24];
    snprintf(stick, sizeof stick, "%llu", (unsigned long long)o->stickiness);
    fprintf(f, "<cib validate-with=\"pacemaker-3.9\" epoch=\"1\" num_updates=\"0\" "
               "admin_epoch=\"0\">\n  <configuration>\n    <crm_config>\n"
               "      <cluster_property_set id=\"opts\">\n");
    nvpair(f, "opts", "cluster-name", lab->prefix);
    nvpair(f, "opts", "stonith-enabled", o->fencing ? "true" : "false");
    /* a fenced node stays off, as after a BMC's power-off; the lab (or a
     * fault's power-on) brings it back */
    nvpair(f, "opts", "stonith-action", "off");
    /* both nodes start together from this CIB: no need to wait 20 s for
     * a DC that another node might already be */
    nvpair(f, "opts", "dc-deadtime", "5s");
    /* in a fencing race between the nodes, the one holding the group (its
     * priority) is fenced 5 s later, so it wins */
    nvpair(f, "opts", "priority-fencing-delay", "5s");
    fprintf(f, "      </cluster_property_set>\n    </crm_config>\n    <nodes>\n");
    for (unsigned i = 1; i < lab->nhosts; i++)
        fprintf(f, "      <node id=\"%u\" uname=\"%s\"/>\n", i, lab->hosts[i].name);
    fprintf(f, "    </nodes>\n    <resources>\n");
    for (unsigned i = 1; o->fencing && i < lab->nhosts; i++) {
        const char *n = lab->hosts[i].name;
        fprintf(f, "      <primitive id=\"fence-%s\" class=\"stonith\" type=\"fence_faultline\">\n"
                   "        <instance_attributes id=\"fence-%s-ia\">\n"
                   "          <nvpair id=\"fence-%s-hosts\" name=\"pcmk_host_list\" "
                   "value=\"%s\"/>\n"
                   "        </instance_attributes>\n"
                   "        <operations>\n"
                   "          <op id=\"fence-%s-monitor\" name=\"monitor\" interval=\"60s\"/>\n"
                   "        </operations>\n"
                   "      </primitive>\n", n, n, n, n, n);
    }
    fprintf(f, "      <group id=\"%s\">\n"
               "        <meta_attributes id=\"%s-meta\">\n"
               "          <nvpair id=\"%s-priority\" name=\"priority\" value=\"10\"/>\n"
               "        </meta_attributes>\n", HA_GROUP, HA_GROUP, HA_GROUP);
    /* tgtd in the foreground, so that its monitor watches tgtd itself;
     * tgtd does not end on SIGTERM: the agent's SIGKILL comes after 1 s,
     * not after 2/3 of the stop's timeout (13 s of every move) */
    const char *tgtd[] = {"binfile", "/usr/sbin/tgtd", "cmdline_options", "-f",
                          "stop_timeout", "1", NULL};
    char portal[48];
    snprintf(portal, sizeof portal, "%.23s:3260", x->vip);
    const char *target[] = {"implementation", "tgt", "iqn", x->iqn, "tid", "1", "portals",
                            portal, "allowed_initiators", "ALL", NULL};
    /* without write_cache, the caching mode page with WCE cleared, as the
     * iscsi lab's: every write is on the shared storage before it
     * completes; with it, the node's cache holds writes until a
     * SYNCHRONIZE CACHE */
    char lunpath[200];
    ha_lun_path(lab, lunpath, sizeof lunpath);
    const char *lun[] = {"implementation", "tgt", "target_iqn", x->iqn, "lun", "1", "path",
                         lunpath, "scsi_sn", x->serial, "scsi_id", x->serial,
                         o->write_cache ? NULL : "additional_parameters",
                         "mode_page=8:0:18:0x10:0:0xff:0xff:0:0:0xff:0xff:0xff:0xff:0x80:0x14:"
                         "0:0:0:0:0:0",
                         NULL};
    const char *vip[] = {"ip", x->vip, "cidr_netmask", "24", "nic", "eth0", NULL};
    primitive(f, HA_RSC_TGTD, "anything", tgtd, "2s");
    primitive(f, HA_RSC_TARGET, "iSCSITarget", target, "5s");
    primitive(f, HA_RSC_LUN, "iSCSILogicalUnit", lun, "5s");
    primitive(f, HA_RSC_VIP, "IPaddr2", vip, "2s");
    fprintf(f, "      </group>\n    </resources>\n    <constraints>\n");
    /* a node never fences itself; the group starts on n1 (a preference
     * below the stickiness: once moved, it stays where it went) */
    for (unsigned i = 1; o->fencing && i < lab->nhosts; i++)
        fprintf(f, "      <rsc_location id=\"fence-%s-away\" rsc=\"fence-%s\" node=\"%s\" "
                   "score=\"-INFINITY\"/>\n", lab->hosts[i].name, lab->hosts[i].name,
                lab->hosts[i].name);
    fprintf(f, "      <rsc_location id=\"%s-prefers\" rsc=\"%s\" node=\"%s\" score=\"%llu\"/>\n",
            HA_GROUP, HA_GROUP, lab->hosts[1].name,
            (unsigned long long)(o->stickiness > 1 ? o->stickiness / 2 : 1));
    fprintf(f, "    </constraints>\n    <rsc_defaults>\n"
               "      <meta_attributes id=\"rsc-defaults\">\n");
    nvpair(f, "rsc-defaults", "resource-stickiness", stick);
    fprintf(f, "      </meta_attributes>\n    </rsc_defaults>\n  </configuration>\n"
               "  <status/>\n</cib>\n");
    return done(f, path, err, errlen);
}

/* The end of the list action, then the metadata one: what pacemaker-fenced
 * asks an agent first. */
static void fence_metadata(FILE *f)
{
    fprintf(f, ";;\n"
               "metadata) cat <<'EOF'\n"
               "<?xml version=\"1.0\" ?>\n"
               "<resource-agent name=\"fence_faultline\" shortdesc=\"Fence agent of a faultline "
               "lab\">\n"
               "<longdesc>Powers a node of a faultline lab off and on through the lab, as a "
               "BMC would.</longdesc>\n"
               "<parameters>\n"
               "<parameter name=\"action\" unique=\"0\" required=\"1\"><getopt mixed=\"-o\"/>"
               "<content type=\"string\" default=\"reboot\"/><shortdesc lang=\"en\">Fencing "
               "action</shortdesc></parameter>\n"
               "<parameter name=\"plug\" unique=\"0\" required=\"0\"><getopt mixed=\"-n\"/>"
               "<content type=\"string\"/><shortdesc lang=\"en\">The node</shortdesc>"
               "</parameter>\n"
               "<parameter name=\"port\" unique=\"0\" required=\"0\"><getopt mixed=\"-n\"/>"
               "<content type=\"string\"/><shortdesc lang=\"en\">The node</shortdesc>"
               "</parameter>\n"
               "</parameters>\n"
               "<actions>\n"
               "<action name=\"on\"/><action name=\"off\"/><action name=\"reboot\"/>"
               "<action name=\"status\"/><action name=\"monitor\"/><action name=\"list\"/>"
               "<action name=\"metadata\"/>\n"
               "</actions>\n"
               "</resource-agent>\n"
               "EOF\n"
               ";;\n"
               "*) echo \"fence_faultline: action '$action' is not supported\" >&2; exit 1 ;;\n"
               "esac\n");
}

int ha_write_fence_agent(const struct lab *lab, char *err, size_t errlen)
{
    char path[200];
    snprintf(path, sizeof path, "%s/fence_faultline", ha_priv(lab)->fence);
    FILE *f = file_create(path, 0700, true, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "#!/bin/sh\n"
               "# fence_faultline: the fence agent of the faultline lab %s-ha.  The lab is\n"
               "# the nodes' BMC: a node is powered off and on with `faultline lab power`,\n"
               "# through the switch's sshd, as fence_ipmilan reaches a BMC.  Arguments as\n"
               "# pacemaker-fenced gives them: KEY=VALUE lines on stdin, or -o ACTION -n NODE.\n"
               "action=reboot plug=\n"
               "if [ $# -gt 0 ]; then\n"
               "    while [ $# -gt 0 ]; do\n"
               "        case $1 in\n"
               "        -o) action=$2; shift ;;\n"
               "        --action=*) action=${1#*=} ;;\n"
               "        -n) plug=$2; shift ;;\n"
               "        --plug=*|--port=*) plug=${1#*=} ;;\n"
               "        esac\n"
               "        shift\n"
               "    done\n"
               "else\n"
               "    while IFS='=' read -r key value; do\n"
               "        case $key in\n"
               "        action) action=$value ;;\n"
               "        port|plug) plug=$value ;;\n"
               "        esac\n"
               "    done\n"
               "fi\n", lab->prefix);
    for (unsigned i = 1; i < lab->nhosts; i++) {
        struct host_power p;
        if (!lab_ssh_power(lab, lab->hosts[i].name, &p)) {
            snprintf(err, errlen, "no power commands for %s: the fence agent cannot reach it",
                     lab->hosts[i].name);
            fclose(f);
            return -1;
        }
        fprintf(f, "power_%s() {\n"
                   "    case $1 in\n"
                   "    off) %s ;;\n"
                   "    on) %s ;;\n"
                   "    status) %s ;;\n"
                   "    esac\n"
                   "}\n",
                lab->hosts[i].name, p.off, p.on, p.status);
    }
    fprintf(f, "power() {\n"
               "    case $1 in\n");
    for (unsigned i = 1; i < lab->nhosts; i++)
        fprintf(f, "    %s) power_%s \"$2\" ;;\n", lab->hosts[i].name, lab->hosts[i].name);
    fprintf(f, "    *) echo \"fence_faultline: no node '$1' in the lab\" >&2; return 1 ;;\n"
               "    esac\n"
               "}\n"
               "# status: exit 0 for on, 2 for off, 1 when unknown (the fencing API)\n"
               "state() {\n"
               "    out=$(power \"$1\" status) || return 1\n"
               "    case $out in\n"
               "    on:*) return 0 ;;\n"
               "    off:*) return 2 ;;\n"
               "    *) return 1 ;;\n"
               "    esac\n"
               "}\n"
               "case $action in\n"
               "off|on) power \"$plug\" \"$action\" ;;\n"
               "reboot) power \"$plug\" off && power \"$plug\" on ;;\n"
               "status) state \"$plug\" ;;\n"
               "monitor) state %s; [ $? -ne 1 ] ;;\n"
               "list) ", lab->hosts[1].name);
    for (unsigned i = 1; i < lab->nhosts; i++)
        fprintf(f, "echo %s; ", lab->hosts[i].name);
    fence_metadata(f);
    return done(f, path, err, errlen);
}
