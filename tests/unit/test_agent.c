/*
 * The agent's language, as the specification: one flat JSON object per
 * line (anything else is refused with a reason), a fault spec that crosses
 * as text and comes back the same (unknown keys refused, the family's own
 * check run again on the far side), the ssh destination of an undo record,
 * and the agent itself over a pair of pipes: it answers the time, refuses
 * what it does not know, applies a `command` fault at its time with its
 * undo on disk first, restores it by itself at its lease, and restores
 * what is left the moment its stdin closes; and it refuses a home that
 * another user could have written to.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../faults/ssh/agent.h"
#include "../../faults/runtime.h"
#include "../../faults/ssh/spec.h"
#include "../../faults/table.h"
#include "../../faults/ssh/remote.h"
#include "../../lib/clock.h"
#include "../../lib/jsonl.h"
#include "../../lib/sha256.h"

#define MS 1000000ull

static void flat_objects_are_read_and_the_rest_refused(void **state)
{
    (void)state;
    struct jl_obj m;
    char why[256];
    assert_int_equal(jl_parse("{\"op\":\"time\", \"seq\": 7, \"on\": true, \"x\": null,"
                              " \"s\": \"a\\\"b\\\\c\\n\\u0041\"}\n", &m, why, sizeof why), 0);
    uint64_t seq = 0;
    assert_string_equal(jl_str(&m, "op"), "time");
    assert_true(jl_u64(&m, "seq", &seq));
    assert_int_equal(seq, 7);
    assert_true(jl_bool(&m, "on", false));
    assert_null(jl_str(&m, "x"));
    assert_string_equal(jl_str(&m, "s"), "a\"b\\c\nA");
    assert_null(jl_str(&m, "seq")); /* a number is not a string */
    jl_free(&m);
    assert_int_equal(jl_parse("{}", &m, why, sizeof why), 0);
    jl_free(&m);

    static const char *const bad[] = {
        "",                           /* not an object */
        "[1,2]",                      /* an array */
        "{\"a\":{\"b\":1}}",          /* nested */
        "{\"a\":[1]}",                /* an array value */
        "{\"a\":1.5}",                /* a fraction */
        "{\"a\":1,\"a\":2}",          /* a key twice */
        "{\"a\":1} x",                /* bytes after it */
        "{\"a\":\"open",              /* an unclosed string */
        "{\"a\":\"\\u00e9\"}",        /* not ASCII */
        "{\"a\":\"\xc3\xa9\"}",        /* not ASCII, raw (the writer sends '?') */
        "{\"\x7f\":1}",               /* DEL in a key */
        "{a:1}",                      /* a bare key */
        "{\"a\" 1}",                  /* no colon */
        "{\"a\":tru}",                /* a bad literal */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(jl_parse(bad[i], &m, why, sizeof why), -1);
        assert_true(why[0] != '\0');
    }

    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "k", "q\"\\\n\x01");
    jl_put_u64(&o, "n", 42);
    jl_put_bool(&o, "b", false);
    assert_int_equal(jl_end(&o), 0);
    assert_string_equal(o.buf, "{\"k\":\"q\\\"\\\\\\u000a\\u0001\",\"n\":42,\"b\":false}\n");
    assert_int_equal(jl_parse(o.buf, &m, why, sizeof why), 0);
    assert_string_equal(jl_str(&m, "k"), "q\"\\\n\x01");
    jl_free(&m);
}

