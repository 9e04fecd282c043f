# tier: full
# Up and down of one lab take turns (each holds its state file's lock): a
# `lab down` while a `lab up` is under way waits for it and then removes
# the whole lab, and two `lab up` at once build it once (the second finds
# it up).  Without the turns, a down in the middle of an up removed what
# was made so far while the up went on making the rest, and a second up
# took a half-built lab for a broken one and built it again under the
# first: on the ceph lab, two MDS daemons of one name then threw each
# other out of the map for ever.  The iscsi lab is quick to build (about
# 0.4 s), so this uses it.
. "$(dirname "$0")/../lib.sh"

need_root "namespaces and tgtd"
lab_prefix
STATE=/run/faultline/labs/$P-iscsi.state

# wait_for_state: until the up has made its state file (bounded: 10 s)
wait_for_state() {
    for _ in $(seq 1 1000); do
        [ -e "$STATE" ] && return 0
        sleep 0.01
    done
    fail "no state file $STATE within 10 s of lab up"
}

# tgtd processes in the lab's namespaces
tgtds() {
    for ns in $(ip netns list | awk -v p="$P-" 'index($1, p) == 1 { print $1 }'); do
        for pid in $(ip netns pids "$ns"); do
            [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = tgtd ] && echo "$pid"
        done
    done | wc -l
}

# --- a down while the up is under way ---
"$FAULTLINE" lab up iscsi > "$WORK/up.out" 2>&1 &
UP=$!
wait_for_state
expect_code 0 "$FAULTLINE" lab down iscsi
contains "$WORK/out" "is down"
set +e
wait $UP
code=$?
set -e
[ "$code" = 0 ] || fail "lab up exited $code with the down beside it: $(cat "$WORK/up.out")"
contains "$WORK/up.out" "lab is up"
PIDS=""
lab_nothing_left iscsi
[ "$(tgtds)" = 0 ] || fail "tgtd left in the lab's namespaces"
if grep -q "waiting for another faultline" "$WORK/err"; then
    echo "  the down waited for the up"
else
    echo "  the up was done before the down began (no wait needed)"
fi

# --- two ups at once: one builds, the other finds it up ---
"$FAULTLINE" lab up iscsi > "$WORK/up1.out" 2>&1 &
UP1=$!
"$FAULTLINE" lab up iscsi > "$WORK/up2.out" 2>&1 &
UP2=$!
set +e
wait $UP1
c1=$?
wait $UP2
c2=$?
set -e
[ "$c1" = 0 ] && [ "$c2" = 0 ] || fail "two ups at once: exit $c1 and $c2: $(cat "$WORK/up1.out" "$WORK/up2.out")"
[ "$(cat "$WORK/up1.out" "$WORK/up2.out" | grep -c '^lab is up')" = 1 ] ||
    fail "two ups at once did not build the lab exactly once: $(cat "$WORK/up1.out" "$WORK/up2.out")"
[ "$(cat "$WORK/up1.out" "$WORK/up2.out" | grep -c '^lab was up already')" = 1 ] ||
    fail "the second up did not find the lab up: $(cat "$WORK/up1.out" "$WORK/up2.out")"
[ "$(tgtds)" = 2 ] || fail "$(tgtds) tgtd in the lab, not 2 (one per controller)"
expect_code 0 "$FAULTLINE" lab status iscsi --json
json "$WORK/out" '[.hosts[] | select(.process) | .process.state]' '["running","running"]'
PIDS=$(jq -r '.hosts[] | select(.process) | .process.pid' "$WORK/out" | tr '\n' ' ')
expect_code 0 "$FAULTLINE" lab down iscsi
lab_nothing_left iscsi
pass
