/*
 * agent — `faultline agent`: the far side of a fault on an ssh host.
 *
 * The controller starts the agent over one ssh connection per host
 * (remote.h) and talks to it in JSON lines (lib/jsonl.h) on its stdin and
 * stdout; the agent never listens on a port.  It runs the very family code
 * a local fault runs, on its own host, with its own undo log:
 *
 *   (on start)                               <- {"ev":"hello","build":ID,"pid":P,"mono_ns":T,
 *                                                "nodename":N,"kernel":R} (its uname)
 *   -> {"op":"time","seq":N}                 <- {"re":"time","seq":N,"mono_ns":T}
 *   -> {"op":"prepare","id":I, the spec ("name","action","k.KEY"...),
 *       where ("host","netns","ifname","port","addr","service" (the comm of
 *       the process the fault names as "service_as"),"restart","peers"), the run's rules ("tag","block","target_bytes",
 *       "target_path","allow_destructive","allow_paths","bridge")}
 *                                            <- {"re":"prepare","id":I,"ok":B,
 *                                                "detail"|"error":...}
 *   -> {"op":"apply","id":I,"at_ns":T,"clear_at_ns":C,"lease_ns":L}
 *        its undo records go to disk (synced) at once; at T (the agent's
 *        own monotonic clock) the family's inject runs
 *                                            <- {"ev":"applied","id":I,"ok":B,"t_ns":T,
 *                                                "began_ns","armed_ns","detail"|"error",
 *                                                and for corrupt "ranges","on_target"}
 *   -> {"op":"clear","id":I}                 <- {"ev":"cleared","id":I,"ok":B,"t_ns":T,
 *                                                "by":"controller"|"lease"|"close"}
 *   -> {"op":"ping"}                         (no answer: every 5 s, to say we live)
 *   -> {"op":"bye"}                          <- {"re":"bye","open":N}
 *   anything else                            <- {"re":"error","error":...}
 *
 * The agent restores its host by itself, without the controller:
 *   - at once when its stdin closes (the controller or its ssh is gone), or
 *     on SIGHUP/SIGTERM: "by":"close";
 *   - at C + L, whatever happened ("by":"lease"): a partition that cuts
 *     the controller's own session cannot keep a host faulted.
 * An agent that has heard nothing for 300 s and has nothing armed or in
 * effect leaves (a controller gone without a close: its machine died).
 * Each self-restore is appended to RUN/restored.log ("NAME BY CLEARED
 * APPLIED", the agent's monotonic ns), which `faultline
 * cleanup` reads back through `faultline agent --cleanup`.
 *
 * The host's own rules hold whatever the controller says: a corrupt of a
 * mounted device is refused here, by the family's prepare on this host.
 * And the agent neither serves nor replays an undo log from a DIR that
 * another user of the host could have written to (private_dir, fsutil.h):
 * the bootstrap (spawn.c) refuses such a DIR before anything there runs,
 * and the agent checks again for itself.
 */
#ifndef FL_AGENT_H
#define FL_AGENT_H

#include <stddef.h>

/* The agent's files for run `tag` under dir: DIR/run-TAG/{undo.log,restored.log}. */
void agent_run_dir(const char *dir, const char *tag, char *out, size_t n);

/* Serves one controller on in/out until bye, EOF or a signal.  Exit status. */
int agent_serve(const char *dir, const char *tag, int in, int out);

/* Replays what run `tag` left open under dir and prints one JSON line
 * {"re":"cleanup","ok":B,"undone":N,"restored":"...","error":...} to out.
 * An agent still serving that run (it holds its undo log's lock) is not
 * disturbed: nothing is replayed, and the line says "ok":false,"live":true,
 * "pid":P with the reason.  Exit status. */
int agent_cleanup(const char *dir, const char *tag, int out);

#endif