/* A spec through its message and back, and what the far side refuses. */
static void a_fault_spec_crosses_as_text(void **state)
{
    (void)state;
    const struct fault_ops *ops = fault_ops_find("loss");
    assert_non_null(ops);
    struct fault_spec s, back;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "drop");
    s.ops = ops;
    char err[512];
    assert_int_equal(key_defaults(&s, ops->keys, ops->nkeys, err, sizeof err), 0);
    for (unsigned i = 0; i < ops->nkeys; i++) {
        if (strcmp(ops->keys[i].name, "percent") == 0)
            assert_int_equal(key_set(&s, &ops->keys[i], "30", err, sizeof err), 0);
        if (strcmp(ops->keys[i].name, "duration") == 0)
            assert_int_equal(key_set(&s, &ops->keys[i], "2500ms", err, sizeof err), 0);
    }
    struct jl_out o;
    jl_begin(&o);
    fault_spec_put(&s, &o);
    assert_int_equal(jl_end(&o), 0);
    struct jl_obj m;
    assert_int_equal(jl_parse(o.buf, &m, err, sizeof err), 0);
    struct fault_rules rules = {0};
    assert_int_equal(fault_spec_get(&m, &rules, &back, err, sizeof err), 0);
    jl_free(&m);
    assert_string_equal(back.name, "drop");
    assert_ptr_equal(back.ops, ops);
    assert_int_equal(back.duration_ns, 2500 * MS);
    for (unsigned i = 0; i < ops->nkeys; i++)
        assert_true(key_same(&s, &back, &ops->keys[i]));

    /* A key the family does not take, a bad value, an unknown action. */
    static const char *const refused[] = {
        "{\"name\":\"x\",\"action\":\"loss\",\"k.nonsense\":\"1\"}",
        "{\"name\":\"x\",\"action\":\"loss\",\"k.percent\":\"250\"}",
        "{\"name\":\"x\",\"action\":\"melt\"}",
        "{\"action\":\"loss\"}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(jl_parse(refused[i], &m, err, sizeof err), 0);
        assert_int_equal(fault_spec_get(&m, &rules, &back, err, sizeof err), -1);
        jl_free(&m);
    }
    /* The destructive rule is checked again on the host's side. */
    assert_int_equal(jl_parse("{\"name\":\"c\",\"action\":\"corrupt\",\"k.path\":\"/tmp/x\","
                              "\"k.length\":\"512\"}", &m, err, sizeof err), 0);
    assert_int_equal(fault_spec_get(&m, &rules, &back, err, sizeof err), -1);
    rules.allow_destructive = true;
    assert_int_equal(fault_spec_get(&m, &rules, &back, err, sizeof err), 0);
    jl_free(&m);
}

static void an_ssh_destination_survives_its_undo_record(void **state)
{
    (void)state;
    struct ssh_dest d = {.port = 2222, .sudo = true, .lease_ns = 3000 * MS}, back;
    snprintf(d.dest, sizeof d.dest, "admin@10.1.2.3");
    snprintf(d.identity, sizeof d.identity, "/root/.ssh/id_ed25519");
    snprintf(d.agent_dir, sizeof d.agent_dir, "/var/tmp/fl");
    snprintf(d.options, sizeof d.options, "-o ProxyJump=bastion -o Compression=no");
    char text[2048];
    remote_dest_encode(&d, text, sizeof text);
    assert_int_equal(remote_dest_decode(text, &back), 0);
    assert_string_equal(back.dest, d.dest);
    assert_int_equal(back.port, 2222);
    assert_string_equal(back.identity, d.identity);
    assert_string_equal(back.known_hosts, "");
    assert_true(back.sudo);
    assert_string_equal(back.agent_dir, d.agent_dir);
    assert_int_equal(back.lease_ns, 3000 * MS);
    assert_string_equal(back.options, d.options);
    assert_int_equal(remote_dest_decode("", &back), -1);
}

/* --- the agent over pipes --- */

struct agent_run {
    pid_t pid;
    int to, from;
    char dir[64];
    char buf[65536];
    size_t have;
};

static void start_agent(struct agent_run *a)
{
    snprintf(a->dir, sizeof a->dir, "/tmp/fl-test-agent-XXXXXX");
    assert_non_null(mkdtemp(a->dir));
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    a->pid = fork();
    assert_true(a->pid >= 0);
    if (a->pid == 0) {
        close(in[1]);
        close(out[0]);
        _exit(agent_serve(a->dir, "fl0000aa", in[0], out[1]));
    }
    close(in[0]);
    close(out[1]);
    a->to = in[1];
    a->from = out[0];
    a->have = 0;
}

static void say(struct agent_run *a, const char *line)
{
    size_t len = strlen(line);
    assert_int_equal(write(a->to, line, len), (ssize_t)len);
}

/* The next line from the agent within 5 s, parsed into *m. */
static void hear(struct agent_run *a, struct jl_obj *m)
{
    uint64_t until = mono_ns() + 5000 * MS;
    for (;;) {
        char *nl = memchr(a->buf, '\n', a->have);
        if (nl) {
            *nl = '\0';
            char why[256];
            assert_int_equal(jl_parse(a->buf, m, why, sizeof why), 0);
            a->have -= (size_t)(nl + 1 - a->buf);
            memmove(a->buf, nl + 1, a->have);
            return;
        }
        assert_true(mono_ns() < until);
        struct pollfd p = {.fd = a->from, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 5000), 1);
        ssize_t got = read(a->from, a->buf + a->have, sizeof a->buf - 1 - a->have);
        assert_true(got > 0);
        a->have += (size_t)got;
    }
}

