# tier: full
# power-off of a lab server reached as a real one ([lab] control = ssh):
# the lab gives each server power_off, power_on and power_status commands
# (`faultline lab power KIND HOST off|on|status`, through the switch's
# sshd, as a BMC is reached over its own network), and the power family
# runs them here, on the controller, as it runs a [host]'s BMC commands.
#   - a cut of ctrl-a and the power back: the fault says what each command
#     did (the lab's own words: its switch port down, then its processes
#     killed), the status confirmed off and on, the cut is a power loss
#     with writes at risk, the I/O failed over to ctrl-b, the run passes,
#     and ctrl-a is on again afterwards;
#   - a run SIGKILLed while ctrl-a is off: `faultline cleanup DIR` runs its
#     power_on from the undo log, ctrl-a is on and the lab healthy again;
#   - `lab power` says what it is asked wrong, and status exits 1 when the
#     host is neither on nor off.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
command -v ssh > /dev/null && [ -x /usr/sbin/sshd ] || fail "ssh or sshd is missing (make deps)"
lab_prefix
status() { "$FAULTLINE" lab power iscsi ctrl-a status 2>&1 || true; }
# power_scn NAME DURATION FAULT-LINES...: ctrl-a's power cut over ssh
power_scn() {
    _n=$1 _d=$2
    shift 2
    {
        printf '[scenario]\nname = %s\nduration = %s\nlab = iscsi\n' "$_n" "$_d"
        printf '[lab]\nsize = 64MiB\nwrite_cache = on\ncontrol = ssh\n'
        printf '[target]\nkind = iscsi\ncommand_timeout = 5s\nnop_interval = 1s\nnop_missed = 3\n'
        printf '[workload]\nblock = 4KiB\npattern = random\nread = 50%%\ndepth = 8\nflush = 4096\n'
        printf '[fault power-a]\naction = power-off\nhost = ctrl-a\n'
        for line in "$@"; do printf '%s\n' "$line"; done
    } > "$WORK/$_n.scn"
    echo "$WORK/$_n.scn"
}

# --- a cut and the power back, by the lab's commands over ssh ---
SCN=$(power_scn cut 10s "at = 3s" "power_on_after = 3s")
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/cut" --quiet --keep-lab
R=$WORK/cut/report.json
json "$R" '.faults[0] | [.action, .transport, .applied, .happened, .indeterminate, .error]' \
    '["power-off","local",true,true,false,null]'
# the lab's own words, through the commands' output: the port first
json "$R" '.faults[0].detail | test("^power of ctrl-a cut: power_off ran [(][0-9.]+ s .switch port [a-z0-9-]+ down, then tgtd [(]pid [0-9]+[)] and its write cache [(]pid [0-9]+[)] killed, [0-9]+ unflushed pages gone, its sshd [(]pid [0-9]+[)] killed.[)], power_status said off [0-9.]+ s later [(].off: switch port [a-z0-9-]+ down, its service gone., exit 0[)], powered on after 3.000 s$")' true
# power_on ran and power_status said on: the record is done only then
json "$R" '.faults[0] | [.cleared_by, .cleared_at - .injected_at >= 2]' '["controller",true]'
contains "$WORK/cut/undo.log" "D 1"
contains "$WORK/cut/events.jsonl" "powered on after 3.000 s: power_on ran ("
json "$R" '[.verdict, .power[0].fault, .power[0].writes_at_risk > 0]' '["pass","power-a",true]'
json "$R" '[.faults[0].path_events[] | select(.event == "switch")] | length >= 1' true
contains "$WORK/cut/undo.log" "lab power iscsi ctrl-a on --prefix $P"
case $(status) in on:*) ;; *) fail "ctrl-a after the run: $(status)" ;; esac
echo "  cut: $(jq -r '.faults[0] | "stall \(.stall_s) s, recovery \(.recovery_s) s"' "$R"), $(jq .power[0].writes_at_risk "$R") writes at risk, $(jq .counts.reverted "$R") reverted"

# --- a run SIGKILLed while ctrl-a is off: cleanup powers it on ---
SCN=$(power_scn killed 120s "at = 2s")
"$FAULTLINE" run "$SCN" --out "$WORK/killed" --quiet --keep-lab > "$WORK/killed.out" 2>&1 &
pid=$!
stop_run() { [ -z "$pid" ] || { kill -9 "$pid" 2> /dev/null && wait "$pid" 2> /dev/null; }; return 0; }
at_exit stop_run
wait_event "$WORK/killed/events.jsonl" fault-inject power-a "$WORK/killed.out"
case $(status) in off:*) ;; *) fail "the fault is in effect, but ctrl-a is $(status)" ;; esac
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
pid=""
case $(status) in off:*) ;; *) fail "ctrl-a before the cleanup: $(status)" ;; esac
expect_code 0 "$FAULTLINE" cleanup "$WORK/killed"
contains "$WORK/out" "$WORK/killed: undone what the run had left"
case $(status) in on:*) ;; *) fail "cleanup did not power ctrl-a on: $(status)" ;; esac
expect_code 0 "$FAULTLINE" lab status iscsi --json
json "$WORK/out" '[.hosts[] | select(.name == "ctrl-a") | [.port_up, .process.state]]' '[[true,"running"]]'
PORT=$(jq -r '.hosts[] | select(.name == "ctrl-a") | .switch_port' "$WORK/out")

# --- what lab power says ---
expect_code 2 "$FAULTLINE" lab power iscsi ctrl-a sideways
contains "$WORK/err" "lab power needs a host and off, on or status"
expect_code 2 "$FAULTLINE" lab power iscsi client off
contains "$WORK/err" "cannot cut the power of client (only of its servers)"
# neither on nor off: the port down, the service running
ip link set "$PORT" down
expect_code 1 "$FAULTLINE" lab power iscsi ctrl-a status
contains "$WORK/out" "unknown: switch port $PORT down, its service running"
ip link set "$PORT" up
case $(status) in on:*) ;; *) fail "ctrl-a with its port up again: $(status)" ;; esac
pass
