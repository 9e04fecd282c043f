/*
 * floor — what the kernel itself needs for one fault, measured outside
 * faultline, for bench/fault-latency.sh to compare against.
 *
 *   floor kill PID             SIGKILL through a pidfd; µs until it has died
 *   floor link NETNS IFNAME    set the link down with one RTM_NEWLINK and
 *                              wait for the kernel's ack; µs; then up again
 *
 * Raw syscalls and rtnetlink only (no faultline code, no libnl), so the
 * figure is the kernel's, not ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int kill_floor(pid_t pid)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) {
        fprintf(stderr, "floor: pidfd_open %d: %s\n", (int)pid, strerror(errno));
        return 1;
    }
    long long t0 = now_ns();
    if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) != 0) {
        fprintf(stderr, "floor: SIGKILL %d: %s\n", (int)pid, strerror(errno));
        return 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) != 1) {
        fprintf(stderr, "floor: %d did not die within 5 s\n", (int)pid);
        return 1;
    }
    printf("%.3f\n", (double)(now_ns() - t0) / 1e3);
    return 0;
}

/* One RTM_NEWLINK setting IFF_UP to `up`; µs until the ack, or -1. */
static double set_link(int sk, int index, int up)
{
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } req = {0};
    req.h.nlmsg_len = sizeof req;
    req.h.nlmsg_type = RTM_NEWLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.h.nlmsg_seq = 1;
    req.i.ifi_family = AF_UNSPEC;
    req.i.ifi_index = index;
    req.i.ifi_flags = up ? IFF_UP : 0;
    req.i.ifi_change = IFF_UP;
    long long t0 = now_ns();
    if (send(sk, &req, sizeof req, 0) != (ssize_t)sizeof req)
        return -1;
    char buf[4096];
    ssize_t n = recv(sk, buf, sizeof buf, 0);
    long long t1 = now_ns();
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    if (n < (ssize_t)sizeof *h || h->nlmsg_type != NLMSG_ERROR ||
        ((struct nlmsgerr *)NLMSG_DATA(h))->error != 0)
        return -1;
    return (double)(t1 - t0) / 1e3;
}

static int link_floor(const char *netns, const char *ifname)
{
    char path[256];
    snprintf(path, sizeof path, "/run/netns/%s", netns);
    int ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
        fprintf(stderr, "floor: cannot enter %s: %s\n", path, strerror(errno));
        return 1;
    }
    int index = (int)if_nametoindex(ifname);
    int sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (!index || sk < 0) {
        fprintf(stderr, "floor: no link %s in %s, or no netlink: %s\n", ifname, netns,
                strerror(errno));
        return 1;
    }
    double down = set_link(sk, index, 0);
    usleep(50000); /* down as long as the bench's link-downs */
    double up = set_link(sk, index, 1);
    if (down < 0 || up < 0) {
        fprintf(stderr, "floor: the kernel refused a change of %s: %s\n", ifname,
                strerror(errno));
        return 1;
    }
    printf("%.3f\n", down);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "kill") == 0)
        return kill_floor((pid_t)atoi(argv[2]));
    if (argc == 4 && strcmp(argv[1], "link") == 0)
        return link_floor(argv[2], argv[3]);
    fprintf(stderr, "usage: floor kill PID | floor link NETNS IFNAME\n");
    return 2;
}
