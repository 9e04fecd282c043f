# tier: full
# Faults over ssh, on the iSCSI lab with [lab] control = ssh: every family
# is applied by `faultline agent` on a controller (or on the switch, for
# the ports), checked from outside the way faults.sh checks it, and
# cleared.  Then the agents restore their hosts without the controller
# (faultline SIGKILLed during a pause and during a partition that cuts
# the session itself), copy themselves over (into a home of their own by
# default), refuse a host that cannot run them, and `faultline cleanup`
# reaches a host whose agent was killed.  Before all that, an agent_dir
# that another user could have planted (theirs, writable by others, a
# link, under a directory others may write to) is refused over ssh with
# nothing in it run.
. "$(dirname "$0")/../lib.sh"

command -v ssh > /dev/null && [ -x /usr/sbin/sshd ] || fail "ssh or sshd is missing (make deps)"
iscsi_lab_up
NS_A=$P-iscsi-ctrl-a
NS_B=$P-iscsi-ctrl-b
LAB=/var/lib/faultline/labs/$P-iscsi
is_up() { read -r flags < "/sys/class/net/$1/flags" && [ $((flags & 1)) = 1 ]; } # no fork: sampled often
ns_up() { ip -n "$1" -j link show "$2" | jq -e '.[0].flags | index("UP") != null' > /dev/null; }
nft_packets() { # netns table: packets counted by all its rules
    ip netns exec "$1" nft -j list table inet "$2" |
        jq '[.nftables[] | .rule? | select(.) | .expr[] | .counter? | select(.) | .packets] | add'
}
table_of() { # events fault: the nft table named in its inject event
    grep -F '"event":"fault-inject"' "$1" | grep -F "[fault $2]" |
        sed -n 's/.*nft table \([a-z0-9_]*\).*/\1/p' | head -1
}
has_table() { ip netns exec "$1" nft list table inet "$2" > /dev/null 2>&1; }
stat_of() { sed -n 's/^.*) \(.\).*/\1/p' "/proc/$1/stat" 2> /dev/null || true; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# until_ms LIMIT_MS CMD...: waits (10 ms steps) until CMD succeeds; prints
# how long it took, or fails after LIMIT_MS.
until_ms() {
    lim=$1
    shift
    t0=$(ms_now)
    while ! "$@"; do
        [ $(($(ms_now) - t0)) -lt "$lim" ] || return 1
        sleep 0.01
    done
    echo $(($(ms_now) - t0))
}

# The lab's own answer to "how do I reach it": ssh, key, known_hosts.
[ "$(lab_host ctrl-a ssh)" = "root@$(lab_host ctrl-a address)" ] || fail "lab status: ssh of ctrl-a"
[ -s "$(lab_host ctrl-a ssh_identity)" ] && [ -s "$(lab_host ctrl-a ssh_known_hosts)" ] ||
    fail "lab status: no ssh_identity or ssh_known_hosts for ctrl-a"
ssh -T -oBatchMode=yes -i "$(lab_host ctrl-b ssh_identity)" \
    -oUserKnownHostsFile="$(lab_host ctrl-b ssh_known_hosts)" -oStrictHostKeyChecking=yes \
    "$(lab_host ctrl-b ssh)" ip -br addr show eth0 > "$WORK/login" 2>&1 ||
    { cat "$WORK/login" >&2; said_tail "$WORK/login"; fail "cannot log in to ctrl-b with the lab's key"; }
grep -qF "$(lab_host ctrl-b address)" "$WORK/login" || fail "the login did not land in ctrl-b's namespace"

# --- the agent's home: nothing runs where another user could have put it ---
# A [host] on ctrl-b's sshd (a plain file target: no lab run) whose
# agent_dir is planted: each run is refused before the workload, naming
# the path, its owner and mode, and the planted faultline (which would
# leave a mark, and even claims our build id) never runs.
ADDR_B=$(lab_host ctrl-b address)
ID=$("$FAULTLINE" build-id)
PLANT=$WORK/plant
mkdir -m 700 "$PLANT"
plant() { # DIR [MODE]: a directory of root's with a faultline that marks its run
    mkdir -p "$1"
    chmod "${2:-700}" "$1"
    cat > "$1/faultline" <<EOS
#!/bin/sh
# planted: notes who ran it (the command lines of its parent and theirs)
p=\$PPID
for i in 1 2 3; do
    [ -r /proc/\$p/cmdline ] && tr '\\0' ' ' < /proc/\$p/cmdline | head -c 2000 && echo
    p=\$(sed -n 's/.*) . \\([0-9]*\\).*/\\1/p' /proc/\$p/stat 2> /dev/null)
done >> $PLANT/ran
echo $ID
EOS
    chmod 755 "$1/faultline"
}
# Whether a planted faultline ran.  Not counted: a run by another build's
# bootstrap (its text in the note, without our build id), which is another
# faultline on a shared machine sweeping this test's runs with `faultline
# cleanup` while they connect; ours would carry our build id.
planted_ran() {
    [ -e "$PLANT/ran" ] || return 1
    if grep -qF FL-ERROR "$PLANT/ran" && ! grep -qF "$ID" "$PLANT/ran"; then
        echo "ssh: another faultline build on this machine ran a planted faultline: $(head -c 400 "$PLANT/ran")" >&2
        rm -f "$PLANT/ran"
        return 1
    fi
}
home_scn() { # AGENT_DIR: the scenario, in $WORK/home.scn
    cat > "$WORK/home.scn" <<EOS
[scenario]
name = ssh-home
duration = 1s
[target]
kind = file
path = $WORK/home.img
size = 1MiB
[host far]
ssh = root@$ADDR_B
ssh_identity = $LAB/ssh/client_key
ssh_known_hosts = $LAB/ssh/known_hosts
agent_dir = $1
[fault far-cmd]
action = command
host = far
command = true
at = 200ms
EOS
}
refused() { # AGENT_DIR TEXT...: the run with it is refused, saying each TEXT
    home_scn "$1"
    out=$WORK/home-$(basename "$1")
    shift
    t0=$(ms_now)
    expect_code 2 "$FAULTLINE" run "$WORK/home.scn" --out "$out" --quiet
    echo "ssh: a planted agent_dir refused in $(($(ms_now) - t0)) ms" >&2
    for text in "$@"; do contains "$WORK/err" "$text"; done
    ! planted_ran || fail "the planted faultline ran ($(cat "$WORK/err")), run by: $(cat "$PLANT/ran")"
    json "$out/report.json" '.started' false # (the run directory says why it never started)
    [ ! -e "$out/timeline.csv" ] || fail "the workload ran with a refused agent_dir"
}
plant "$PLANT/nobody" 777
chown nobody "$PLANT/nobody" "$PLANT/nobody/faultline"
refused "$PLANT/nobody" "refusing $PLANT/nobody on " "owned by nobody (uid 65534) with mode 777; it must be owned by root (uid 0)" \
    "give it to that user alone (chown, chmod go-w) if nobody else has put anything in it, or name a new agent_dir"
plant "$PLANT/open" 777
refused "$PLANT/open" "refusing $PLANT/open on " "owned by root (uid 0) with mode 777; it must be owned by root (uid 0) and not writable by group or others"
plant "$PLANT/real"
ln -s "$PLANT/real" "$PLANT/link"
refused "$PLANT/link" "refusing $PLANT/link on " "it is a symbolic link (to $PLANT/real)"
plant "$PLANT/open/home"
refused "$PLANT/open/home" "refusing $PLANT/open/home on " "it is under $PLANT/open, owned by root (uid 0) with mode 777, so another user could rename it away"
plant "$PLANT/theirs"
chown nobody "$PLANT/theirs/faultline"
refused "$PLANT/theirs" "refusing $PLANT/theirs/faultline on " "owned by nobody (uid 65534) with mode 755"

# --- the network families, one after the other; the agent dirs start empty ---
[ ! -e "$LAB/agent-ctrl-a" ] && [ ! -e "$LAB/agent-switch" ] || fail "agent dirs exist before the first run"
cat > "$WORK/net.scn" <<EOS
[scenario]
name = ssh-net
duration = 21s
lab = iscsi
[lab]
control = ssh
lease = 1s
[target]
kind = iscsi
[workload]
read = 70%
depth = 8
[fault a-bw]
action = bandwidth
host = ctrl-a
rate = 8mbit
direction = out
at = 1s
duration = 2500ms
[fault b-port]
action = port-down
host = ctrl-b
at = 4s
duration = 1500ms
[fault b-flap]
action = port-flap
host = ctrl-b
at = 6s
count = 3
period = 800ms
[fault sw]
action = switch-down
host = switch
at = 9s
duration = 1200ms
[fault b-link]
action = link-down
host = ctrl-b
at = 12s
duration = 1s
[fault a-loss]
action = loss
host = ctrl-a
percent = 30
port = 3260
at = 14s
duration = 2s
[fault b-part]
action = partition
host = ctrl-b
peers = client
at = 17s
duration = 2s
EOS
expect_code 0 "$FAULTLINE" check "$WORK/net.scn"
"$FAULTLINE" run "$WORK/net.scn" --out "$WORK/net" --quiet --keep-lab > "$WORK/net.out" 2>&1 &
run=$!
E=$WORK/net/events.jsonl O=$WORK/net.out
# The switch's agent reports its inject over a session that the downed
# switch may hold up: its fault-inject event can come after the clear, so
# the ports themselves are watched for the moment all are down (only the
# switch-down takes them all), from now on: the checks before it may run
# late on a busy machine, and its 1.2 s would pass unseen.
all_down() {
    for port in "$P-isw-a" "$P-isw-b" "$P-isw-c"; do ! is_up "$port" || return 1; done
}
(
    end=$(($(ms_now) + 60000))
    while [ "$(ms_now)" -lt $end ]; do
        all_down && { touch "$WORK/all-down"; exit 0; }
        sleep 0.02
    done
) &
watcher=$!
stop_watcher() { kill "$watcher" 2> /dev/null || true; }
at_exit stop_watcher

wait_event "$E" fault-inject a-bw "$O"
sent() { ip netns exec "$1" tc -s -j qdisc show dev eth0 | jq '[.[] | select(.kind == "tbf") | .bytes] | add // -1'; }
a1=$(sent "$NS_A")
[ "$a1" -ge 0 ] || fail "bandwidth: no tbf qdisc on eth0 of ctrl-a"
sleep 1
ra=$(($(sent "$NS_A") - a1))
# 8 Mbit/s is 1,000,000 bytes/s; allow the 10 ms burst and timing slack.
[ $ra -gt 100000 ] && [ $ra -lt 1300000 ] || fail "bandwidth: $ra bytes in 1 s through the cap of ctrl-a"
wait_event "$E" fault-clear a-bw "$O"
[ "$(sent "$NS_A")" = -1 ] || fail "bandwidth: a tbf qdisc is left"

wait_event "$E" fault-inject b-port "$O"
! is_up "$P-isw-b" || fail "port-down: switch port $P-isw-b is still up"
wait_event "$E" fault-clear b-port "$O"
# (the clear event may say "sent; not confirmed yet": the agent's answer
# can lag on a busy machine, its lease of 1 s bounds it)
until_ms 2000 is_up "$P-isw-b" > /dev/null || fail "port-down: switch port $P-isw-b did not come back"

wait_event "$E" fault-inject b-flap "$O"
downs=0 was=up end=$(($(ms_now) + 2600))
while [ "$(ms_now)" -lt $end ]; do # 2.6 s of samples (the flap takes 2.4): the three bounces
    if is_up "$P-isw-b"; then now=up; else now=down; fi
    [ "$was" = up ] && [ "$now" = down ] && downs=$((downs + 1))
    was=$now
    sleep 0.03
done
[ $downs -ge 2 ] || fail "port-flap: saw $downs downs of $P-isw-b, expected 3"
until_ms 1000 is_up "$P-isw-b" > /dev/null || fail "port-flap: $P-isw-b ended down"

# (the watcher started with the run saw the switch's ports all down, or not)
until_ms 15000 test -e "$WORK/all-down" > /dev/null || fail "switch-down: the ports of $P-isw never were all down"
wait_event "$E" fault-inject sw "$O"
wait_event "$E" fault-clear sw "$O"
for port in "$P-isw-a" "$P-isw-b" "$P-isw-c"; do
    until_ms 2000 is_up "$port" > /dev/null || fail "switch-down: $port did not come back"
done

# ctrl-b's own link carries its agent's session: the inject is answered
# late or never, and the clear is its lease's (at most 1 s late).
wait_event "$E" fault-inject b-link "$O"
! ns_up "$NS_B" eth0 || fail "link-down: eth0 of ctrl-b is still up"
wait_event "$E" fault-clear b-link "$O"
until_ms 3000 ns_up "$NS_B" eth0 > /dev/null || fail "link-down: eth0 of ctrl-b did not come back"

wait_event "$E" fault-inject a-loss "$O"
T=$(table_of "$E" a-loss)
[ -n "$T" ] || fail "loss: no nft table named in its event"
ip netns exec "$NS_A" nft list table inet "$T" | grep -q "numgen random mod 100 < 30" \
    || fail "loss: no numgen rule in $T"
c1=$(nft_packets "$NS_A" "$T")
sleep 1
c2=$(nft_packets "$NS_A" "$T")
[ "$c2" -gt "$c1" ] || fail "loss: counter of $T did not rise ($c1 -> $c2)"
wait_event "$E" fault-clear a-loss "$O"
! has_table "$NS_A" "$T" || fail "loss: $T is left"

wait_event "$E" fault-inject b-part "$O"
T=$(table_of "$E" b-part)
[ -n "$T" ] || fail "partition: no nft table named in its event"
c1=$(nft_packets "$NS_B" "$T")
sleep 1.2
c2=$(nft_packets "$NS_B" "$T")
[ "$c2" -gt "$c1" ] || fail "partition: counter of $T did not rise ($c1 -> $c2)"
wait_event "$E" fault-clear b-part "$O"
# the partition cuts ctrl-b's own session too: its lease may be the clear
no_table() { ! has_table "$NS_B" "$T"; }
until_ms 3000 no_table > /dev/null || fail "partition: $T is left"

wait $run || { cat "$WORK/net.out"; said_tail "$WORK/net.out"; fail "the network-fault run failed"; }
# the lab's agent homes: made by the bootstrap, root's alone
for h in ctrl-a ctrl-b switch; do
    [ "$(stat -c '%U %a' "$LAB/agent-$h")" = "root 700" ] ||
        fail "$LAB/agent-$h is $(stat -c '%U %a' "$LAB/agent-$h"), not root 700"
done
R=$WORK/net/report.json
json "$R" .verdict '"pass"'
json "$R" '[.faults[] | .error] | unique' '[null]'
json "$R" '[.faults[] | .transport] | unique' '["ssh"]'
json "$R" '[.faults[] | .applied_by]' '["ctrl-a","switch","switch","switch","ctrl-b","ctrl-a","ctrl-b"]'
json "$R" '[.faults[] | select(.name | test("b-link|b-part") | not) | .cleared_by] | unique' '["controller"]'
# the two that cut ctrl-b's own session: cleared by the controller when its
# message got through, else by the agent's lease
json "$R" '[.faults[] | select(.name | test("b-link|b-part")) | .cleared_by | IN("controller", "lease")] | all' true
json "$R" '[.faults[] | .cleared_at > .injected_at] | all' true
json "$R" '.faults[] | select(.name == "b-flap") | .steps' 3
json "$R" '[.hosts[] | .name]' '["ctrl-a","ctrl-b","switch"]'
json "$R" '[.hosts[] | .transport] | unique' '["ssh"]'
# a round trip was measured (a few ms over this machine's namespaces; a
# second would be something else than the round trip, not a slow one)
json "$R" '[.hosts[] | .rtt_ms > 0 and .rtt_ms < 1000] | all' true
json "$R" '[.hosts[] | .agent_copied] | all' true
# the manifest: each ssh host as its agent said hello (its uname)
json "$R" '[.manifest.hosts[] | select(.via == "ssh") | .name] | sort' '["ctrl-a","ctrl-b","switch"]'
json "$R" '[.manifest.hosts[] | select(.via == "ssh") | .kernel] | unique' "[\"$(uname -r)\"]"
json "$R" '[.manifest.hosts[] | select(.via == "ssh") | .hostname] | unique' "[\"$(uname -n)\"]"
# what cut the session is known from the agent's own clock once it is back
json "$R" '[.faults[] | .indeterminate] | any' false
# each fault applied on time by its agent: injected_at is when the agent had
# applied it, so its lateness is this machine's pace (an nft inject takes
# about 16 ms here, 60 ms under ASan; one CI run, plain, had an a-loss 61
# ms late behind 0.2-2 ms for the rest).  The bound is what a fault held up
# by something else would show (a second or more: a step, a lease, a
# round of the controller), not the pace: 500 ms in both passes.
late=0.5
jq -e --argjson late "$late" '[.faults[] | .injected_at - .at < $late] | all' "$R" > /dev/null ||
    fail "faults applied late (limit $late s): $(jq -c '[.faults[] | {name, late: (.injected_at - .at)}]' "$R")"
[ "$(grep -c '^U' "$WORK/net/undo.log")" = "$(grep -c '^D' "$WORK/net/undo.log")" ] \
    || fail "undo records left open"

# --- processes, a command and a corrupted file, on the controllers ---
PID_B=$(lab_host ctrl-b process.pid)
head -c 65536 /dev/zero > "$WORK/victim"
cat > "$WORK/proc.scn" <<EOS
[scenario]
name = ssh-proc
duration = 14s
lab = iscsi
allow_destructive = yes
allow_paths = $WORK/victim
[lab]
control = ssh
lease = 1s
[target]
kind = iscsi
[workload]
depth = 8
[fault b-pause]
action = pause
host = ctrl-b
at = 1s
duration = 2s
[fault b-kill]
action = kill
host = ctrl-b
at = 4s
restart_after = 2s
[fault a-restart]
action = restart
host = ctrl-a
at = 7500ms
[fault a-cmd]
action = command
host = ctrl-a
command = ip -br addr show eth0 > $WORK/cmd-mark
undo = rm -f $WORK/cmd-mark
at = 9s
duration = 1s
[fault a-file]
action = corrupt
host = ctrl-a
path = $WORK/victim
offset = 8192
length = 4096
at = 11s
EOS
"$FAULTLINE" run "$WORK/proc.scn" --out "$WORK/proc" --quiet --keep-lab > "$WORK/proc.out" 2>&1 &
run=$!
E=$WORK/proc/events.jsonl O=$WORK/proc.out
# An event may come before the agent's answer ("not answered yet": the
# agent holds a fault until its time by its own clock), so what each fault
# does on its host is waited for, briefly, after its event: in one run of
# 3 the check right after the pause's event found tgtd still running.
# The bounds are shorter than each fault lasts where it is undone.
b_state() { stat_of "$PID_B"; }
b_stopped() { [ "$(b_state)" = T ]; }
b_not_stopped() { [ "$(b_state)" != T ]; }
b_gone() { case "$(b_state)" in "" | Z) return 0 ;; esac; return 1; }
wait_event "$E" fault-inject b-pause "$O"
until_ms 1500 b_stopped > /dev/null || fail "pause: tgtd of ctrl-b (pid $PID_B) is $(b_state), not stopped within 1.5 s of its inject (the pause lasts 2 s)"
wait_event "$E" fault-clear b-pause "$O"
until_ms 3000 b_not_stopped > /dev/null || fail "pause: tgtd of ctrl-b is still stopped 3 s after its clear"
wait_event "$E" fault-inject b-kill "$O"
until_ms 3000 b_gone > /dev/null || fail "kill: tgtd of ctrl-b (pid $PID_B) is $(b_state) 3 s after its kill"
wait_event "$E" fault-clear b-kill "$O"
# The clear is sent to ctrl-b's agent, which runs `faultline lab restart`;
# the event may come before its answer ("not confirmed yet"), so the new
# tgtd is waited for (10 s: under the sanitizers the restart is slow).
pid_of_b() { "$FAULTLINE" lab status iscsi --json | jq -r '.hosts[] | select(.name == "ctrl-b") | .process.pid'; }
b_restarted() { NEW_B=$(pid_of_b) && [ "$NEW_B" != "$PID_B" ]; }
until_ms 10000 b_restarted > /dev/null || fail "kill: ctrl-b's tgtd was not started again within 10 s of the clear"
[ "$(stat_of "$NEW_B")" != "" ] || fail "kill: the new tgtd of ctrl-b (pid $NEW_B) is not running"
ADDR_A=$(lab_host ctrl-a address)
marked() { grep -q "$ADDR_A" "$WORK/cmd-mark" 2> /dev/null; }
unmarked() { [ ! -e "$WORK/cmd-mark" ]; }
victim_changed() { ! cmp -s -n 65536 /dev/zero "$WORK/victim"; }
wait_event "$E" fault-inject a-cmd "$O"
until_ms 900 marked > /dev/null || fail "command: it did not run in ctrl-a's namespace (within 0.9 s of its inject; it lasts 1 s)"
wait_event "$E" fault-clear a-cmd "$O"
until_ms 3000 unmarked > /dev/null || fail "command: its undo did not run within 3 s of its clear"
wait_event "$E" fault-inject a-file "$O"
until_ms 3000 victim_changed > /dev/null || fail "corrupt: $WORK/victim unchanged 3 s after its inject"
changed=$(cmp -l /dev/zero "$WORK/victim" 2> /dev/null | awk '{ print $1 - 1 }' | sort -n | sed -n '1p;$p' | tr '\n' ' ')
set -- $changed
[ $# = 2 ] && [ "$1" -ge 8192 ] && [ "$2" -le 12287 ] || fail "corrupt: changed bytes are $changed, not within 8192..12287"
wait $run || { cat "$WORK/proc.out"; said_tail "$WORK/proc.out"; fail "the process-fault run failed"; }
R=$WORK/proc/report.json
json "$R" .verdict '"pass"'
json "$R" '[.faults[] | .error] | unique' '[null]'
json "$R" '[.faults[] | .applied_by] | unique' '["ctrl-a","ctrl-b"]'
json "$R" '.faults[] | select(.name == "a-file") | .ranges' '[[8192,4096]]'
NEW_A=$("$FAULTLINE" lab status iscsi --json | jq -r '.hosts[] | select(.name == "ctrl-a") | .process.state')
[ "$NEW_A" = running ] || fail "restart: ctrl-a's tgtd is $NEW_A"

# --- faultline SIGKILLed during a 60 s pause: the agent sees the session close ---
PID_A=$("$FAULTLINE" lab status iscsi --json | jq -r '.hosts[] | select(.name == "ctrl-a") | .process.pid')
cat > "$WORK/pause.scn" <<EOS
[scenario]
name = ssh-pause-killed
duration = 70s
lab = iscsi
[lab]
control = ssh
[target]
kind = iscsi
[fault a-pause]
action = pause
host = ctrl-a
at = 1s
duration = 60s
EOS
"$FAULTLINE" run "$WORK/pause.scn" --out "$WORK/pause" --quiet --keep-lab > "$WORK/pause.out" 2>&1 &
run=$!
wait_event "$WORK/pause/events.jsonl" fault-inject a-pause "$WORK/pause.out"
sleep 1 # 2 s into the workload
[ "$(stat_of "$PID_A")" = T ] || fail "pause over ssh: tgtd of ctrl-a is not stopped"
kill -9 $run
a_runs() { [ "$(stat_of "$PID_A")" != T ]; }
continued=$(until_ms 1000 a_runs) ||
    fail "the agent did not continue tgtd of ctrl-a within 1 s of faultline's death"
wait $run 2> /dev/null || true
# The agent notes a restore once it is done (tgtd continued first): its
# line may come a moment after tgtd runs again.
noted() { cat "$LAB"/agent-ctrl-a/run-*/restored.log 2> /dev/null | grep -q "^$1 "; }
until_ms 5000 noted "a-pause close" > /dev/null || fail "the agent did not note its own restore within 5 s"
echo "ssh: tgtd continued ${continued} ms after faultline was killed" >&2
expect_code 0 "$FAULTLINE" cleanup "$WORK/pause"
contains "$WORK/out" "it had restored by itself: a-pause (close)"

# --- a partition that cuts the session itself, lease 3 s, faultline SIGKILLed ---
cat > "$WORK/part.scn" <<EOS
[scenario]
name = ssh-partition-killed
duration = 40s
lab = iscsi
[lab]
control = ssh
lease = 3s
[target]
kind = iscsi
[fault a-cut]
action = partition
host = ctrl-a
peers = client
at = 1s
duration = 10s
EOS
"$FAULTLINE" run "$WORK/part.scn" --out "$WORK/part" --quiet --keep-lab > "$WORK/part.out" 2>&1 &
run=$!
# The partition's table appears at its time; the session cannot say so.
cut_at=0
i=0
while [ $i -lt 3000 ]; do
    if ip netns exec "$NS_A" nft list tables 2> /dev/null | grep -q '_part_'; then cut_at=$(ms_now); break; fi
    i=$((i + 1))
    sleep 0.01
done
[ "$cut_at" != 0 ] || { cat "$WORK/part.out" >&2; said_tail "$WORK/part.out"; fail "the partition of ctrl-a never appeared"; }
sleep 1 # 2 s into the workload
kill -9 $run
wait $run 2> /dev/null || true
gone() { ! ip netns exec "$NS_A" nft list tables 2> /dev/null | grep -q '_part_'; }
until_ms 15000 gone > /dev/null || fail "the partition of ctrl-a is still there 16 s after it began"
took=$(($(ms_now) - cut_at))
echo "ssh: the agent removed the partition ${took} ms after it began (planned 10000 + lease 3000)" >&2
# 10 s + 3 s lease, seen through polls that each fork `ip netns exec nft`
# (on a loaded machine one poll took up to 0.5 s: 13486 ms was seen); the
# agent's own clock, below, is the exact measure
[ $took -le 14000 ] || fail "the partition lasted $took ms, more than its 10 s and 3 s lease"
[ $took -ge 9900 ] || fail "the partition ended after $took ms, before its time"
until_ms 5000 noted "a-cut lease" > /dev/null || fail "the agent did not note its lease restore within 5 s"
# and in the agent's own clock: applied to cleared at most 10 s + 3 s, and
# the removal's own time (an nft delete: 16 ms here, 60 ms under ASan; up
# to 500 ms allowed for a busy machine's pace; 12761 and 12763 ms measured)
own=$(awk '$1 == "a-cut" { printf "%d", ($3 - $4) / 1000000 }' "$LAB"/agent-ctrl-a/run-*/restored.log)
echo "ssh: in the agent's clock the partition lasted ${own} ms" >&2
[ "$own" -le 13500 ] && [ "$own" -ge 12000 ] || fail "in the agent's clock the partition lasted $own ms"
expect_code 0 "$FAULTLINE" cleanup "$WORK/part"
contains "$WORK/out" "it had restored by itself: a-cut (lease)"

# --- self-copy: a truncated copy is found and replaced; the default home ---
# Host far is ctrl-b reached through a second sshd on port 2224 whose
# sessions have a /var/lib of their own (an empty tmpfs): far gives no
# agent_dir, so its agent makes and uses /var/lib/faultline-agent there.
# The lab's host key and authorized keys live under /var/lib too: that
# sshd reads copies of them.
install -m 600 "$LAB/ssh/host_key" "$WORK/home-host_key"
install -m 600 "$LAB/ssh/authorized_keys" "$WORK/home-authorized_keys"
sed -e "s/^ListenAddress .*/ListenAddress $ADDR_B:2224/" \
    -e "s#^HostKey .*#HostKey $WORK/home-host_key#" \
    -e "s#^AuthorizedKeysFile .*#AuthorizedKeysFile $WORK/home-authorized_keys#" \
    "$LAB/ssh/sshd-ctrl-b.conf" > "$WORK/sshd-home.conf"
(printf '[%s]:2224 ' "$ADDR_B"; cat "$LAB/ssh/host_key.pub") > "$WORK/known-home"
unshare -m --propagation private sh -c "mount -t tmpfs -o mode=755 fl-var-lib /var/lib && exec ip netns exec $NS_B /usr/sbin/sshd -D -e -f $WORK/sshd-home.conf" \
    > "$WORK/sshd-home.log" 2>&1 &
HOME_SSHD=$!
stop_home_sshd() { kill "$HOME_SSHD" 2> /dev/null; wait "$HOME_SSHD" 2> /dev/null || true; }
at_exit stop_home_sshd
until_ms 5000 sh -c "ip netns exec $NS_B ss -Hltn src $ADDR_B:2224 | grep -q LISTEN" > /dev/null ||
    fail "the sshd with its own /var/lib does not listen: $(cat "$WORK/sshd-home.log")"
on_far() { # CMD: run over ssh on host far, as the agent's sessions are
    ssh -T -oBatchMode=yes -oConnectTimeout=10 -oLogLevel=ERROR -p 2224 -i "$LAB/ssh/client_key" -oIdentitiesOnly=yes \
        -oUserKnownHostsFile="$WORK/known-home" -oStrictHostKeyChecking=yes "root@$ADDR_B" "$1"
}
[ "$(on_far 'ls -A /var/lib')" = "" ] || fail "the sessions of host far have a /var/lib that is not empty"
truncate -s 4096 "$LAB/agent-ctrl-b/faultline"
cat > "$WORK/copy.scn" <<EOS
[scenario]
name = ssh-copy
duration = 2s
lab = iscsi
[lab]
control = ssh
[target]
kind = iscsi
[fault b-cmd]
action = command
host = ctrl-b
command = true
at = 500ms
[host far]
ssh = root@$ADDR_B:2224
ssh_identity = $LAB/ssh/client_key
ssh_known_hosts = $WORK/known-home
[fault far-cmd]
action = command
host = far
command = true
at = 600ms
EOS
expect_code 0 "$FAULTLINE" run "$WORK/copy.scn" --out "$WORK/copy" --quiet --keep-lab
json "$WORK/copy/report.json" '[.hosts[] | {name, agent_copied}]' '[{"name":"ctrl-b","agent_copied":true},{"name":"far","agent_copied":true}]'
cmp -s "$LAB/agent-ctrl-b/faultline" "$FAULTLINE" || fail "the truncated agent copy was not replaced by ours"
[ "$(on_far 'stat -c "%U %a" /var/lib/faultline-agent /var/lib/faultline-agent/faultline')" = "root 700
root 700" ] || fail "the default agent home on far is not root's, mode 700: $(on_far 'ls -la /var/lib/faultline-agent')"
[ "$(on_far 'sha256sum < /var/lib/faultline-agent/faultline')" = "$ID  -" ] ||
    fail "the agent's copy on far is not this build"
expect_code 0 "$FAULTLINE" run "$WORK/copy.scn" --out "$WORK/copy2" --quiet --keep-lab
json "$WORK/copy2/report.json" '[.hosts[] | {name, agent_copied}]' '[{"name":"ctrl-b","agent_copied":false},{"name":"far","agent_copied":false}]'
stop_home_sshd

# --- a host that cannot run the agent: a library it lacks, said before the workload ---
LIB=$(ldd "$FAULTLINE" | awk '/libiscsi\.so/ { print $3 }')
LIB=$(readlink -f "$LIB")
sed -e "s/^ListenAddress .*/ListenAddress $ADDR_B:2223/" "$LAB/ssh/sshd-ctrl-b.conf" > "$WORK/sshd-nolib.conf"
(printf '[%s]:2223 ' "$ADDR_B"; cat "$LAB/ssh/host_key.pub") > "$WORK/known-nolib"
# an sshd whose sessions see an empty file where libiscsi is
unshare -m --propagation private sh -c "mount --bind /dev/null $LIB && exec ip netns exec $NS_B /usr/sbin/sshd -D -e -f $WORK/sshd-nolib.conf" \
    > "$WORK/sshd-nolib.log" 2>&1 &
NOLIB=$!
stop_nolib() { kill "$NOLIB" 2> /dev/null; wait "$NOLIB" 2> /dev/null; }
at_exit stop_nolib
until_ms 5000 sh -c "ip netns exec $NS_B ss -Hltn src $ADDR_B:2223 | grep -q LISTEN" > /dev/null ||
    fail "the extra sshd does not listen: $(cat "$WORK/sshd-nolib.log")"
cat > "$WORK/nolib.scn" <<EOS
[scenario]
name = ssh-nolib
duration = 2s
lab = iscsi
[target]
kind = iscsi
[host far]
ssh = root@$ADDR_B:2223
ssh_identity = $LAB/ssh/client_key
ssh_known_hosts = $WORK/known-nolib
agent_dir = $WORK/agent-nolib
interface = eth0
[fault far-down]
action = link-down
host = far
at = 500ms
duration = 200ms
EOS
expect_code 2 "$FAULTLINE" run "$WORK/nolib.scn" --out "$WORK/nolib" --quiet --keep-lab
contains "$WORK/err" "nolib.scn:$(grep -n '^\[fault far-down\]' "$WORK/nolib.scn" | cut -d: -f1): [fault far-down]"
contains "$WORK/err" "cannot run on"
contains "$WORK/err" "$(basename "$LIB" | sed 's/\.so\..*//')"
# (its run directory says it never started, and why)
json "$WORK/nolib/report.json" '[.started, .verdict, (.error | test("cannot run on"))]' '[false,"error",true]'
[ ! -e "$WORK/nolib/timeline.csv" ] || fail "the workload ran on a host that cannot run the agent"
stop_nolib

# --- the agent killed during a partition: cleanup asks it again ---
cat > "$WORK/agentkill.scn" <<EOS
[scenario]
name = ssh-agent-killed
duration = 4s
lab = iscsi
[lab]
control = ssh
lease = 60s
[target]
kind = iscsi
[fault b-cut]
action = partition
host = ctrl-b
peers = ctrl-a
at = 500ms
duration = 2s
EOS
"$FAULTLINE" run "$WORK/agentkill.scn" --out "$WORK/ak" --quiet --keep-lab > "$WORK/ak.out" 2>&1 &
run=$!
wait_event "$WORK/ak/events.jsonl" fault-inject b-cut "$WORK/ak.out"
T=$(table_of "$WORK/ak/events.jsonl" b-cut)
[ -n "$T" ] || fail "agent killed: no nft table named in the partition's inject event"
# (the event can come before the agent's answer, which waits for its nft
# commit: the table is waited for, so that the kill comes during the cut)
has_b_table() { has_table "$NS_B" "$T"; }
until_ms 3000 has_b_table > /dev/null || fail "agent killed: the partition's table $T never appeared"
APID=$(sed -n 's/.*"event":"agent".*pid \([0-9]*\) there.*/\1/p' "$WORK/ak/events.jsonl" | head -1)
[ -n "$APID" ] || fail "no agent event with its pid"
kill -9 "$APID" # ours: started by this run, named by its own hello
wait $run || true
has_table "$NS_B" "$T" || fail "the partition vanished with its agent"
grep -q agent-unconfirmed "$WORK/ak/events.jsonl" || fail "the run did not say its agent never confirmed"
expect_code 0 "$FAULTLINE" cleanup "$WORK/ak"
contains "$WORK/out" "the agent undid 1 record(s)"
! has_table "$NS_B" "$T" || fail "cleanup did not remove $T through the agent"
expect_code 0 "$FAULTLINE" cleanup "$WORK/ak"
contains "$WORK/out" "nothing left to undo"

# --- a real host as docs/real-clusters.md shows it: a [host] with ssh and restart, no
# lab in the scenario: kill its tgtd, restart_after starts it again with the
# host's own command (here the lab's restart, as `systemctl start tgt`
# would be on a real array); a mistake in it is refused by check ---
PID_B=$(pid_of_b)
cat > "$WORK/host.scn" <<EOS
[scenario]
name = ssh-host-restart
duration = 5s
[target]
kind = file
path = $WORK/host.img
size = 4MiB
[host array-b]
ssh = $(lab_host ctrl-b ssh)
ssh_identity = $(lab_host ctrl-b ssh_identity)
ssh_known_hosts = $(lab_host ctrl-b ssh_known_hosts)
agent_dir = $(lab_host ctrl-b agent_dir)
restart = $FAULTLINE lab restart iscsi ctrl-b --prefix $P
[fault b-dies]
action = kill
host = array-b
process = tgtd
at = 1s
restart_after = 2s
EOS
expect_code 0 "$FAULTLINE" check "$WORK/host.scn"
expect_code 0 "$FAULTLINE" run "$WORK/host.scn" --out "$WORK/host" --quiet
R=$WORK/host/report.json
json "$R" '[.verdict, .faults[0].happened, .faults[0].transport, .faults[0].cleared_by]' '["pass",true,"ssh","controller"]'
until_ms 10000 b_restarted > /dev/null || fail "restart_after: ctrl-b's tgtd (pid $PID_B) was not started again by the [host]'s restart command"
[ "$(stat_of "$NEW_B")" != "" ] || fail "restart_after: the new tgtd of ctrl-b (pid $NEW_B) is not running"
sed -i '/^restart = /d' "$WORK/host.scn"
expect_code 2 "$FAULTLINE" check "$WORK/host.scn"
contains "$WORK/err" "[fault b-dies] restart_after: array-b cannot start a process again: give [host array-b] restart = COMMAND"

# lab down stops every sshd of the lab, and every agent copied into it
SSHD_PIDS=$(awk '$1 == "sshd" { print $3 }' "/run/faultline/labs/$P-iscsi.state")
[ -n "$SSHD_PIDS" ] || fail "the lab recorded no sshd"
for pid in $SSHD_PIDS; do [ -d "/proc/$pid" ] || fail "sshd $pid of the lab is not running"; done
expect_code 0 "$FAULTLINE" lab down iscsi
PIDS=$SSHD_PIDS lab_nothing_left iscsi

# no agent or ssh of ours is left behind
! ps -eo args | grep -F "$LAB/agent-" | grep -qv grep || fail "an agent is still running: $(ps -eo pid,args | grep -F "$LAB/agent-" | grep -v grep)"
pass
