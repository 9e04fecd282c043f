# tier: quick
# `faultline cleanup` leaves a run that is still going alone: its faults are
# its own to clear.  Without arguments and with the run's directory it says
# so, naming the directory and the run's PID, also when the run's
# registration is lost (the lock the run holds on its undo log tells);
# --force undoes the live run's fault anyway; a SIGKILLed run is cleaned up
# as before.  The fault is a command whose undo removes a marker file.  An
# undo log another user could have written (or a link) is never replayed.
. "$(dirname "$0")/../lib.sh"
need_root "the undo registry under /run/faultline"

# The runs' fault lasts 500 s of a 600 s workload: far longer than any
# check takes, however slow the machine (a cleanup without arguments also
# replays other registered runs' undo commands, each up to 30 s), so that
# only a cleanup can end it early; the test ends each run itself (SIGTERM,
# SIGKILL) as soon as it has seen what it checks.
SCN=$(DURATION=600s scenario live "[fault down]" "action = command" \
    "command = touch $WORK/down" "undo = rm -f $WORK/down" "at = 0.5s" "duration = 500s")
RUNS=""
stop_runs() {
    for p in $RUNS; do
        kill -TERM "$p" 2> /dev/null && wait "$p" 2> /dev/null
    done
    return 0
}
at_exit stop_runs
# start_run NAME: a run of $SCN into $WORK/NAME, its PID in $pid, once its
# fault is in effect.
start_run() {
    "$FAULTLINE" run "$SCN" --out "$WORK/$1" --quiet > "$WORK/$1.out" 2>&1 &
    pid=$!
    RUNS="$RUNS $pid"
    wait_event "$WORK/$1/events.jsonl" fault-inject down "$WORK/$1.out"
    [ -e "$WORK/down" ] || fail "the fault of run $1 is in effect, but $WORK/down does not exist"
}
# A cleanup without arguments also looks at runs/ of the current directory:
# ours, not the checkout's.
cd "$WORK"
# cleanup_all: `faultline cleanup` without arguments, output in $WORK/out
# and $WORK/err.  It sweeps every run registered on this machine, and a
# run of another test may have an undo that fails (exit 2, said on
# stderr): that is no failure of ours, as long as nothing said names ours.
cleanup_all() {
    set +e
    "$FAULTLINE" cleanup > "$WORK/out" 2> "$WORK/err"
    got=$?
    set -e
    if [ "$got" != 0 ] && { [ "$got" != 2 ] || grep -qF -e "$WORK" -e "$(cd "$WORK" && pwd -P)" "$WORK/err"; }; then
        cat "$WORK/out" "$WORK/err" >&2
        fail "'$FAULTLINE cleanup' exited $got"
    fi
}

# --- a live run: left alone, with and without its directory ---
start_run live
RUN=$(cd "$WORK/live" && pwd -P) # as the registry names it
cleanup_all
contains "$WORK/out" "$RUN: left alone: the run is still going (pid $pid)"
[ -e "$WORK/down" ] || { cat "$WORK/out" "$WORK/err" >&2; fail "cleanup without arguments undid the fault of a live run"; }
expect_code 0 "$FAULTLINE" cleanup "$WORK/live"
contains "$WORK/out" "$WORK/live: left alone: the run is still going (pid $pid)"
contains "$WORK/out" "faultline cleanup --force $WORK/live"
[ -e "$WORK/down" ] || fail "cleanup DIR undid the fault of a live run"

# Its registration lost (/run is emptied at boot; a run of an older build):
# the lock the run holds on its undo log still tells, and names its holder.
mkdir "$WORK/aside"
for entry in /run/faultline/runs/*; do
    [ "$(head -n 1 "$entry")" != "$RUN" ] || mv "$entry" "$WORK/aside/"
done
[ -n "$(ls "$WORK/aside")" ] || fail "no registration of $RUN under /run/faultline/runs"
expect_code 0 "$FAULTLINE" cleanup "$WORK/live"
contains "$WORK/out" "$WORK/live: left alone: the run is still going (pid $pid)"
[ -e "$WORK/down" ] || fail "cleanup DIR undid the fault of a live run without a registration"
mv "$WORK/aside"/* /run/faultline/runs/

# --force: undone, saying the run was live.
expect_code 0 "$FAULTLINE" cleanup --force "$WORK/live"
contains "$WORK/out" "$WORK/live: the run is still going (pid $pid): undoing its faults anyway (--force)"
contains "$WORK/out" "1 undo record applied"
[ ! -e "$WORK/down" ] || fail "cleanup --force did not undo the fault of a live run"
kill -TERM $pid
wait $pid || true
RUNS=""
expect_code 0 "$FAULTLINE" cleanup "$WORK/live"
contains "$WORK/out" "$WORK/live: nothing left to undo"

# --- a SIGKILLed run: cleaned up without arguments ---
start_run killed
kill -9 $pid
wait $pid 2> /dev/null || true
RUNS=""
[ -e "$WORK/down" ] || fail "the killed run's fault is gone before cleanup"
cleanup_all
KILLED=$(cd "$WORK/killed" && pwd -P)
contains "$WORK/out" "$KILLED: undone what the run had left"
[ ! -e "$WORK/down" ] || fail "cleanup did not undo what the killed run left"
! grep -qF "$KILLED: left alone" "$WORK/out" || fail "cleanup took the killed run for a live one"
# (the log was ours alone: nobody else could hold its lock or write it)
[ "$(stat -c %a "$WORK/killed/undo.log")" = 600 ] || fail "undo.log has mode $(stat -c %a "$WORK/killed/undo.log"), not 600"

# --- an undo log another user could have written: its commands never run ---
# (a run directory is wherever --out said, /tmp too; a cleanup runs as root)
plant_log() { # DIR: a log whose undo would make $WORK/planted-ran
    mkdir -p "$1"
    printf 'U 1 command - touch %s/planted-ran\n' "$WORK" > "$1/undo.log"
}
plant_log "$WORK/theirs"
chown nobody "$WORK/theirs/undo.log"
expect_code 2 "$FAULTLINE" cleanup "$WORK/theirs"
contains "$WORK/err" "refusing $WORK/theirs/undo.log: it is owned by nobody (uid 65534) with mode 644"
plant_log "$WORK/open"
chmod 666 "$WORK/open/undo.log"
expect_code 2 "$FAULTLINE" cleanup "$WORK/open"
contains "$WORK/err" "refusing $WORK/open/undo.log: it is owned by root (uid 0) with mode 666"
plant_log "$WORK/real"
mkdir -p "$WORK/linked"
ln -s "$WORK/real/undo.log" "$WORK/linked/undo.log"
expect_code 2 "$FAULTLINE" cleanup "$WORK/linked"
contains "$WORK/err" "(a symbolic link: refused)"
[ ! -e "$WORK/planted-ran" ] || fail "cleanup ran the command of an undo log it should have refused"
chmod 644 "$WORK/open/undo.log" # the same log, now only root's to write: replayed
expect_code 0 "$FAULTLINE" cleanup "$WORK/open"
[ -e "$WORK/planted-ran" ] || fail "cleanup did not replay a log only root could write"

expect_code 2 "$FAULTLINE" cleanup --now
contains "$WORK/err" "faultline: cleanup: unknown option --now"
pass
