# Shared by the CLI tests: a private work directory per run (removed on exit,
# also on failure), a binary to test, and small assertion helpers.
set -eu

FAULTLINE=${FAULTLINE:-$(pwd)/faultline}
TEST=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fl-$TEST-XXXXXX")
CLEANUP=""
cleanup() {
    # Run registered cleanups (newest first), then drop the work directory,
    # and exit with the code the test exited with (77: skipped), so that
    # set -e cannot turn it into another one here; only a passed test whose
    # work directory cannot be removed fails.
    _fl_code=$?
    set +e
    for c in $CLEANUP; do $c || true; done
    collect_reports
    if [ -z "${KEEP_WORK:-}" ] && ! rm -rf "$WORK"; then
        echo "FAIL $TEST: cannot remove $WORK" >&2
        [ "$_fl_code" != 0 ] || _fl_code=1
    fi
    exit "$_fl_code"
}
# collect_reports: with FL_REPORTS_DIR set (tests/run.sh sets it), copies
# every report.json and suite.json under $WORK, at any depth, to
# $FL_REPORTS_DIR/<cli|lab>/$TEST/<its path under $WORK>, for tests/schema.sh
# to validate; passed, failed or skipped alike.  Those under a path given to
# handmade are left out.  Called after the registered cleanups (labs down,
# file systems unmounted) and without crossing into another file system, so
# that a hung mount cannot hang it.  A copy that fails never fails the test.
collect_reports() {
    [ -n "${FL_REPORTS_DIR:-}" ] && [ -d "$WORK" ] || return 0
    _fl_dest=$FL_REPORTS_DIR/$(basename "$(dirname "$0")")/$TEST
    (cd "$WORK" && find . -xdev \( -name report.json -o -name suite.json \) -type f 2> /dev/null) |
        while IFS= read -r _fl_r; do
            _fl_r=${_fl_r#./}
            _fl_own=no
            if [ -f "$WORK/.handmade" ]; then
                while IFS= read -r _fl_h; do
                    case $_fl_r in "$_fl_h" | "$_fl_h"/*) _fl_own=yes ;; esac
                done < "$WORK/.handmade"
            fi
            [ $_fl_own = no ] || continue
            mkdir -p "$_fl_dest/$(dirname "$_fl_r")" && cp "$WORK/$_fl_r" "$_fl_dest/$_fl_r"
        done > /dev/null 2>&1
    return 0
}
# keep_report FILE: with FL_REPORTS_DIR set, a copy of report.json FILE made
# now, under $WORK/kept/N/ (its path under $WORK, or its absolute path), for
# collect_reports: a report that will not be there at exit (rewritten by a
# verify, removed, on a file system unmounted first).  expect_code keeps
# DIR/report.json before each `faultline verify DIR`.
keep_report() {
    [ -n "${FL_REPORTS_DIR:-}" ] && [ -f "$1" ] || return 0
    _fl_k=$WORK/kept/$(find "$WORK/kept" -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)
    case $1 in
    "$WORK"/*) _fl_k=$_fl_k/${1#"$WORK"/} ;;
    /*) _fl_k=$_fl_k$1 ;;
    *) _fl_k=$_fl_k/$1 ;;
    esac
    mkdir -p "$(dirname "$_fl_k")" && cp "$1" "$_fl_k" || true
}
# handmade PATH...: the report.json or suite.json at or under each PATH (in
# $WORK) is the test's own making, not faultline's (one written or edited to
# feed `faultline compare` a broken or unusual report): collect_reports
# leaves it out, since it need not follow docs/*.schema.json.
handmade() {
    for _fl_h in "$@"; do
        _fl_h=${_fl_h#"$WORK"/}
        echo "${_fl_h%/}" >> "$WORK/.handmade"
    done
}
# at_exit FUNCTION: call FUNCTION on exit, before the ones registered earlier.
at_exit() { CLEANUP="$1 $CLEANUP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# said LINE: a line for the end of the test log.  tests/run.sh gives each
# script a file of its own in FL_SAID; when the script fails, its lines are
# printed under its FAILED line (tests/summary.sh), so that a CI log kept
# only in part (its start and its end) still says why.  fail says its
# message so; nothing happens without FL_SAID.
said() {
    [ -z "${FL_SAID:-}" ] || printf '%s\n' "$*" >> "$FL_SAID" 2> /dev/null || true
}

# said_tail FILE...: says what each FILE that has any (a failed run's
# output, its report.txt) says of a failure (its first 6 lines with FAIL,
# NOT AS WRITTEN or "faultline: "), then its last 3 lines, so that the end
# of the log says why a run failed, not only that it did.
said_tail() {
    for f in "$@"; do
        [ -s "$f" ] || continue
        { grep -E 'FAIL|NOT AS WRITTEN|not as written|faultline: ' "$f" | head -n 6
          tail -n 3 "$f"; } | while IFS= read -r l; do said "  ${f##*/}: $l"; done
    done
}

