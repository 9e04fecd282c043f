# tier: quick
# A run over several clients: faultline as the ranks of an Open MPI job on
# this machine (`mpirun -n 2 faultline run FILE`), on a local file.
#
#   1. Both ranks work and read each other's blocks (cross_reads): one
#      report with a line per client, every cross read judged, no finding;
#      each rank's state in DIR/client-R.  Then one block of each rank's
#      share is damaged: `faultline verify`, run alone, reports exactly
#      those two, each with its owner.
#   2. Rank 1 SIGKILLed mid-run: rank 0 names it lost (with what it last
#      heard) and still writes the report, its own findings intact; verify
#      re-reads every client's share, the lost one's from its journal, and
#      judges rank 0's reads of its blocks.
#   3. A client whose cache serves stale data (tests/fuse/stalefs, rank 1
#      in a mount namespace of its own): its reads of rank 0's blocks are
#      stale-read findings naming both clients, and nothing else is.
. "$(dirname "$0")/../lib.sh"

need_root "mpirun as root, FUSE mounts and mount namespaces"
command -v mpirun > /dev/null || skip "mpirun is missing (openmpi-bin; make deps)"
STALEFS=${STALEFS:-$(cd "$(dirname "$0")/../.." && pwd)/build/stalefs}
[ -x "$STALEFS" ] || fail "$STALEFS is missing (make build/stalefs)"
[ -e /dev/fuse ] || skip "no /dev/fuse"

# Open MPI as root; a rank that dies must not end the others (rank 0 names
# it lost); no core binding (two ranks on a 2-core machine).
MPIRUN="mpirun --allow-run-as-root --enable-recovery --bind-to none --mca btl tcp,self"

# two NAME TARGET_PATH EXTRA...: a 2-rank scenario; prints its path.
two() {
    name=$1
    path=$2
    shift 2
    {
        printf '[scenario]\nname = %s\nduration = %s\ngrace = 5s\n' "$name" "${DURATION:-2s}"
        printf '[target]\nkind = file\npath = %s\nsize = 2MiB\n' "$path"
        printf '[workload]\nblock = 4KiB\ndepth = 2\nflush = 8\nprefill = yes\n'
        for line in "$@"; do printf '%s\n' "$line"; done
    } > "$WORK/$name.scn"
    echo "$WORK/$name.scn"
}

# status DIR: the exit status rank 0 left (mpirun does not pass it on)
status() { cat "$1/exit-status" 2>/dev/null || echo none; }

# --- 1. two clients, cross reads, then damage in each share
SCN=$(two pair "$WORK/pair.img" "cross_reads = 20%")
$MPIRUN -n 2 "$FAULTLINE" run "$SCN" --out "$WORK/pair" --quiet > "$WORK/pair.log" 2>&1 ||
    { cat "$WORK/pair.log" >&2; fail "mpirun of the pair failed"; }
[ "$(status "$WORK/pair")" = 0 ] || { cat "$WORK/pair.log" >&2; fail "the pair did not pass"; }
R=$WORK/pair/report.json
json "$R" .verdict '"pass"'
json "$R" '[.clients[] | [.rank, .lost, .io.writes > 0, .findings]]' \
    '[[0,false,true,0],[1,false,true,0]]'
json "$R" '.cross_reads | [.rule, .judged > 100, .judged == .reads, .findings, .unjudged]' \
    '["acknowledged",true,true,0,0]'
json "$R" '.lost_clients' 0
for f in client-0/worker-0/state.bin client-1/worker-0/journal.old client-1/result.bin \
    client-1/findings.jsonl clocks; do
    [ -e "$WORK/pair/$f" ] || fail "the run left no $f"
done
contains "$WORK/pair/report.txt" "client 1 ("
# block 8 is rank 0's, block 13 rank 1's (b % 2)
flip "$WORK/pair.img" $((8 * 4096 + 700))
flip "$WORK/pair.img" $((13 * 4096 + 3000))
expect_code 1 "$FAULTLINE" verify "$WORK/pair" --quiet
json "$R" '[.findings[] | [.block, .class, .owner]] | sort' '[[8,"corrupt",0],[13,"corrupt",1]]'
json "$R" '.io.reads' 512

