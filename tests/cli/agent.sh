# tier: quick
# The far side of faults over ssh, as a user meets it without ssh: the
# [host] ssh keys are checked at file:line, `build-id` names this build
# (its SHA-256), and `faultline agent` (which faultline itself starts over
# ssh) refuses a directory that others may write to, speaks JSON lines,
# refuses what it does not know, and leaves when its stdin closes, cleaning
# up after a clean bye.
. "$(dirname "$0")/../lib.sh"

# [host] ssh keys: each mistake at its line, the others only with ssh.
bad() { # WANT_TEXT, then the [host] lines
    says=$1
    shift
    { printf '[target]\nkind = file\npath = %s/x.img\nsize = 1MiB\n[host far]\n' "$WORK"
      for l in "$@"; do printf '%s\n' "$l"; done
      printf '[fault f]\naction = command\nhost = far\ncommand = true\n'; } > "$WORK/host.scn"
    expect_code 2 "$FAULTLINE" check "$WORK/host.scn"
    contains "$WORK/err" "$says"
}
bad "host.scn:5: [host far] sudo needs ssh = [USER@]ADDRESS[:PORT]" "sudo = yes"
bad "host.scn:5: [host far] ssh_identity needs ssh" "ssh_identity = /root/.ssh/id"
bad "host.scn:5: [host far] ssh: '99999' is not a port (1..65535)" "ssh = root@10.0.0.1:99999"
bad "host.scn:5: [host far] ssh: 'root@' is not [USER@]ADDRESS[:PORT]" "ssh = root@"
bad "host.scn:5: [host far] agent_dir: '/var/tmp/my agent' may hold only" "ssh = h" "agent_dir = /var/tmp/my agent"
bad "host.scn:5: [host far] ssh_options: no quotes" "ssh = h" "ssh_options = -o 'ProxyCommand=x'"
bad "host.scn:7: lease: " "ssh = h" "lease = forever"
bad "host.scn:5: [host far] restart needs ssh" "restart = systemctl start tgt"
bad "host.scn:5: [host far] switch: 'sw9' is not another [host] of this scenario with ssh" "ssh = h" "switch = sw9"
# and a good one: checked, not connected to
{ printf '[target]\nkind = file\npath = %s/x.img\nsize = 1MiB\n' "$WORK"
  printf '[host far]\nssh = admin@198.18.0.9:2222\nsudo = yes\nlease = 2s\nrestart = systemctl start tgt\n'
  printf '[fault f]\naction = kill\nhost = far\nprocess = tgtd\nrestart_after = 1s\n'; } > "$WORK/good.scn"
expect_code 0 "$FAULTLINE" check "$WORK/good.scn"
expect_code 0 "$FAULTLINE" help scenario
for key in ssh ssh_identity ssh_known_hosts ssh_options sudo agent_dir lease restart control; do
    grep -q "^  $key " "$WORK/out" || fail "help scenario does not list '$key'"
done

# build-id: the SHA-256 of the executable (what the host's sha256sum says
# of a copy), the same for the same file, another for another file.
expect_code 0 "$FAULTLINE" build-id
id=$(cat "$WORK/out")
echo "$id" | grep -Eq '^[0-9a-f]{64}$' || fail "build-id '$id' is not 64 hex digits (a SHA-256)"
[ "$id" = "$(sha256sum < "$FAULTLINE" | cut -d' ' -f1)" ] || fail "build-id '$id' is not the SHA-256 of $FAULTLINE"
cp "$FAULTLINE" "$WORK/copy"
[ "$("$WORK/copy" build-id)" = "$id" ] || fail "a copy has another build id"
printf 'x' >> "$WORK/copy"
[ "$("$WORK/copy" build-id)" != "$id" ] || fail "a changed copy has the same build id"

# agent usage
expect_code 2 "$FAULTLINE" agent --dir "$WORK/a"
contains "$WORK/err" "agent needs --dir DIR and one of --run TAG, --cleanup TAG"
expect_code 0 "$FAULTLINE" agent --help
contains "$WORK/out" "never listens on a port"

# The agent over pipes: hello, answers, refusals, bye.
printf '%s\n' 'not json' '{"op":"melt"}' '{"op":"time","seq":1}' \
    '{"op":"prepare","id":1,"name":"m","action":"command","k.command":"touch '"$WORK"'/mark","k.undo":"rm -f '"$WORK"'/mark","host":"here","tag":"fl00cafe"}' \
    '{"op":"bye"}' | "$FAULTLINE" agent --dir "$WORK/a" --run fl00cafe > "$WORK/agent.out" 2> "$WORK/agent.err" ||
    { cat "$WORK/agent.err" >&2; fail "the agent did not end cleanly after bye"; }
sed -n 1p "$WORK/agent.out" | jq -e --arg id "$id" '.ev == "hello" and .build == $id and .pid > 0' > /dev/null ||
    fail "no hello with our build id: $(sed -n 1p "$WORK/agent.out")"
sed -n 2p "$WORK/agent.out" | jq -e '.re == "error" and (.error | startswith("malformed message"))' > /dev/null ||
    fail "not json was not refused: $(sed -n 2p "$WORK/agent.out")"
