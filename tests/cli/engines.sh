# tier: quick
# Every I/O engine and pattern verifies the same way: sync (buffered),
# io_uring with O_DIRECT and several workers, O_DSYNC, sequential, no flush
# until the end, no journal.
. "$(dirname "$0")/../lib.sh"

check_run() { # name, extra workload lines...
    name=$1
    SCN=$(SIZE=4MiB scenario "$@")
    expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/$name" --quiet
    json "$WORK/$name/report.json" .verdict '"pass"'
    json "$WORK/$name/report.json" '.io.reads + .io.writes > 100' true
    cp "$WORK/$name/report.json" "$WORK/$name/run.json" # verify rewrites report.json
    expect_code 0 "$FAULTLINE" verify "$WORK/$name" --quiet
    json "$WORK/$name/report.json" .verdict '"pass"'
}
check_run sync "engine = sync"
contains "$WORK/sync/report.txt" "buffered, no O_DSYNC, sync engine" # the verify report names the target too
json "$WORK/sync/run.json" .workers 4
check_run uring "engine = io_uring" "direct = yes" "workers = 2"
contains "$WORK/uring/report.txt" "O_DIRECT, no O_DSYNC, io_uring engine"
json "$WORK/uring/run.json" .workers 2
check_run seq "pattern = sequential" "read = 0%"
json "$WORK/seq/run.json" '.io.reads' 0
check_run noflush "flush = 0"
check_run bigblocks "block = 64KiB" "read = 70%"
check_run tinyblocks "block = 512" "flush = 1"
SCENARIO_KEYS="journal = no" check_run nojournal
[ ! -e "$WORK/nojournal/worker-0/journal.bin" ] || fail "journal = no wrote a journal"
TARGET_KEYS="sync = yes" check_run dsync "flush = 0"
json "$WORK/dsync/run.json" .io.flushes 0 # O_DSYNC: durable at completion
contains "$WORK/dsync/report.txt" "O_DSYNC"

# A run without a journal that dies cannot be verified, and says so.
SCN=$(DURATION=60s SCENARIO_KEYS="journal = no" scenario dies)
"$FAULTLINE" run "$SCN" --out "$WORK/dies" --quiet > /dev/null 2>&1 &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null || true
expect_code 2 "$FAULTLINE" verify "$WORK/dies"
contains "$WORK/err" "kept no journal"
pass
