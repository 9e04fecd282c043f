# tier: quick
# passes: both
# power-off on a [host] by its own commands, run here on the controller
# (a BMC's ipmitool in real life): power_off, power_on and power_status are
# small shell commands that keep the host's "power" in a file of the test
# ($WORK/power) and log each call with its time ($WORK/calls).
#   - a cut and the power back: the commands ran in order, at the fault's
#     times (against the report's t0_wall), with no ssh although the host
#     has one; the report's fault says what they did and the run passes,
#     the cut counted as a power loss (loses = unflushed by default);
#   - a power_status that never says off: the fault is indeterminate, the
#     run is not a pass (not as written, exit 2), and power_on still ran;
#   - a power_off that fails: the error names the host, the command, its
#     exit status and its output;
#   - a run SIGKILLed while the host is off: `faultline cleanup DIR` runs
#     power_on from the undo log;
#   - the [host] keys checked at file:line.
. "$(dirname "$0")/../lib.sh"
need_root "the undo registry under /run/faultline"

CALLS=$WORK/calls
POWER=$WORK/power
OFF="power_off = echo off \$(date +%s.%N) >> $CALLS; echo off > $POWER"
ON="power_on = echo on \$(date +%s.%N) >> $CALLS; echo on > $POWER"
STATUS="power_status = echo status \$(date +%s.%N) >> $CALLS; echo Chassis Power is \$(cat $POWER)"
fresh() { echo on > "$POWER" && : > "$CALLS"; }
# the words of the calls, in order, repeats of status as one: "off status on status"
calls() { awk '{print $1}' "$CALLS" | uniq | tr '\n' ' ' | sed 's/ $//'; }
# since_t0 REPORT WORD: when the first call WORD ran, in seconds since the
# workload's start (the report's t0_wall)
since_t0() { awk -v w="$2" -v t0="$(jq .t0_wall "$1")" '$1 == w { printf "%.3f\n", $2 - t0; exit }' "$CALLS"; }
# between LOW X HIGH: LOW <= X <= HIGH
between() { awk -v l="$1" -v x="$2" -v h="$3" 'BEGIN { exit !(l <= x && x <= h) }'; }

# --- a cut and the power back, at the fault's times ---
fresh
SCN=$(DURATION=4s scenario cut "[host gs2]" "ssh = root@gs2.invalid" "$OFF" "$ON" "$STATUS" \
    "power_wait = 5s" "[fault cut]" "action = power-off" "host = gs2" "at = 1s" \
    "power_on_after = 1.5s")
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/cut" --quiet
R=$WORK/cut/report.json
[ "$(calls)" = "off status on status" ] || { cat "$CALLS" >&2; fail "the calls were: $(calls)"; }
[ "$(cat "$POWER")" = on ] || fail "the host is $(cat "$POWER") after the run"
off=$(since_t0 "$R" off)
on=$(since_t0 "$R" on)
inj=$(jq .faults[0].injected_at "$R")
clr=$(jq .faults[0].cleared_at "$R")
# power_off at its time, before the inject's time (its return); power_on
# 1.5 s later, before the clear's (0.05 s for the two clocks' readings)
between 1 "$off" "$inj" || fail "power_off ran at $off s, the fault is at 1 s, injected at $inj s"
between 2.5 "$on" "$(echo "$clr" | awk '{print $1 + 0.05}')" ||
    fail "power_on ran at $on s, the clear is due at 2.5 s, cleared at $clr s"
json "$R" '.faults[0] | [.action, .transport, .applied, .happened, .indeterminate, .error]' \
    '["power-off","local",true,true,false,null]'
json "$R" '.faults[0].detail | test("^power of gs2 cut: power_off ran \\([0-9.]+ s\\), power_status said off [0-9.]+ s later \\(.Chassis Power is off., exit 0\\), powered on after 1.500 s$")' true
json "$R" '[.hosts[] | [.name, .transport]]' '[["gs2","local"]]' # no agent was asked for
json "$R" '[.verdict, (.power | map(.fault))]' '["pass",["cut"]]'
grep -qF '"event":"fault-clear"' "$WORK/cut/events.jsonl" || fail "no fault-clear event"
contains "$WORK/cut/events.jsonl" "power_on ran ("
contains "$WORK/cut/events.jsonl" "power_status said on"
contains "$WORK/cut/undo.log" "U 1 command - echo on"
contains "$WORK/cut/undo.log" "D 1"
echo "  cut: power_off at $off s (injected $inj s), power_on at $on s (cleared $clr s)"