fail() {
    echo "FAIL $TEST: $*" >&2
    said "FAIL $TEST: $*"
    exit 1
}

# skip WHY: the test cannot run here; says so and exits 77, which
# tests/run.sh counts as skipped (as failed with CI=true).
skip() {
    echo "SKIP $TEST: $*" >&2
    exit 77
}

# expect_code WANT CMD...: runs CMD, output to $WORK/out and $WORK/err.
expect_code() {
    want=$1
    shift
    [ "$1" != "$FAULTLINE" ] || [ "${2:-}" != verify ] || [ $# -lt 3 ] ||
        keep_report "$3/report.json"
    set +e
    "$@" > "$WORK/out" 2> "$WORK/err"
    got=$?
    set -e
    [ "$got" = "$want" ] || {
        cat "$WORK/out" "$WORK/err" >&2
        fail "'$*' exited $got, expected $want"
    }
}

# contains FILE TEXT
contains() {
    grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 does not say '$2'"; }
}

# flip FILE OFFSET: inverts one bit of the byte at OFFSET (damage that
# always changes the byte; writing a fixed value would not when the byte
# already holds it).
flip() {
    _b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    [ -n "$_b" ] || fail "$1 has no byte at offset $2"
    printf "\\$(printf %03o $((_b ^ 16)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# json FILE FILTER WANT: jq result must equal WANT
json() {
    got=$(jq -c "$2" "$1")
    [ "$got" = "$3" ] || fail "$1: $2 is $got, expected $3"
}

# A scenario on a file in the work directory; prints its path.  $1: name,
# rest: extra [workload] lines (key = value).  SCENARIO_KEYS and TARGET_KEYS
# add lines to [scenario] and [target]; DURATION and SIZE change those.
scenario() {
    name=$1
    shift
    {
        printf '[scenario]\nname = %s\nduration = %s\n' "$name" "${DURATION:-1s}"
        [ -z "${SCENARIO_KEYS:-}" ] || printf '%s\n' "$SCENARIO_KEYS"
        printf '[target]\nkind = file\npath = %s/%s.img\nsize = %s\n' "$WORK" "$name" "${SIZE:-1MiB}"
        [ -z "${TARGET_KEYS:-}" ] || printf '%s\n' "$TARGET_KEYS"
        printf '[workload]\n'
        for default in "block = 4KiB" "depth = 4" "flush = 16"; do
            key=${default%% *}
            overridden=no
            for line in "$@"; do [ "${line%% *}" != "$key" ] || overridden=yes; done
            [ $overridden = yes ] || printf '%s\n' "$default"
        done
        for line in "$@"; do printf '%s\n' "$line"; done
    } > "$WORK/$name.scn"
    echo "$WORK/$name.scn"
}

pass() { echo "ok   $TEST"; }

# wait_event EVENTS_FILE EVENT FAULT [RUN_OUTPUT]: waits (at most 60 s) until
# events.jsonl has EVENT (fault-inject, fault-clear) for [fault FAULT].  When
# it never comes, the failure shows every fault event there is (which fault
# was late, which one failed and why) and the run's own output, if given.
wait_event() {
    i=0
    while ! grep -F "\"event\":\"$2\"" "$1" 2>/dev/null | grep -qF "[fault $3]"; do
        i=$((i + 1))
        if [ $i -ge 1200 ]; then
            echo "--- the fault events in $1:" >&2
            grep -F '"event":"fault-' "$1" >&2 2>/dev/null || echo "(none)" >&2
            if [ -n "${4:-}" ]; then
                echo "--- $4:" >&2
                cat "$4" >&2
            fi
            fail "no $2 of fault $3 in $1 within 60 s"
        fi
        sleep 0.05
    done
}

# A per-run lab prefix (FL_TEST_LAB_PREFIX when set: one chosen by whoever
# runs the test), and the lab taken down on exit.
lab_prefix() {
    FAULTLINE_LAB_PREFIX=${FL_TEST_LAB_PREFIX:-fl$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')}
    export FAULTLINE_LAB_PREFIX
    P=$FAULTLINE_LAB_PREFIX
    at_exit lab_down_quietly
}
# need_root WHAT: skip the test (exit 77, saying why) unless run as root.
need_root() {
    [ "$(id -u)" = 0 ] || skip "$1 need root"
}
# iscsi_lab_up: the iSCSI lab of a per-run prefix up (skipping the test
# without root), its `lab status --json` in $WORK/lab.json.
iscsi_lab_up() {
    need_root "namespaces and tgtd"
    lab_prefix
    expect_code 0 "$FAULTLINE" lab up iscsi
    expect_code 0 "$FAULTLINE" lab status iscsi --json
    cp "$WORK/out" "$WORK/lab.json"
}
# lab_ssh STATUS_JSON HOST CMD...: runs CMD in a session on lab host HOST, as
# `lab status --json` (in STATUS_JSON) says to reach it: ssh, key, known_hosts.
lab_ssh() {
    _st=$1 _h=$2
    shift 2
    ssh -T -oBatchMode=yes -oConnectTimeout=10 -oLogLevel=ERROR \
        -i "$(jq -r --arg h "$_h" '.hosts[] | select(.name == $h) | .ssh_identity' "$_st")" \
        -oUserKnownHostsFile="$(jq -r --arg h "$_h" '.hosts[] | select(.name == $h) | .ssh_known_hosts' "$_st")" \
        -oStrictHostKeyChecking=yes "$(jq -r --arg h "$_h" '.hosts[] | select(.name == $h) | .ssh' "$_st")" "$@"
}
# lab_host HOST FIELD: a field of a host of the lab in $WORK/lab.json.
lab_host() { jq -r --arg h "$1" ".hosts[] | select(.name == \$h) | .$2" "$WORK/lab.json"; }
# lab_nothing_left KIND: nothing of lab KIND with prefix $P exists any more:
# namespaces, links, the processes in $PIDS (a zombie is dead: PID 1 here
# does not always reap orphans), the state file, the lab directory.
lab_nothing_left() {
    ! ip netns list | grep -q "^$P-" || fail "namespaces left: $(ip netns list | grep "^$P-")"
    ! ip -br link | grep -q "^$P-" || fail "links left: $(ip -br link | grep "^$P-")"
    for pid in ${PIDS:-}; do
        st=$(ps -o stat= -p "$pid" 2>/dev/null || true)
        case "$st" in "" | Z*) ;; *) fail "process $pid still runs ($st)" ;; esac
    done
    [ ! -e "/run/faultline/labs/$P-$1.state" ] || fail "state file left"
    [ ! -e "/var/lib/faultline/labs/$P-$1" ] || fail "lab directory left"
}
lab_down_quietly() {
    "$FAULTLINE" lab down iscsi > /dev/null 2>&1
    "$FAULTLINE" lab down gluster > /dev/null 2>&1
    "$FAULTLINE" lab down ceph > /dev/null 2>&1
    "$FAULTLINE" lab down ha > /dev/null 2>&1
}

# A witness on the wire for the lab tests.  WIRE_PAYLOAD is the BPF test for
# TCP segments that carry payload (iSCSI PDUs, not bare ACKs).
WIRE_PAYLOAD='(((ip[2:2] - ((ip[0]&0xf)<<2)) - ((tcp[12]&0xf0)>>2)) != 0)'
# wire_start NETNS INTERFACE FILTER: tcpdump of what INTERFACE receives
# (inside namespace NETNS; "" for the root one) into $WORK/wire.txt, with
# times in Unix seconds and absolute sequence numbers; stopped on exit at
# the latest.
wire_start() {
    command -v tcpdump > /dev/null || fail "tcpdump is missing (make deps installs it)"
    if [ -n "$1" ]; then
        ip netns exec "$1" tcpdump -i "$2" -n -tt -S -l -Q in --immediate-mode -B 65536 -s 96 "$3" \
            > "$WORK/wire.txt" 2> "$WORK/tcpdump.err" &
    else
        tcpdump -i "$2" -n -tt -S -l -Q in --immediate-mode -B 65536 -s 96 "$3" \
            > "$WORK/wire.txt" 2> "$WORK/tcpdump.err" &
    fi
    WIRE_PID=$!
    at_exit wire_stop
    i=0
    until grep -q "listening on" "$WORK/tcpdump.err" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
}
wire_stop() {
    [ -n "${WIRE_PID:-}" ] || return 0
    kill "$WIRE_PID" 2> /dev/null || true
    wait "$WIRE_PID" 2> /dev/null || true
    WIRE_PID=""
}
# wire_check MIN: after wire_stop, the witness saw more than MIN segments
# and dropped none (a segment it missed would look like a gap on the wire).
wire_check() {
    [ "$(wc -l < "$WORK/wire.txt")" -gt "$1" ] ||
        fail "tcpdump saw almost nothing: $(cat "$WORK/tcpdump.err")"
    grep -q "^0 packets dropped by kernel" "$WORK/tcpdump.err" ||
        fail "tcpdump dropped packets, the witness is blind: $(cat "$WORK/tcpdump.err")"
}
