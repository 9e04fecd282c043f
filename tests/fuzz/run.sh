# Runs libFuzzer targets (make fuzz) and sums up each one's run.
#
#   sh tests/fuzz/run.sh SECONDS TARGET...
#
# Each build/fuzz/fuzz_T runs for SECONDS over a scratch copy of its seed
# corpus (tests/fuzz/corpus/T, which stays as it is in git) and its
# regression inputs (tests/fuzz/regress/T).  A crash input is kept as
# build/fuzz/crash-T-* (add it to tests/fuzz/regress/T once fixed).  Last,
# one line per target: execs, exec/s, cov and ft from libFuzzer's final
# stats, and whether it crashed.  Exit 1 when any target crashed.
set -u
[ $# -ge 2 ] || { echo "usage: sh tests/fuzz/run.sh SECONDS TARGET..." >&2; exit 2; }
SECONDS_EACH=$1
shift
OUT=build/fuzz/runs
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
failed=0
for t in "$@"; do
    bin=build/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: $bin is not built" >&2; failed=1; continue; }
    work=$OUT/$t
    rm -rf "$work"
    mkdir -p "$work/corpus"
    [ -d "tests/fuzz/corpus/$t" ] && cp tests/fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null
    seeds=$work/corpus
    [ -d "tests/fuzz/regress/$t" ] && seeds="$seeds tests/fuzz/regress/$t"
    # the journal's batches and the checkpoint carry crc32c: value profiling
    # lets libFuzzer learn the compared checksums and get past them
    extra=
    [ "$t" = journal ] && extra=-use_value_profile=1
    echo "== fuzz $t for $SECONDS_EACH s"
    # a damaged file may ask for a huge allocation (a checkpoint's block count
    # is outside its checksum): above 1 GiB malloc returns NULL, for the code
    # to report as out of memory, as on a machine without that memory
    ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1 \
    "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -artifact_prefix="build/fuzz/crash-$t-" \
        $extra $seeds > "$work/log" 2>&1
    code=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
    # the last status line ("#N  pulse  cov: C ft: F corp: U/SIZE ...")
    last=$(grep -aE '^#[0-9]+[[:space:]]' "$work/log" | tail -n 1 | tr -cd '[:print:]')
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
    if [ "$code" = 0 ]; then
        verdict=ok
    else
        verdict="CRASH (exit $code; see $work/log, input build/fuzz/crash-$t-*)"
        failed=1
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$work/log" | head -n 5 >&2
    fi
    printf '%-10s %ss execs=%s exec/s=%s cov=%s ft=%s corpus=%s %s\n' "$t" "$SECONDS_EACH" \
        "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$verdict" >> "$SUMMARY"
done
echo "== fuzz summary"
cat "$SUMMARY"
exit $failed