static int agent_exit(struct agent_run *a)
{
    int status = 0;
    assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void remove_tree(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A `command` fault that makes a file and whose undo removes it. */
static void prepare_mark(struct agent_run *a, unsigned id, const char *mark)
{
    char line[1024];
    snprintf(line, sizeof line,
             "{\"op\":\"prepare\",\"id\":%u,\"name\":\"mark%u\",\"action\":\"command\","
             "\"k.command\":\"touch %s\",\"k.undo\":\"rm -f %s\",\"host\":\"here\","
             "\"tag\":\"fl0000aa\"}\n", id, id, mark, mark);
    say(a, line);
    struct jl_obj m;
    hear(a, &m);
    assert_string_equal(jl_str(&m, "re"), "prepare");
    assert_true(jl_bool(&m, "ok", false));
    jl_free(&m);
}

static void the_agent_answers_refuses_and_restores_by_itself(void **state)
{
    (void)state;
    struct agent_run a;
    start_agent(&a);
    struct jl_obj m;
    hear(&a, &m);
    assert_string_equal(jl_str(&m, "ev"), "hello");
    /* its build: the SHA-256 of its executable, what sha256sum says of a copy */
    char sum[2 * SHA256_BYTES + 1], why[256];
    assert_int_equal(sha256_file("/proc/self/exe", sum, why, sizeof why), 0);
    assert_string_equal(jl_str(&m, "build"), sum);
    jl_free(&m);

    say(&a, "{\"op\":\"time\",\"seq\":3}\n");
    hear(&a, &m);
    uint64_t seq = 0, them = 0;
    assert_string_equal(jl_str(&m, "re"), "time");
    assert_true(jl_u64(&m, "seq", &seq) && seq == 3);
    assert_true(jl_u64(&m, "mono_ns", &them) && them > 0);
    jl_free(&m);

    /* What it does not know: refused, with a reason, and it goes on. */
    say(&a, "not json\n{\"op\":\"melt\"}\n{\"op\":\"apply\",\"id\":99,\"at_ns\":1}\n");
    for (int i = 0; i < 3; i++) {
        hear(&a, &m);
        assert_false(jl_bool(&m, "ok", true));
        assert_non_null(jl_str(&m, "error"));
        jl_free(&m);
    }
    say(&a, "{\"op\":\"prepare\",\"id\":5,\"name\":\"x\",\"action\":\"command\"}\n");
    hear(&a, &m); /* command needs its command: the family's own check, here */
    assert_false(jl_bool(&m, "ok", true));
    jl_free(&m);

    /* Applied at its time, cleared by its lease: by 300 ms after it plus
     * 500 ms, and not sooner than the agent's margin (a tenth of the
     * lease) before that. */
    char mark[128], undo_log[128];
    snprintf(mark, sizeof mark, "%s/mark1", a.dir);
    snprintf(undo_log, sizeof undo_log, "%s/run-fl0000aa/undo.log", a.dir);
    prepare_mark(&a, 1, mark);
    uint64_t now = mono_ns(), at = now + 100 * MS;
    char line[256];
    snprintf(line, sizeof line,
             "{\"op\":\"apply\",\"id\":1,\"at_ns\":%llu,\"clear_at_ns\":%llu,\"lease_ns\":%llu}\n",
             (unsigned long long)at, (unsigned long long)(at + 300 * MS),
             (unsigned long long)(500 * MS));
    say(&a, line);
    hear(&a, &m);
    uint64_t t = 0;
    assert_string_equal(jl_str(&m, "ev"), "applied");
    assert_true(jl_bool(&m, "ok", false));
    assert_true(jl_u64(&m, "t_ns", &t) && t >= at && t < at + 100 * MS);
    jl_free(&m);
    assert_true(exists(mark));
    assert_true(exists(undo_log)); /* written before anything happened */
    hear(&a, &m);
    assert_string_equal(jl_str(&m, "ev"), "cleared");
    assert_string_equal(jl_str(&m, "by"), "lease");
    assert_true(jl_u64(&m, "t_ns", &t) && t <= at + 800 * MS && t >= at + 750 * MS);
    jl_free(&m);
    assert_false(exists(mark));
    /* A late clear from the controller hears who did it, and when. */
    say(&a, "{\"op\":\"clear\",\"id\":1}\n");
    hear(&a, &m);
    assert_string_equal(jl_str(&m, "by"), "lease");
    jl_free(&m);

    /* In effect when the controller goes: restored at once. */
    snprintf(mark, sizeof mark, "%s/mark2", a.dir);
    prepare_mark(&a, 2, mark);
    now = mono_ns();
    snprintf(line, sizeof line,
             "{\"op\":\"apply\",\"id\":2,\"at_ns\":%llu,\"clear_at_ns\":%llu,\"lease_ns\":%llu}\n",
             (unsigned long long)now, (unsigned long long)(now + 60000 * MS),
             (unsigned long long)(5000 * MS));
    say(&a, line);
    hear(&a, &m);
    assert_true(jl_bool(&m, "ok", false));
    jl_free(&m);
    assert_true(exists(mark));
    close(a.to);
    uint64_t closed = mono_ns();
    assert_int_equal(agent_exit(&a), 0);
    assert_true(mono_ns() - closed < 1000 * MS);
    assert_false(exists(mark));
    char restored[160];
    snprintf(restored, sizeof restored, "%s/run-fl0000aa/restored.log", a.dir);
    FILE *f = fopen(restored, "r");
    assert_non_null(f);
    char text[256] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "mark1 lease "));
    assert_non_null(strstr(text, "mark2 close "));
    close(a.from);
    remove_tree(a.dir);
}

