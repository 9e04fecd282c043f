# tier: full
# `faultline suite` on the iSCSI lab: three short scenarios, the first two
# with the same [lab] settings, the third with write_cache = on.  The suite
# brings the lab up once for the first two (the second shares it) and once
# more for the third (another setting: rebuilt): two lab ups for three
# scenarios.  The first kills ctrl-b's tgtd for good; before the second the
# suite finds it gone and starts it again (lab_health says so), instead of
# rebuilding the lab.  Each run finds the lab up and leaves it; the suite
# takes it down at the end, nothing left behind.  Then a suite of two
# scenarios with write caches: the first leaves ctrl-b as a power cut would
# (its tgtd and its cache killed); a restart of tgtd alone cannot bring it
# back, so the suite powers ctrl-b off and on before the second.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
lab_prefix

# NAME, then lines after [lab] size = 64MiB (more [lab] keys, faults)
lab_scn() {
    _n=$1
    shift
    {
        printf '[scenario]\nname = %s\nduration = 6s\nlab = iscsi\n' "$_n"
        printf '[target]\nkind = iscsi\ncommand_timeout = 5s\nnop_interval = 1s\nnop_missed = 3\n'
        printf '[workload]\nblock = 4KiB\nread = 50%%\ndepth = 8\nflush = 64\n'
        printf '[lab]\nsize = 64MiB\n'
        for line in "$@"; do printf '%s\n' "$line"; done
    } > "$WORK/s/$_n.scn"
}
mkdir -p "$WORK/s"
lab_scn 1-kill-b "[fault kill-b]" "action = kill" "host = ctrl-b" "at = 2s"
lab_scn 2-shared
lab_scn 3-write-cache "write_cache = on"
for f in "$WORK"/s/*.scn; do expect_code 0 "$FAULTLINE" check "$f"; done

set +e
"$FAULTLINE" suite "$WORK/s" --out "$WORK/res" > "$WORK/out" 2> "$WORK/err"
code=$?
set -e
J=$WORK/res/suite.json
[ -f "$J" ] || { cat "$WORK/out" "$WORK/err" >&2; said_tail "$WORK/out" "$WORK/err"; fail "no suite.json (exit $code)"; }
[ "$code" = 0 ] || { cat "$WORK/err" "$WORK"/res/*/try-*/report.txt >&2; fail "the suite exited $code"; }
json "$J" '[.verdict, .total, .ran, .met]' '["pass",3,3,3]'
# two labs brought up for three scenarios, the second scenario sharing the first's
json "$J" '[.lab_ups, .lab_shared]' '[2,1]'
json "$J" '[.scenarios[] | .lab_use]' '["up","shared","rebuilt"]'
json "$J" "[.scenarios[] | [.lab, .lab_prefix]] | unique" "[[\"iscsi\",\"$P\"]]"
json "$J" '[.lab_up_s > 0, .lab_down_s > 0]' '[true,true]'
json "$J" '.scenarios[0].lab_settings | test("^size=64MiB, .*write_cache=no")' true
json "$J" '.scenarios[2].lab_settings | test("^size=64MiB, .*write_cache=yes")' true
json "$J" '[.scenarios[0].lab_health, .scenarios[2].lab_health]' '["healthy","healthy"]'
# the kill of the first scenario left ctrl-b's tgtd dead; the suite started
# it again before the second
health=$(jq -r '.scenarios[1].lab_health' "$J")
case "$health" in
*"tgtd of ctrl-b"*"restarted tgtd of ctrl-b"*) ;;
*) fail "before the second scenario the lab was '$health', not ctrl-b's tgtd restarted" ;;
esac
json "$J" '.scenarios[0].faults' '[{"name":"kill-b","action":"kill","host":"ctrl-b"}]'
# every run found the lab up (none brought up or rebuilt its own)
for n in 1-kill-b 2-shared 3-write-cache; do
    grep -q '"lab-up".*found up' "$WORK/res/$n/try-1/events.jsonl" ||
        fail "$n did not find the lab up: $(grep lab-up "$WORK/res/$n/try-1/events.jsonl")"
done
contains "$WORK/err" "suite: [2/3] 2-shared (lab iscsi, shared)"
contains "$WORK/err" "needs other settings (write_cache)"
# the suite brought the lab up, so it took it down
[ ! -e "/run/faultline/labs/$P-iscsi.state" ] || fail "the suite left its lab up"
lab_nothing_left iscsi

# --- ctrl-b left as after a power cut: its tgtd and its write cache killed
mkdir -p "$WORK/wc"
for n in 1 2; do
    lab_scn "wc-$n" "write_cache = on"
    mv "$WORK/s/wc-$n.scn" "$WORK/wc/"
done
printf '[fault kill-b]\naction = kill\nhost = ctrl-b\nat = 2s\n[fault cut-cache]\naction = command\ncommand = kill -9 $(cut -d" " -f1 /var/lib/faultline/labs/%s-iscsi/cache-b.pid)\nat = 2s\n' \
    "$P" >> "$WORK/wc/wc-1.scn"
set +e
"$FAULTLINE" suite "$WORK/wc" --out "$WORK/wc-res" > "$WORK/out" 2> "$WORK/err"
code=$?
set -e
J=$WORK/wc-res/suite.json
[ "$code" = 0 ] || { cat "$WORK/err" "$WORK"/wc-res/*/try-*/report.txt >&2; fail "the second suite exited $code"; }
json "$J" '[.lab_ups, .lab_shared, [.scenarios[] | .lab_use]]' '[1,1,["up","shared"]]'
json "$J" '.scenarios[0].faults | map(.name)' '["kill-b","cut-cache"]'
health=$(jq -r '.scenarios[1].lab_health' "$J")
case "$health" in
*"tgtd of ctrl-b"*"powered ctrl-b off and on"*"over an empty write cache"*) ;;
*) fail "before wc-2 the lab was '$health', not ctrl-b powered off and on" ;;
esac
[ ! -e "/run/faultline/labs/$P-iscsi.state" ] || fail "the second suite left its lab up"
lab_nothing_left iscsi
pass
