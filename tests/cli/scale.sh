# tier: quick
# Scale limits: a run whose state map would not fit in the memory it may
# use is refused up front (exit 2) with the numbers, before a file target is
# even created; and on a large sparse target the state map costs at most 2
# bytes per block, at rest and at the peak (VmHWM, from /usr/bin/time), in
# the run (whose checkpoints write the whole map many times) and in verify
# (which loads all of it from state.bin and replays the journal).
. "$(dirname "$0")/../lib.sh"

[ -x /usr/bin/time ] || skip "/usr/bin/time is missing (Debian package time; make deps)"

# --- refusals ---
# 100 TiB of 4 KiB blocks: 50 GiB of state map, refused against any
# memory_limit below that (given here, so that the test does not depend on
# this machine's memory).
SCN=$(SIZE=100TiB SCENARIO_KEYS="memory_limit = 4G" scenario huge)
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/huge" --quiet
contains "$WORK/err" "the state map of 26843545600 blocks needs 50.0 GiB at 2 bytes per block; this run may use 4.0 GiB (memory_limit in [scenario]"
[ ! -e "$WORK/huge.img" ] || fail "the refused run created its 100 TiB target"

# The default: half of MemAvailable, named as such.
SCN=$(SIZE=100TiB scenario huge2)
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "$avail_kb" -lt $((100 * 1024 * 1024 * 1024)) ]; then # less than 100 TiB
    expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/huge2" --quiet
    contains "$WORK/err" "(memory_limit, default: 50% of MemAvailable"
    contains "$WORK/err" "set it in [scenario])"
fi

# A size the file only has once opened (no [target] size): checked too.
truncate -s 8GiB "$WORK/sparse8.img"
cat > "$WORK/sparse8.scn" <<EOF
[scenario]
name = sparse8
duration = 1s
memory_limit = 1MiB
[target]
kind = file
path = $WORK/sparse8.img
[workload]
block = 4KiB
EOF
expect_code 2 "$FAULTLINE" run "$WORK/sparse8.scn" --out "$WORK/sparse8" --quiet
contains "$WORK/err" "the state map of 2097152 blocks needs 4.0 MiB at 2 bytes per block; this run may use 1.0 MiB"

# A bad value is named with file:line.
sed 's/^memory_limit = 1MiB/memory_limit = plenty/' "$WORK/sparse8.scn" > "$WORK/bad.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad.scn"
contains "$WORK/err" "bad.scn:4"
contains "$WORK/err" "memory_limit"

# --- bytes per block, measured ---
# One worker, so that one map covers every block; a 64 KiB journal segment
# makes the run write checkpoints of the whole map as it goes (and the last
# one at its end, always).  Few writes (read = 90%) leave most of the map's
# pages untouched, so that a copy of the map (2 bytes per block more) shows
# in the run's peak however fast the machine; verify loads every page.  The
# same on a tiny target gives the process's own baseline.
measure() { # NAME SIZE: prints "run_peak_kB verify_peak_kB blocks"
    truncate -s "$2" "$WORK/$1.img"
    cat > "$WORK/$1.scn" <<EOF
[scenario]
name = $1
duration = 500ms
journal_segment = 64KiB
[target]
kind = file
path = $WORK/$1.img
[workload]
block = 4KiB
read = 90%
depth = 4
workers = 1
engine = io_uring
flush = 16
EOF
    /usr/bin/time -f %M -o "$WORK/$1.run.kb" "$FAULTLINE" run "$WORK/$1.scn" --out "$WORK/$1" \
        --quiet > "$WORK/$1.log" 2>&1 || { cat "$WORK/$1.log" >&2; fail "the run on $2 failed"; }
    json "$WORK/$1/report.json" .verdict '"pass"'
    /usr/bin/time -f %M -o "$WORK/$1.verify.kb" "$FAULTLINE" verify "$WORK/$1" --quiet \
        > "$WORK/$1.log" 2>&1 || { cat "$WORK/$1.log" >&2; fail "verify on $2 failed"; }
    json "$WORK/$1/report.json" .verdict '"pass"'
    echo "$(tail -n 1 "$WORK/$1.run.kb") $(tail -n 1 "$WORK/$1.verify.kb") $(jq .target.blocks "$WORK/$1/report.json")"
    rm -f "$WORK/$1.img"
}
small=$(measure small 64MiB)
big=$(measure big 128GiB)
# The sanitizers add their own shadow (an eighth of what is touched), and
# keep what is freed in quarantine.
limit=2.05
[ -z "${FL_SANITIZED:-}" ] || limit=2.5
echo "$small $big" | awk -v limit=$limit '{
    run = ($4 - $1) * 1024 / $6; ver = ($5 - $2) * 1024 / $6
    printf "scale: %d blocks: run peak %d kB (%.2f bytes per block over a small run), verify peak %d kB (%.2f)\n", $6, $4, run, $5, ver
    exit !(run <= limit && ver <= limit && ver >= 1.5)
}' || fail "the state map of a 128 GiB target costs more than $limit bytes per block (or verify did not load it)"

# verify holds the run's map against the limit too, before loading it.
sed 's/^\[scenario\]$/[scenario]\nmemory_limit = 1MiB/' "$WORK/big/scenario.scn" > "$WORK/limited.scn"
mv "$WORK/limited.scn" "$WORK/big/scenario.scn"
expect_code 2 "$FAULTLINE" verify "$WORK/big" --quiet
contains "$WORK/err" "the state map of 33554432 blocks needs 64.0 MiB at 2 bytes per block; this run may use 1.0 MiB (memory_limit in [scenario]"
pass