# --- a power_status that never says off: indeterminate ---
fresh
SCN=$(DURATION=3s scenario unsure "[host gs2]" "$OFF" "$ON" \
    "power_status = echo Chassis Power is on" "power_wait = 1s" "[fault cut]" \
    "action = power-off" "host = gs2" "at = 0.5s" "power_on_after = 2s")
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/unsure" --quiet
R=$WORK/unsure/report.json
json "$R" '.faults[0] | [.applied, .indeterminate, .happened]' '[true,true,false]'
json "$R" '.verdict' '"error"'
json "$R" '.faults[0].not_happened_why' \
    '"power_status of gs2 never said off within power_wait = 1 s of its power_off (last: '"'"'Chassis Power is on'"'"', exit 0): it may or may not have happened"'
contains "$WORK/unsure/report.txt" "NOT AS WRITTEN: power_status of gs2 never said off"
[ "$(calls)" = "off on" ] || { cat "$CALLS" >&2; fail "the calls were: $(calls)"; }
[ "$(cat "$POWER")" = on ] || fail "power_on did not run after an unconfirmed cut"

# --- a power_off that fails: which command, its status and its output ---
fresh
SCN=$(DURATION=2s scenario failing "[host gs2]" \
    "power_off = echo Error: Unable to establish IPMI v2 / RMCP+ session >&2; exit 3" "$ON" \
    "[fault cut]" "action = power-off" "host = gs2" "at = 0.5s")
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/failing"
R=$WORK/failing/report.json
json "$R" '.faults[0] | [.applied, .happened]' '[false,false]'
json "$R" '.faults[0].error' \
    '"inject failed: [host gs2] power_off '"'"'echo Error: Unable to establish IPMI v2 / RMCP+ session >&2; exit 3'"'"' failed (3): Error: Unable to establish IPMI v2 / RMCP+ session"'
contains "$WORK/out" "power_off 'echo Error: Unable to establish IPMI v2 / RMCP+ session >&2; exit 3' failed (3): Error: Unable to establish IPMI v2 / RMCP+ session"
# whatever part of it happened is undone at once: power_on from its record
[ "$(calls)" = "on" ] || { cat "$CALLS" >&2; fail "the calls were: $(calls)"; }

# --- a run SIGKILLed while the host is off: cleanup powers it on ---
fresh
SCN=$(DURATION=600s scenario killed "[host gs2]" "$OFF" "$ON" "$STATUS" "[fault cut]" \
    "action = power-off" "host = gs2" "at = 0.5s" "power_on_after = 500s")
"$FAULTLINE" run "$SCN" --out "$WORK/killed" --quiet > "$WORK/killed.out" 2>&1 &
pid=$!
stop_run() { [ -z "$pid" ] || { kill -9 "$pid" 2> /dev/null && wait "$pid" 2> /dev/null; }; return 0; }
at_exit stop_run
wait_event "$WORK/killed/events.jsonl" fault-inject cut "$WORK/killed.out"
[ "$(cat "$POWER")" = off ] || fail "the fault is in effect, but the host is $(cat "$POWER")"
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
pid=""
[ "$(cat "$POWER")" = off ] || fail "the host is $(cat "$POWER") before the cleanup"
expect_code 0 "$FAULTLINE" cleanup "$WORK/killed"
contains "$WORK/out" "$WORK/killed: undone what the run had left"
contains "$WORK/out" "1 undo record applied"
[ "$(cat "$POWER")" = on ] || fail "cleanup did not power the host on: it is $(cat "$POWER")"
[ "$(calls)" = "off status on" ] || { cat "$CALLS" >&2; fail "the calls were: $(calls)"; }
expect_code 0 "$FAULTLINE" cleanup "$WORK/killed"
contains "$WORK/out" "$WORK/killed: nothing left to undo"

# --- the keys, checked at file:line ---
bad() { # WANT, then the scenario's extra lines
    _want=$1
    shift
    expect_code 2 "$FAULTLINE" check "$(scenario bad "$@")"
    contains "$WORK/err" "$_want"
}
# (bad.scn: [scenario] 3 lines, [target] 4, [workload] 4: its own lines from 12)
bad "bad.scn:13: [host h] power_status needs power_off and power_on" "[host h]" "$STATUS"
bad "bad.scn:13: [host h] power_off needs power_on = COMMAND" "[host h]" "$OFF"
bad "bad.scn:13: [host h] power_on needs power_off = COMMAND" "[host h]" "$ON"
bad "bad.scn:14: [fault cut] power-off cuts the power of a lab server, or of a [host] with power_off = COMMAND and power_on = COMMAND" \
    "[host h]" "ssh = root@h" "[fault cut]" "action = power-off" "host = h" "at = 0.5s"
contains "$WORK/err" "and [host h] has no power_off and power_on"
expect_code 0 "$FAULTLINE" help scenario
contains "$WORK/out" "power_status"
pass
