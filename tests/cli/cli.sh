# tier: quick
# The command line: help for every verb, lint with file:line, exit statuses.
. "$(dirname "$0")/../lib.sh"

expect_code 0 "$FAULTLINE" --help
contains "$WORK/out" "run FILE"
contains "$WORK/out" "verify DIR"
contains "$WORK/out" "check FILE"
for verb in run verify check; do
    expect_code 0 "$FAULTLINE" $verb --help
    contains "$WORK/out" "usage: faultline $verb"
done
expect_code 0 "$FAULTLINE" --version
expect_code 2 "$FAULTLINE"
expect_code 2 "$FAULTLINE" frobnicate
contains "$WORK/err" "unknown verb frobnicate"
expect_code 2 "$FAULTLINE" run
expect_code 2 "$FAULTLINE" run a.scn --bogus
contains "$WORK/err" "unknown option --bogus"

# help scenario lists every key of the minimum scenario
expect_code 0 "$FAULTLINE" help scenario
for key in name duration kind path size block pattern read depth flush direct; do
    grep -q "^  $key " "$WORK/out" || fail "help scenario does not list '$key'"
done

# Every lab kind is in the reference, with its hosts; lab --help says the
# prefix rule.
expect_code 0 "$FAULTLINE" lab --help
cp "$WORK/out" "$WORK/lab-help"
contains "$WORK/lab-help" "2 to 8"
contains "$WORK/lab-help" "lower-case letters or digits starting with fl"
expect_code 0 "$FAULTLINE" help scenario
kinds=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' "$WORK/lab-help" | grep -v '^up$\|^down$\|^status$\|^restart$\|^power$\|^init$')
[ "$(echo "$kinds" | wc -l)" -ge 3 ] || fail "lab --help lists no kinds: $kinds"
for k in $kinds; do
    grep -Eq "^(Labs:|     ) $k " "$WORK/out" || fail "help scenario does not list lab kind $k"
done
grep -q "hosts: client cs1 cs2 cs3" "$WORK/out" || fail "help scenario does not name the ceph lab's hosts"

# Every key and metric the parser knows is documented: docs/scenario.md and
# man/faultline-scenario.5 are generated from the same tables (make docs), and
# tests/cli/docs.sh fails when a checked-in one is not what they make now.
# (README.md's tables were checked here row by row before; README no longer
# holds the reference.)

# The shipped scenarios lint clean.
for f in "$(dirname "$0")"/../../scenarios/*.scn; do
    expect_code 0 "$FAULTLINE" check "$f"
done

# A mistake is named with file:line.
printf '[target]\nkind = file\npath = /tmp/x\n[workload]\ndepht = 8\n' > "$WORK/bad.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad.scn"
contains "$WORK/err" "$WORK/bad.scn:5: unknown key 'depht' in [workload]; did you mean 'depth'?"
expect_code 2 "$FAULTLINE" run "$WORK/bad.scn" --out "$WORK/never"
[ ! -e "$WORK/never" ] || fail "a bad scenario created a run directory"
expect_code 2 "$FAULTLINE" check "$WORK/missing.scn"
contains "$WORK/err" "cannot open $WORK/missing.scn: No such file or directory"

# Every mistake is named, each with its file:line, not only the first.
cat > "$WORK/many.scn" <<EOS
[scenario]
duration = 5s
bogus = 1
[target]
kind = file
path = $WORK/many.img
[workload]
depht = 8
read = 150%
[fault a]
action = pause
host = nowhere
[fault b]
action = command
command = true
at = 10s
[expect]
lost_writez = 0
EOS
expect_code 2 "$FAULTLINE" check "$WORK/many.scn"
for want in "many.scn:3: unknown key 'bogus' in [scenario]" "many.scn:8: unknown key 'depht'" \
    "many.scn:9: read: '150%' is not a percentage" "many.scn:18: unknown metric in [expect] 'lost_writez'"; do
    contains "$WORK/err" "$want"
done
# (the faults' checks come once every key has its place)
sed -i '/^bogus/d; /^depht/d; /^read = 150%/d; /^lost_writez/d' "$WORK/many.scn"
expect_code 2 "$FAULTLINE" check "$WORK/many.scn"
contains "$WORK/err" "many.scn:7: [fault a] host 'nowhere' is neither a lab host"
contains "$WORK/err" "many.scn:13: [fault b] at = 10s is not before the end of the workload"

# Could not run: exit 2 and why.
printf '[target]\nkind = file\npath = %s/no/such/dir/x.img\nsize = 1MiB\n' "$WORK" > "$WORK/nodir.scn"
expect_code 2 "$FAULTLINE" run "$WORK/nodir.scn" --out "$WORK/r1" --quiet
contains "$WORK/err" "cannot open $WORK/no/such/dir/x.img: No such file or directory"
expect_code 2 "$FAULTLINE" verify "$WORK/nothing-here"
contains "$WORK/err" "is not a run directory"

# An existing run directory is never overwritten.
SCN=$(scenario again)
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/again" --quiet

# timeline.csv: the latency percentiles come after the older columns, and in
# every bucket where something completed p50 <= p99 <= the slowest I/O.
head -1 "$WORK/again/timeline.csv" |
    grep -q '^t_s,reads,writes,flushes,errors,bytes,iops,mb_s,max_latency_ms,inflight,oldest_inflight_ms,p50_latency_ms,p99_latency_ms' ||
    fail "timeline.csv lacks the latency percentiles: $(head -1 "$WORK/again/timeline.csv")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["reads"] + $col["writes"] + $col["flushes"] + $col["errors"] > 0 {
        rows++
        p50 = $col["p50_latency_ms"]; p99 = $col["p99_latency_ms"]; max = $col["max_latency_ms"]
        if (p50 == "" || p99 == "" || p50 + 0 <= 0 || p50 + 0 > p99 + 0 || p99 + 0 > max + 0) {
            print "timeline.csv line " NR ": p50 " p50 ", p99 " p99 ", max " max; bad = 1
        }
    }
    END { if (rows < 5) { print "only " rows + 0 " buckets with completions"; bad = 1 }; exit bad }' \
    "$WORK/again/timeline.csv" || fail "timeline.csv's latency percentiles are out of order"
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/again" --quiet
contains "$WORK/err" "already holds a run"

# The default run directory is runs/<time>-<name>/ under the current one.
(cd "$WORK" && "$FAULTLINE" run "$SCN" --quiet > "$WORK/out" 2>&1)
ls -d "$WORK"/runs/*-again > /dev/null || fail "no runs/<time>-again directory"
contains "$WORK/out" "report: runs/"
pass
