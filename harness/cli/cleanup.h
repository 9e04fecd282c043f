/*
 * cleanup — the `faultline cleanup` verb (see cleanup.c): every run's undo
 * log replayed, so that a killed run never leaves a host broken.
 */
#ifndef FL_CLEANUP_H
#define FL_CLEANUP_H

/* `faultline cleanup [--force] [DIR...]`: the given run directories, or
 * every one registered under UNDO_REGISTRY and every runs/<x>/ of the
 * current directory that has an undo.log; a run still going is left alone
 * unless --force.  Exit status: 0, or 2 when something could not be undone
 * (a live run left alone is 0). */
int cmd_cleanup(int argc, char **argv);

#endif
