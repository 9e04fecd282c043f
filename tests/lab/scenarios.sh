# Every shipped scenario, run as it is, must reach its verdict for the right
# reason: the outage it stages really happened (the recovery numbers show
# it), the expectations of the file held, and the integrity rules held —
# except the gluster-bitrot ones, which must fail, and only on corrupt
# blocks served by the volume.
# The file-based ones (smoke, demo) write to their own paths in /tmp; what
# they create is removed afterwards.
. "$(dirname "$0")/../lib.sh"

need_root "the labs"
lab_prefix
DIR=$(cd "$(dirname "$0")/../../scenarios" && pwd)

# why SCENARIO: a jq filter on report.json that must be true, saying that
# the run failed or passed for the reason the scenario is about.
why() {
    case $1 in
    iscsi-controller-kill) echo '[.faults[0].path_events[] | select(.event == "switch")] | length >= 1' ;;
    iscsi-controller-pause) echo '([.faults[0].path_events[] | select(.event == "switch")] | length >= 1) and .faults[0].stall_s >= 2' ;;
    iscsi-port-bounce) echo '.faults[0].stall_s >= 1.5 and .faults[0].steps == 2' ;;
    iscsi-switch-restart) echo '.faults[0].stall_s >= 3.5' ;;
    iscsi-client-link) echo '.faults[0].stall_s >= 3.5' ;;
    iscsi-packet-loss) echo '(.faults[0].recovery_s // 99) >= 2' ;;
    iscsi-partition) echo '([.faults[0].path_events[] | select(.event == "switch")] | length >= 1) and .faults[0].stall_s >= 2' ;;
    iscsi-bandwidth) echo '.faults[0].impact_s != null and (.faults[0].recovery_s // 99) >= 4' ;;
    iscsi-disk-corruption) echo '.corruption.detected_corrupt == 4 and .counts.corrupt >= 4' ;;
    gluster-brick-kill) echo '.faults[0].heal_s != null and .metadata.ops.create > 0' ;;
    gluster-glusterd-kill) echo '.faults[0].cleared_at - .faults[0].injected_at >= 2.5' ;;
    gluster-server-link) echo '.faults[0].stall_s >= 3 and .faults[0].heal_s != null' ;;
    gluster-server-partition) echo '.faults[0].stall_s >= 3 and .faults[0].heal_s != null' ;;
    gluster-switch-restart) echo '.faults[0].stall_s >= 2' ;;
    # must fail: corrupt blocks served, each named with its file
    gluster-bitrot | gluster-bitrot-detect)
        echo '.counts.corrupt > 0 and ([.findings[] | select(.class == "corrupt") | .path | test("/faultline-gluster-bitrot[^/]*/s[0-9]+/[0-9]+/f-[0-9]+$")] | all) and ([.expectations[] | select(.pass | not) | .metric] == ["corrupt"])' ;;
    *) echo 'true' ;;
    esac
}

# A sanitized build (FL_SANITIZED, set by `make check-asan`) runs two to
# three times slower on the same two cores: its timing is not the product's.
# There a timing expectation (stall, recovery, ...) may miss and is reported;
# the integrity rules, every other expectation and the reason must hold.
TIMING='["recovery","max_stall","stall","impact","max_latency","first_io_after_inject","first_io_after_clear","heal","iops"]'
untimed_misses() {
    jq --argjson t "$TIMING" \
        '[.expectations[] | select(.pass | not) | .metric | select(. as $m | ($t | any(.[]; . == $m)) | not)] | length' "$1"
}

made=""
remove_made() { for f in $made; do rm -f "$f"; done; }
at_exit remove_made
for f in "$DIR"/*.scn; do
    name=$(basename "$f" .scn)
    path=$(sed -n 's/^path *= *\([^ #]*\).*/\1/p' "$f")
    [ -z "$path" ] || [ -e "$path" ] || made="$made $path"
    start=$(date +%s)
    set +e
    "$FAULTLINE" run "$f" --out "$WORK/$name" -q > "$WORK/$name.out" 2>&1
    code=$?
    set -e
    R=$WORK/$name/report.json
    [ -f "$R" ] || { cat "$WORK/$name.out" >&2; fail "$name: no report.json"; }
    case $name in
    gluster-bitrot*) want=1 verdict=fail ;; # a replica serves its rotten copy
    *) want=0 verdict=pass ;;
    esac
    timing_missed=""
    if [ -n "${FL_SANITIZED:-}" ] && [ "$code" = 1 ] && [ $want = 0 ] && [ "$(untimed_misses "$R")" = 0 ]; then
        timing_missed=$(jq -r '[.expectations[] | select(.pass | not) | .expect] | join(", ")' "$R")
        echo "  $name: under the sanitizers missed only timing: $timing_missed"
        code=0
    fi
    [ "$code" = $want ] || { cat "$WORK/$name.out" >&2; fail "$name: exit $code, expected $want"; }
    [ -n "$timing_missed" ] || json "$R" .verdict "\"$verdict\""
    [ $verdict = fail ] || [ -n "$timing_missed" ] || json "$R" '[.expectations[] | select(.pass | not)] | length' 0
    json "$R" "$(why "$name")" true
    xmllint --noout "$WORK/$name/junit.xml" || fail "$name: junit.xml is not well-formed"
    json "$R" '.expectations | length' \
        "$(xmllint --xpath 'count(//testcase[contains(@classname,".expect")])' "$WORK/$name/junit.xml")"
    grep -q "<svg" "$WORK/$name/report.html" || fail "$name: report.html has no plot"
    echo "  $name: $verdict in $(($(date +%s) - start)) s; $(jq -r '[.faults[] | "\(.name): stall \(.stall_s) s, recovery \(.recovery_s) s"] | join("; ")' "$R")"
done
pass