sed -n 3p "$WORK/agent.out" | jq -e '.re == "error" and (.error | contains("unknown op '"'melt'"'"))' > /dev/null ||
    fail "an unknown op was not refused: $(sed -n 3p "$WORK/agent.out")"
sed -n 4p "$WORK/agent.out" | jq -e '.re == "time" and .seq == 1 and .mono_ns > 0' > /dev/null ||
    fail "no time answer: $(sed -n 4p "$WORK/agent.out")"
sed -n 5p "$WORK/agent.out" | jq -e '.re == "prepare" and .ok' > /dev/null ||
    fail "the prepare failed: $(sed -n 5p "$WORK/agent.out")"
sed -n 6p "$WORK/agent.out" | jq -e '.re == "bye" and .open == 0' > /dev/null ||
    fail "no bye: $(sed -n 6p "$WORK/agent.out")"
[ ! -e "$WORK/mark" ] || fail "a fault that was never applied ran"
[ ! -e "$WORK/a/run-fl00cafe" ] || fail "a clean bye left the agent's run directory"

# The agent's own directory: refused, and nothing done there, when another
# user could have written to it (group or others may write, or a link).
mkdir -m 700 "$WORK/open" "$WORK/real"
chmod 777 "$WORK/open"
ln -s "$WORK/real" "$WORK/link"
me=$(id -un)
expect_code 2 "$FAULTLINE" agent --dir "$WORK/open" --run fl00cafe < /dev/null
contains "$WORK/err" "refusing its directory: $WORK/open is owned by $me (uid $(id -u)) with mode 777: it must be owned by $me"
[ ! -s "$WORK/out" ] && [ ! -e "$WORK/open/run-fl00cafe" ] || fail "the agent went on in a directory others may write to"
expect_code 1 "$FAULTLINE" agent --dir "$WORK/link" --cleanup fl00cafe
jq -e --arg d "$WORK/link" '.ok == false and (.error | startswith("refusing its directory: \($d) is a symbolic link"))' "$WORK/out" > /dev/null ||
    fail "the agent's cleanup went on through a link: $(cat "$WORK/out")"
mkdir -m 700 "$WORK/open/home"
expect_code 2 "$FAULTLINE" agent --dir "$WORK/open/home" --run fl00cafe < /dev/null
contains "$WORK/err" "$WORK/open/home is under $WORK/open, owned by $me (uid $(id -u)) with mode 777: another user could rename it away"

# A cleanup of a run the agent has nothing of: says so in one line.
expect_code 0 "$FAULTLINE" agent --dir "$WORK/a" --cleanup fl00beef
jq -e '.re == "cleanup" and .ok and .undone == 0 and .restored == ""' "$WORK/out" > /dev/null ||
    fail "cleanup answer: $(cat "$WORK/out")"

# A cleanup of a run whose agent still serves it (its controller alive,
# its stdin open) disturbs nothing there: the agent's fault stays in
# effect, and the answer says the agent is live, with its PID.  Once its
# controller is gone the agent puts the host back itself.
mkfifo "$WORK/to-agent"
"$FAULTLINE" agent --dir "$WORK/a" --run fl00live < "$WORK/to-agent" > "$WORK/live.out" \
    2> "$WORK/live.err" &
apid=$!
exec 3> "$WORK/to-agent" # the controller's end, held open
stop_agent() { exec 3>&-; kill "$apid" 2> /dev/null; wait "$apid" 2> /dev/null; }
at_exit stop_agent
printf '%s\n' '{"op":"prepare","id":1,"name":"m","action":"command","k.command":"touch '"$WORK"'/live-mark","k.undo":"rm -f '"$WORK"'/live-mark","host":"here","tag":"fl00live"}' \
    '{"op":"apply","id":1,"at_ns":0,"clear_at_ns":0,"lease_ns":60000000000}' >&3
i=0
until [ -e "$WORK/live-mark" ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$WORK/live-mark" ] || fail "the live agent never applied its fault: $(cat "$WORK/live.out" "$WORK/live.err")"
expect_code 1 "$FAULTLINE" agent --dir "$WORK/a" --cleanup fl00live
jq -e --argjson pid "$apid" '.re == "cleanup" and (.ok | not) and .live and .pid == $pid and .undone == 0' \
    "$WORK/out" > /dev/null || fail "a live agent's cleanup answer: $(cat "$WORK/out")"
contains "$WORK/out" "the agent of run fl00live is still running here (pid $apid)"
[ -e "$WORK/live-mark" ] || fail "the cleanup undid the fault of a live agent"
exec 3>&- # the controller goes: the agent restores and leaves
wait "$apid" || true
[ ! -e "$WORK/live-mark" ] || fail "the agent did not put its host back when its controller went"
expect_code 0 "$FAULTLINE" agent --dir "$WORK/a" --cleanup fl00live
jq -e '.re == "cleanup" and .ok and .undone == 0 and (.restored | startswith("m (close)"))' \
    "$WORK/out" > /dev/null || fail "cleanup answer after the agent left: $(cat "$WORK/out")"
pass