/* The agent in a directory another user could have written to: it stops
 * before it says anything or makes anything there; a cleanup replays
 * nothing there and says why. */
static void the_agent_refuses_a_home_others_may_write(void **state)
{
    (void)state;
    char dir[64], run[96], home[96];
    snprintf(dir, sizeof dir, "/tmp/fl-test-agent-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(run, sizeof run, "%s/run-fl0000aa", dir);
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    close(in[1]); /* a controller that says nothing */
    assert_int_equal(chmod(dir, 0770), 0); /* the group may write */
    assert_int_equal(agent_serve(dir, "fl0000aa", in[0], out[1]), 2);
    assert_false(exists(run));
    assert_int_equal(chmod(dir, 0700), 0);
    /* a home below a directory others may write to (not sticky) */
    snprintf(home, sizeof home, "%s/home", dir);
    assert_int_equal(mkdir(home, 0700), 0);
    assert_int_equal(chmod(dir, 0757), 0);
    assert_int_equal(agent_serve(home, "fl0000aa", in[0], out[1]), 2);
    assert_int_equal(agent_cleanup(home, "fl0000aa", out[1]), 1);
    assert_int_equal(chmod(dir, 0700), 0);
    /* a home reached through a symbolic link, which its owner could turn
     * elsewhere after the check: refused, the real path named */
    char real[128], lnk[128], via[160];
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(lnk, sizeof lnk, "%s/lnk", dir);
    snprintf(via, sizeof via, "%s/lnk/home", dir);
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink(real, lnk), 0);
    assert_int_equal(agent_serve(via, "fl0000aa", in[0], out[1]), 2);
    char realrun[192];
    snprintf(realrun, sizeof realrun, "%s/home/run-fl0000aa", real);
    assert_false(exists(realrun));
    if (geteuid() == 0) { /* another user's home, mode 700 */
        assert_int_equal(chown(home, 65534, 65534), 0);
        assert_int_equal(agent_serve(home, "fl0000aa", in[0], out[1]), 2);
    }
    close(out[1]);
    /* nothing but the cleanup's answer: ok false, and why */
    static char said[4096];
    ssize_t got = read(out[0], said, sizeof said - 1);
    assert_true(got > 0);
    said[got] = '\0';
    assert_non_null(strstr(said, "\"ok\":false"));
    assert_non_null(strstr(said, "is under"));
    assert_null(strstr(said, "hello"));
    close(in[0]);
    close(out[0]);
    remove_tree(dir);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_objects_are_read_and_the_rest_refused),
        cmocka_unit_test(a_fault_spec_crosses_as_text),
        cmocka_unit_test(an_ssh_destination_survives_its_undo_record),
        cmocka_unit_test(the_agent_answers_refuses_and_restores_by_itself),
        cmocka_unit_test(the_agent_refuses_a_home_others_may_write),
    };
    return cmocka_run_group_tests_name("agent", tests, NULL, NULL);
}
