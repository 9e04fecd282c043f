# tier: quick
# passes: plain
# The libFuzzer targets of tests/fuzz/ (make fuzz), briefly: each one built
# (build/fuzz/, clang with ASan+UBSan) and run once over its seed corpus and
# every crash input found and fixed so far (tests/fuzz/regress/T), then
# fuzzed for FUZZ_CHECK_SECONDS (3) more.  Fails on any crash, leak or
# undefined behaviour, so that a fixed crash that comes back shows.
# Skipped where clang cannot build a libFuzzer target (make deps installs
# clang and libclang-rt-14-dev).
. tests/lib.sh

SECS=${FUZZ_CHECK_SECONDS:-3}
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n%s\n' \
    'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    > "$WORK/probe.c"
clang -fsanitize=fuzzer,address,undefined "$WORK/probe.c" -o "$WORK/probe" 2> "$WORK/probe.err" ||
    skip "clang cannot build a libFuzzer target here: $(head -n 1 "$WORK/probe.err")"

# build/fuzz is shared with make fuzz; this test runs in the plain pass only (its
# targets are ASan+UBSan builds of their own).  Built with every core (on this
# machine 22 s with both cores, 50 s with one).
make --no-print-directory -j"$(nproc)" fuzz-build > "$WORK/build.log" 2>&1 || {
    tail -n 30 "$WORK/build.log" >&2
    fail "make fuzz-build failed"
}
targets=$(ls tests/fuzz/fuzz_*.c | sed 's|tests/fuzz/fuzz_||; s|\.c$||')
[ -n "$targets" ] || fail "no fuzz targets in tests/fuzz"
# above 1 GiB malloc returns NULL, for the code to report (tests/fuzz/run.sh)
export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1
unset LSAN_OPTIONS
for t in $targets; do
    bin=build/fuzz/fuzz_$t
    [ -d "tests/fuzz/corpus/$t" ] || fail "target $t has no seed corpus tests/fuzz/corpus/$t"
    # every seed and every regression input once, by name: each must pass
    inputs=$(find "tests/fuzz/corpus/$t" "tests/fuzz/regress/$t" -type f 2>/dev/null | sort)
    # shellcheck disable=SC2086 # one argument per input file
    "$bin" -runs=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 $inputs \
        > "$WORK/$t-replay.log" 2>&1 || {
        grep -aE 'ERROR|runtime error|SUMMARY|Running:|does not|refused' "$WORK/$t-replay.log" | tail -n 8 >&2
        fail "$t: a seed or regression input crashes (replay: $bin -runs=1 INPUT)"
    }
    n=$(grep -ac '^Executed ' "$WORK/$t-replay.log" || true)
    mkdir -p "$WORK/$t"
    "$bin" -max_total_time="$SECS" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$WORK/crash-$t-" "$WORK/$t" "tests/fuzz/corpus/$t" \
        > "$WORK/$t-fuzz.log" 2>&1 || {
        grep -aE 'ERROR|runtime error|SUMMARY|does not|refused' "$WORK/$t-fuzz.log" | tail -n 8 >&2
        for c in "$WORK"/crash-"$t"-*; do
            [ -f "$c" ] && mkdir -p build/fuzz && cp "$c" build/fuzz/ &&
                echo "crash input kept as build/fuzz/$(basename "$c")" >&2
        done
        fail "$t: fuzzing for $SECS s found a crash"
    }
    last=$(grep -aE '^#[0-9]+' "$WORK/$t-fuzz.log" | tail -n 1)
    echo "fuzz $t: $n inputs replayed; ${SECS}s: $last"
done
echo "PASS $TEST"
