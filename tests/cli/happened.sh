# tier: quick
# A run whose outage did not happen proves nothing about that outage: a
# fault whose inject failed, that could never come, or whose clear failed
# is never PASS.  The run names each such fault and why, exits 2 (it could
# not be run as written), and junit.xml marks it as an error; `faultline
# check` refuses a fault whose time is not within the workload.
. "$(dirname "$0")/../lib.sh"

# 1. A pause of a process that does not exist: the inject fails.
SCN=$(DURATION=2s scenario nosuch "[fault nope]" "action = pause" "host = local" \
    "process = fl-no-such-process" "at = 0.5s" "duration = 500ms")
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/nosuch"
contains "$WORK/out" "nosuch: ERROR (not run as written: [fault nope] inject failed: no such process on local)"
R=$WORK/nosuch/report.json
json "$R" '[.verdict, .exit_status]' '["error",2]'
json "$R" '[.not_happened[] | [.fault, .why, .counts]]' '[["nope","inject failed: no such process on local",true]]'
json "$R" '[.faults[0].happened, .faults[0].injected_at]' '[false,null]'
contains "$WORK/nosuch/report.txt" "run nosuch: ERROR"
contains "$WORK/nosuch/report.txt" "faults: 0 of 1 happened as written"
contains "$WORK/nosuch/report.txt" "NOT INJECTED; planned: fl-no-such-process of local paused"
grep -q '<error message="not as written: inject failed: no such process on local" type="fault"/>' \
    "$WORK/nosuch/junit.xml" || { cat "$WORK/nosuch/junit.xml" >&2; fail "junit.xml does not mark the fault as an error"; }
grep -q 'name="verdict" value="error"' "$WORK/nosuch/junit.xml" || fail "junit.xml's verdict is not error"
H=$WORK/nosuch/report.html
grep -q '<span class="verdict v-error">ERROR</span>' "$H" || fail "report.html does not say ERROR"
contains "$H" "NOT AS WRITTEN: inject failed: no such process on local"

# 2. A fault whose time is after the end of the workload, or a flap whose
#    last step is: refused by check (at the line of `at`) and by run.
SCN=$(DURATION=2s scenario late "[fault late]" "action = command" "host = local" \
    "command = true" "at = 30s")
expect_code 2 "$FAULTLINE" check "$SCN"
contains "$WORK/err" "late.scn:16: [fault late] at = 30s is not before the end of the workload (duration = 2s): it would never happen"
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/late"
contains "$WORK/err" "at = 30s is not before the end of the workload"
SCN=$(DURATION=2s scenario flap "[fault flap]" "action = port-flap" "host = local" \
    "switch_port = fl-none" "at = 0.5s" "count = 3" "period = 1s")
expect_code 2 "$FAULTLINE" check "$SCN"
contains "$WORK/err" "[fault flap] its last step (at 2.5s) is not before the end of the workload (duration = 2s)"

# 3. A clear that failed is reported as such, never with a recovery time.
SCN=$(DURATION=2s scenario badclear "[fault stuck]" "action = command" "host = local" \
    "command = true" "undo = echo no way back; exit 3" "at = 0.3s" "duration = 0.5s")
expect_code 2 "$FAULTLINE" run "$SCN" --out "$WORK/badclear"
contains "$WORK/out" "badclear: ERROR (not run as written: [fault stuck] clear failed:"
contains "$WORK/out" "fault stuck (command): stall"
contains "$WORK/out" "recovery - (its clear failed)"
R=$WORK/badclear/report.json
json "$R" '[.verdict, .faults[0].happened, .faults[0].clear_failed]' '["error",false,true]'
json "$R" '[.faults[0].recovery_s, .faults[0].first_io_after_clear_s]' '[null,null]'
contains "$WORK/badclear/report.txt" "(its clear failed: none is claimed)"
grep -q '<error message="not as written: clear failed' "$WORK/badclear/junit.xml" ||
    fail "junit.xml does not mark the failed clear as an error"
# (its undo record stays open for cleanup, which says why it cannot apply it)
expect_code 2 "$FAULTLINE" cleanup "$WORK/badclear"

# 4. A fault that happened: pass, and it says so.
SCN=$(DURATION=2s scenario fine "[fault ok]" "action = command" "host = local" \
    "command = true" "undo = true" "at = 0.3s" "duration = 0.5s")
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/fine"
json "$WORK/fine/report.json" '[.verdict, .exit_status, .faults[0].happened, (.not_happened | length)]' '["pass",0,true,0]'
contains "$WORK/fine/report.txt" "faults: 1 of 1 happened as written"
pass