# --- 2. rank 1 SIGKILLed mid-run
SCN=$(DURATION=10s two lose "$WORK/lose.img" "cross_reads = 10%" "[expect]" "lost_clients <= 1")
$MPIRUN -n 2 "$FAULTLINE" run "$SCN" --out "$WORK/lose" --quiet > "$WORK/lose.log" 2>&1 &
mpirun_pid=$!
kill_mpirun() { kill -9 $mpirun_pid 2> /dev/null || true; }
at_exit kill_mpirun
# rank 1: the faultline of this run whose environment says so
victim=""
i=0
while [ -z "$victim" ] && [ $i -lt 200 ]; do
    if [ -s "$WORK/lose/client-1/worker-0/journal.bin" ]; then
        for p in $(pgrep -x faultline); do
            tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 &&
                tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -qF "$SCN" && victim=$p
        done
    fi
    [ -n "$victim" ] || sleep 0.05
    i=$((i + 1))
done
[ -n "$victim" ] || { cat "$WORK/lose.log" >&2; fail "rank 1 never started"; }
sleep 2
kill -9 "$victim"
i=0
while kill -0 $mpirun_pid 2> /dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $mpirun_pid 2> /dev/null && { cat "$WORK/lose.log" >&2; fail "the job did not end"; }
[ "$(status "$WORK/lose")" = 0 ] || { cat "$WORK/lose.log" >&2; fail "rank 0 did not pass"; }
R=$WORK/lose/report.json
json "$R" '[.clients[] | .lost]' '[false,true]'
json "$R" '.clients[1].why | test("did not report by the end of the run plus grace")' true
json "$R" '.clients[0].io.writes > 1000' true
json "$R" '.findings | length' 0
json "$R" '.cross_reads | .unjudged == .reads and .reads > 0' true
[ -s "$WORK/lose/client-0/worker-0/state.bin" ] || fail "rank 0 kept no state"
[ ! -e "$WORK/lose/client-1/result.bin" ] || fail "the killed rank wrote a result"
expect_code 0 "$FAULTLINE" verify "$WORK/lose" --quiet
json "$R" .verdict '"pass"'
json "$R" '.io.reads' 512
json "$R" '.journal.state_final' false
json "$R" '.cross_reads | [.judged > 0, .findings, .unjudged]' '[true,0,0]'

# --- 3. rank 1 reads through a cache that is never revalidated
mkdir "$WORK/backing" "$WORK/plain" "$WORK/stale"
"$STALEFS" "$WORK/backing" "$WORK/plain" -f > "$WORK/plain.log" 2>&1 &
plain_pid=$!
"$STALEFS" --stale "$WORK/backing" "$WORK/stale" -f > "$WORK/stale.log" 2>&1 &
stale_pid=$!
unmount_all() {
    umount -l "$WORK/plain" 2> /dev/null
    umount -l "$WORK/stale" 2> /dev/null
    kill $plain_pid $stale_pid 2> /dev/null
    wait $plain_pid $stale_pid 2> /dev/null
    true
}
at_exit unmount_all
i=0
while [ $i -lt 100 ] && ! { mountpoint -q "$WORK/plain" && mountpoint -q "$WORK/stale"; }; do
    sleep 0.05
    i=$((i + 1))
done
mountpoint -q "$WORK/stale" || fail "stalefs did not mount"
SCN=$(DURATION=3s two stale "$WORK/plain/stale.img" "cross_reads = 50%")
# Rank 0 on the plain mount; rank 1 sees the stale one at the same path.
$MPIRUN -n 1 "$FAULTLINE" run "$SCN" --out "$WORK/stale-run" --quiet : \
    -n 1 unshare -m --propagation private sh -c \
    "mount --bind '$WORK/stale' '$WORK/plain' && exec '$FAULTLINE' run '$SCN' --quiet" \
    > "$WORK/stale-run.log" 2>&1 || { cat "$WORK/stale-run.log" >&2; fail "mpirun failed"; }
[ "$(status "$WORK/stale-run")" = 1 ] || { cat "$WORK/stale-run.log" >&2; fail "no fail"; }
R=$WORK/stale-run/report.json
json "$R" '.counts | to_entries | map(select(.value > 0 and .key != "ok" and .key != "unwritten"))
    | map(.key)' '["stale-read"]'
json "$R" '[.findings[] | [.class, .op, .owner, .client]] | unique' \
    '[["stale-read","cross read",0,1]]'
json "$R" '.cross_reads | [.findings > 0, .ok > 0, .unjudged]' '[true,true,0]'
contains "$WORK/stale-run/report.txt" "(client 0's, read by client 1)"
pass
