# tier: full
# passes: plain
# Every shipped scenario, run once through `faultline suite scenarios/
# --retry-timing 2`, as a user would run them: the suite must count every
# one met.  What a scenario must show is said in the scenario itself where
# the scenario language can say it: its expectations (a lower bound on the
# stall or recovery says the outage was felt), and for those that must
# fail, `expect_verdict = fail` with `expect_failing`, the rules that must
# fail and no others.  This test adds only what the language cannot say
# (why(), with its reason for each), read from each scenario's last
# attempt, and the suite's own files.
# The file-based ones (smoke, demo) write to their own paths in /tmp; what
# they create is removed afterwards.
. "$(dirname "$0")/../lib.sh"

DIR=$(cd "$(dirname "$0")/../../scenarios" && pwd)

# The scenarios without a fault: the workload really ran, wrote, read back
# and verified, and the sweep read the written blocks again (the language
# has no metric for the sweep's reads or the ok count).
RAN='.faults == [] and .io.reads > 0 and .io.writes > 0 and .io.errors == 0 and .counts.ok > 0 and .sweep.reads > 0 and .sweep.errors == 0'
# A power cut taken off the network first (its switch port down before
# anything of the host died: nothing it sent after the cut reached a peer,
# tests/lab/silent.sh).
SILENT='(.faults[0].detail | test("^power of [a-z0-9-]+ cut: switch port [a-z0-9-]+ down, then "))'
# A path switch while the fault lasted (the language has no metric for path
# events).
SWITCHED='([.faults[0].path_events[] | select(.event == "switch")] | length >= 1)'

# why SCENARIO: sets WHY to a jq filter on report.json that must be true:
# what the scenario must show that its own expectations cannot say (path
# events, the words of a fault's detail or the cluster's log, the
# workload's metadata operations, the evidence of a finding).  "true"
# where the scenario says it all, with the line that says it.  A scenario
# not listed fails the test: a verdict alone is no reason.  (It sets a
# variable rather than printing the filter: fail inside $(...) would end
# only that subshell.)
why() {
    WHY=""
    case $1 in
    smoke | demo) WHY=".target.kind == \"file\" and $RAN" ;;
    # and over the lab of this run: both controllers' portals (198.18.S.11
    # and .12, with the IQN of its LUN) logged in, the I/O went to ctrl-a's,
    # no path was lost
    iscsi-lab)
        WHY='def lab($h): test("^iscsi://198\\.18\\.[0-9]+\\." + $h + ":3260/iqn\\.2026-11\\.io\\.faultline:'"${P:-}"'-lab/1$");
            .target.kind == "iscsi" and (.target.description | contains("2 of 2 paths up")) and '"$RAN"' and
            ([.path_events[] | select(.event == "login") | .portal] | sort | length == 2 and (.[0] | lab("11")) and (.[1] | lab("12"))) and
            ([.path_events[] | select(.event == "switch") | .portal | lab("11")] == [true]) and
            ([.path_events[] | select(.event | IN("loss", "reconnect", "connect-failed"))] == [])' ;;
    iscsi-controller-kill | iscsi-controller-pause | iscsi-partition) WHY=$SWITCHED ;;
    # the same, and the kill went through the agent on ctrl-a over ssh
    iscsi-controller-kill-ssh) WHY="$SWITCHED"' and .faults[0].transport == "ssh" and .faults[0].applied_by == "ctrl-a" and .hosts[0].transport == "ssh" and .hosts[0].rtt_ms > 0' ;;
    # both bounces were made (the scenario's expect_stall >= 1.5s says one was felt)
    iscsi-port-bounce) WHY='.faults[0].steps == 2' ;;
    # the scenario says it: expect_stall >= 3.5s, >= 2s (the outage was felt)
    iscsi-switch-restart | iscsi-client-link | gluster-server-link | gluster-server-partition | gluster-switch-restart | cephfs-osd-link) WHY=true ;;
    # the loss slowed the path (recovery), or at least one I/O waited out a
    # TCP retransmission timeout (200 ms at least): an "or" the language
    # has no way to say
    iscsi-packet-loss) WHY='(.faults[0].recovery_s // 99) >= 2 or (.faults[0].max_latency_s // 0) >= 0.2' ;;
    # the scenario says it: expect_impact <= 1s (measured) and expect_recovery >= 4s
    iscsi-bandwidth) WHY=true ;;
    # the 4 overwritten blocks were read and flagged (detected_corrupt = 4
    # in the scenario; the reads' class is not a metric of the language)
    iscsi-disk-corruption) WHY='.counts.corrupt >= 4' ;;
    # the workload made names while the brick died (expect_heal says it
    # healed); a run that failed (expect_failing: lost_writes?, zeroed?,
    # stale_reads?) failed for GlusterFS's read of the returning brick: every
    # such finding is a read after its restart began (at + restart_after = 7 s)
    gluster-brick-kill)
        WHY='.metadata.ops.create > 0 and ([.findings[] | select(.class != "io-error") | .class] - ["lost-write", "stale-read", "zeroed"] == []) and ([.findings[] | select(.class != "io-error") | .read_at >= 7] | all)' ;;
    # glusterd stayed dead for its 2.5 s at least
    gluster-glusterd-kill) WHY='.faults[0].cleared_at - .faults[0].injected_at >= 2.5' ;;
    # power cuts: the cut found writes at risk; without a mirror some read
    # back reverted (allowed, counted per cut) after the failover to B; with
    # it none did (reverted = 0 in the scenario); a gluster server's brick
    # went down without its log (its heal is reported, or the entries it
    # left: see below)
    # (reverted > 0 unless the cut found A's cache nearly clean, a flush just
    # done: then it lost nothing to revert; 0 of 15 measured runs)
    iscsi-controller-power) WHY='.power[0].fault == "power-a" and .power[0].writes_at_risk > 0 and (.power[0].reverted > 0 or (.faults[0].detail | capture("killed, (?<n>[0-9]+) unflushed pages").n | tonumber) < 20) and .counts.reverted == .power[0].reverted and .counts["lost-write"] == 0 and '"$SWITCHED and $SILENT" ;;
    iscsi-controller-power-mirrored) WHY='.power[0].fault == "power-a" and .power[0].writes_at_risk > 0 and '"$SWITCHED and $SILENT" ;;
    gluster-server-power) WHY=".power[0].fault == \"power-gs2\" and .power[0].writes_at_risk > 0 and (.faults[0].detail | contains(\"xfs shut down without log flush\")) and .metadata.ops.create > 0 and $SILENT" ;;
    # must fail (the scenario's expect_failing: lost_writes, zeroed): and
    # every lost write is named with its block and an older generation
    iscsi-cache-lies)
        WHY='.power[0].fault == "power-a" and .counts["lost-write"] > 0 and ([.findings[] | select(.class == "lost-write") | .block != null and .found_gen < .expected_gen] | all) and '"$SILENT" ;;
    # the brick really died three times and the volume really ran with no
    # post-op delay; no finding of any class
    gluster-small-file-brick-kill-post-op)
        WHY='.manifest.target.lab.options["cluster.post-op-delay-secs"] == "0" and ([.faults[] | select(.stall_s != null)] | length) == 3 and .io.writes > 0 and .counts.ok > 0 and .findings == []' ;;
    # must fail (expect_failing), on the defaults, and every finding is a
    # read of an older copy (or zeroes) of a write
    gluster-small-file-brick-kill)
        WHY='.manifest.target.lab.options["cluster.post-op-delay-secs"] == null and .counts["lost-write"] + .counts["stale-read"] + .counts.zeroed > 0 and ([.findings[] | .class] - ["lost-write", "stale-read", "zeroed"] == [])' ;;
    # must fail (expect_failing = corrupt): corrupt blocks served, each
    # named with its file
    gluster-bitrot | gluster-bitrot-detect)
        WHY='.counts.corrupt > 0 and ([.findings[] | select(.class == "corrupt") | .path | test("/faultline-gluster-bitrot[^/]*/s[0-9]+/[0-9]+/f-[0-9]+$")] | all)' ;;
    # the standby took over while the fault lasted, and the names waited
    # for it (the data of files already open need not); the scenario's
    # expect_recover says the cluster was whole again once the killed MDS
    # was back as the standby
    cephfs-mds-kill)
        WHY='([.faults[0].path_events[] | select(.event == "mds-active") | .portal | startswith("mds.cs2 ")] | any) and .faults[0].metadata_stall_s > 5 and .metadata.ops.create > 0' ;;
    # the standby took over while cs1's cable was still out, and the names
    # waited for it
    cephfs-mds-link)
        WHY='(.faults[0] as $f | [$f.path_events[] | select(.event == "mds-active" and (.portal | startswith("mds.cs2 "))) | .t < $f.cleared_at] | any) and .faults[0].metadata_stall_s > 5 and .metadata.ops.create > 0' ;;
    # cs1's power cut was a power cut (its disk's XFS shut down without log
    # flush), the standby took over while cs1 was still off, and the names
    # waited for it
    cephfs-mds-power)
        WHY='.power[0].fault == "power-cs1" and .power[0].writes_at_risk > 0 and '"$SILENT"' and (.faults[0].detail | contains("xfs (every store of its daemons) shut down without log flush")) and (.faults[0] as $f | [$f.path_events[] | select(.event == "mds-active" and (.portal | startswith("mds.cs2 "))) | .t < $f.cleared_at] | any) and .faults[0].metadata_stall_s > 5 and .metadata.ops.create > 0' ;;
    # an OSD died (not just anything on cs3); expect_recover > 2s in the
    # scenario says the objects written meanwhile were recovered
    cephfs-osd-kill)
        WHY='(.faults[0].detail | test("^osd of cs3 killed")) and .metadata.ops.create > 0' ;;
    # nobody was replaced for the fabric's cut (expect_stall >= 2s says it
    # was felt by all)
    cephfs-switch-restart)
        WHY='[.path_events[] | select(.event == "mds-assigned")] == []' ;;
    # CephFS served no rot: the rot was on cs1's OSD's disk; the reads of
    # the objects whose primary copy is cs1's met its checksum and were
    # served from the other copies, the deep scrub found the rest, all on
    # osd.0, and the cluster is not whole until a repair (see below)
    cephfs-bitrot)
        WHY='(.faults[0].detail | test("over 64 ranges of cs1.s copy of the volume [(][0-9]+ places of its store[)]")) and ([.path_events[] | select(.event == "read-repair") | .portal | startswith("osd.0 ")] | length > 0 and all) and ([.path_events[] | select(.event == "scrub-bad-copy") | .portal | startswith("osd.0 ")] | length > 0 and all) and ([.faults[] | .recover_s] == [null, null]) and .counts.ok > 0 and .findings == []' ;;
    # must fail (expect_failing: max_stall?, hung): cs1's dead MDS was never
    # replaced (no takeover, the fault never recovered), and the report
    # says why from the monitors' log with the settings that cause it
    cephfs-mds-grace-trap)
        WHY='.faults[0].recovery_s == null and ([.path_events[] | select(.event == "mds-active")] == []) and ([.path_events[] | select(.event == "mds-beacons-reset") | .detail | test("mon_tick_interval [(]5 s[)] is not shorter than mds_beacon_grace [(]5 s[)] minus mds_beacon_interval [(]4 s[)]")] | any) and .measured.hung > 0 and .findings == []' ;;
    # --- the disk faults: each fault's detail counts what the disk layer did,
    # so a fault that met no I/O (it proved nothing) fails here ---
    # must fail (expect_failing = io_errors): reads of the bad sectors
    # failed, every block whose read failed is named (a finding each, its
    # later failed reads counted in it: together every failed read), and each
    # is one of the 64 bad blocks (4 KiB blocks 1024..1087); an error is not
    # a lie (the
    # scenario's lost_writes, corrupt = 0)
    iscsi-lun-bad-sectors)
        WHY='(.faults[0].detail | test("the LUN.s disk.*: [1-9][0-9]* of [0-9]+ reads failed with EIO")) and .counts["io-error"] > 0 and .findings_unlisted == 0 and ([.findings[] | .class] - ["io-error"] == []) and ([.findings[] | .block >= 1024 and .block < 1088] | all) and (.findings | length) + ([.findings[].repeats] | add) == .counts["io-error"]' ;;
    # the disk failed I/O (a write or a sync, whichever the server sent
    # first; a read counts too: every I/O fails), and GlusterFS took the
    # brick out by its health check while the fault lasted (brick-down, from
    # gs1's brick log)
    gluster-brick-disk-fail)
        WHY='(.faults[0].detail | test("gs1.s brick disk .*[1-9][0-9]* of [0-9]+ (reads|writes|syncs)")) and ([.faults[0].path_events[] | select(.event == "brick-down" and .portal == "gs1")] | length == 1) and .metadata.ops.create > 0' ;;
    # reads of gs1's disk failed, and the client read every block right
    gluster-brick-bad-sectors)
        WHY='(.faults[0].detail | test("gs1.s brick disk .*: [1-9][0-9]* of [0-9]+ reads failed with EIO")) and .counts.ok > 0 and .findings == []' ;;
    # gs1's disk held I/Os back, and the clients felt it (a latency of the
    # disk's own at least)
    gluster-brick-disk-slow)
        WHY='(.faults[0].detail | test("gs1.s brick disk .*: [1-9][0-9]* I/Os held back 20 ms")) and .faults[0].latency_p99_s >= 0.02 and .findings == []' ;;
    # cs3's disk failed I/O (writes, or only a sync: in one CI run the OSD's
    # first I/O after the failure was a sync, "0 of 1 writes and 1 of 1
    # syncs", and it died of that), and every OSD the monitors marked down
    # is cs3's (in 14 of 15 measured runs they did within the run; in one
    # the cluster log had no such line by its end)
    cephfs-osd-disk-fail)
        WHY='(.faults[0].detail | test("cs3.s disk .*[1-9][0-9]* of [0-9]+ (reads|writes|syncs)")) and ([.path_events[] | select(.event == "osd-down") | .portal | startswith("osd.2 ")] | all) and .metadata.ops.create > 0' ;;
    # reads of cs3's disk failed, and the client read every block right:
    # osd.2 read its objects from the other copies (read-repair, all on
    # osd.2), or it died of a failed read of its own store and was marked
    # down (4 and 11 of 15 measured runs)
    cephfs-osd-bad-sectors)
        WHY='(.faults[0].detail | test("cs3.s disk .*: [1-9][0-9]* of [0-9]+ reads failed with EIO")) and ([.path_events[] | select(.event == "read-repair") | .portal | startswith("osd.2 ")] as $rr | ($rr | length > 0 and all) or ([.path_events[] | select(.event == "osd-down") | .portal | startswith("osd.2 ")] | any)) and .counts.ok > 0 and .findings == []' ;;
    *) fail "$1: no reason check in why(); every shipped scenario needs one" ;;
    esac
}

# Every scenario has its reason before any of them runs (also without root).
for f in "$DIR"/*.scn; do why "$(basename "$f" .scn)"; done

need_root "the labs"
lab_prefix

made=""
remove_made() { for f in $made; do rm -f "$f"; done; }
at_exit remove_made
for f in "$DIR"/*.scn; do
    path=$(sed -n 's/^path *= *\([^ #]*\).*/\1/p' "$f")
    [ -z "$path" ] || [ -e "$path" ] || made="$made $path"
done

S=$WORK/suite/suite.json
set +e
"$FAULTLINE" suite "$DIR" --out "$WORK/suite" --retry-timing 2
code=$?
set -e
[ -f "$S" ] || fail "the suite wrote no suite.json (exit $code)"
xmllint --noout "$WORK/suite/junit.xml" || fail "the suite's junit.xml is not well-formed"
json "$S" '[.total, .ran, (.scenarios | length)] | unique | length' 1
json "$S" ".total" "$(ls "$DIR"/*.scn | wc -l)"
echo "  suite: exit $code, $(jq -r '"\(.met) met of \(.total) (\(.flaky) flaky), \(.lab_ups) lab ups for \(.total) scenarios (\(.lab_shared) shared), \(.lab_up_s) s in lab up, \(.wall_s) s in all"' "$S")"

# gluster-small-file-brick-kill fails when a read meets GlusterFS's window
# after a brick returns, in about 2 runs of 3 (docs/clients.md); a run
# that missed it passes, which the suite counts not met.  That one is run
# again alone, up to six more times (all seven pass less than once in a
# thousand): how often a run meets the window is GlusterFS's own timing,
# which the scenario cannot bound.
SF=gluster-small-file-brick-kill
sf_json=$S
if [ "$(jq -r --arg n $SF '.scenarios[] | select(.name == $n) | "\(.met) \(.verdict)"' "$S")" = "false pass" ]; then
    for try in 2 3 4 5 6 7; do
        echo "  $SF: passed in run $((try - 1)) (no read met the window), run again"
        set +e
        "$FAULTLINE" suite "$DIR/$SF.scn" --out "$WORK/$SF-$try" -q > "$WORK/$SF-$try.out" 2>&1
        set -e
        sf_json=$WORK/$SF-$try/suite.json
        [ -f "$sf_json" ] || { cat "$WORK/$SF-$try.out" >&2; said_tail "$WORK/$SF-$try.out"; fail "$SF: the suite wrote no suite.json"; }
        [ "$(jq -r '.scenarios[0].verdict' "$sf_json")" = pass ] || break
    done
fi

# Each scenario: met (or flaky: met on a retry), and the rest of its reason
# on its last attempt's report.  Those not met are all named at the end
# (one line each, with the suite's reason), not only the first.
not_met=""
for f in "$DIR"/*.scn; do
    name=$(basename "$f" .scn)
    J=$S
    [ "$name" != $SF ] || J=$sf_json
    top=$(dirname "$J")
    row=$(jq -c --arg n "$name" '.scenarios[] | select(.name == $n)' "$J")
    [ -n "$row" ] || fail "$name: not in $J"
    run=$top/$(echo "$row" | jq -r '.attempts[-1].dir')
    R=$run/report.json
    outcome=$(echo "$row" | jq -r .outcome)
    case $outcome in
    met | flaky) ;;
    *)
        cat "$run/report.txt" >&2 || true
        line="FAIL $name: $outcome: $(echo "$row" | jq -r '.why // "no reason given"') ($run)"
        echo "$line" >&2
        said "$line"
        grep -F FAIL "$run/report.txt" 2> /dev/null | head -n 4 | while IFS= read -r l; do said "  $name: $l"; done
        not_met="$not_met $name"
        continue ;;
    esac
    [ -f "$R" ] || fail "$name: no report.json in $run"
    why "$name"
    json "$R" "$WHY" true
    case $name in
    gluster-server-power)
        # its heal is measured, not bounded (see the scenario): a run where
        # it never ended names what was left
        if [ "$(jq .faults[0].heal_s "$R")" = null ]; then
            grep -Eq 'did not heal within heal_wait \([1-9][0-9]* entries still to heal[) ]' \
                "$run/events.jsonl" ||
                fail "$name: no heal time, and its heal event does not say what was left"
            echo "  $name: $(grep -o 'did not heal within heal_wait ([^)]*)' "$run/events.jsonl" | head -1)"
        fi ;;
    cephfs-bitrot)
        grep -Eq 'did not recover within heal_wait \(.*PG_DAMAGED' "$run/events.jsonl" ||
            fail "$name: its recover event does not say that placement groups are damaged"
        echo "  $name: $(jq '[.path_events[] | select(.event == "read-repair")] | length' "$R") read-repairs, $(jq '[.path_events[] | select(.event == "scrub-bad-copy")] | length' "$R") bad copies found by the deep scrub" ;;
    gluster-bitrot*)
        # the first findings were followed by a look at every brick's copy
        # (evidence.txt): the rot is gs1's, the other two hold the data
        ev=$(grep -F '"event":"evidence"' "$run/events.jsonl" || true)
        [ -n "$ev" ] || fail "$name: no evidence event for its findings"
        ! echo "$ev" | grep -Evq '[a-z-]+ of block [0-9]+: gs1 (not ours|bad crc), gs2 gen [0-9]+, gs3 gen [0-9]+, client ' ||
            fail "$name: evidence that does not show gs1's rot beside good copies: $(echo "$ev" | grep -Ev 'gs1 (not ours|bad crc), gs2 gen [0-9]+, gs3 gen [0-9]+,' | head -1)"
        grep -q "trusted.afr.dirty 0x" "$run/evidence.txt" || fail "$name: evidence.txt shows no brick's xattrs"
        echo "  $name: $(echo "$ev" | wc -l) findings looked at on the bricks" ;;
    gluster-small-file-brick-kill)
        # at least one finding was looked at while gs1 still held the older
        # copy (or zeroes) and gs2 and gs3 both the newer one (a later look
        # may find the file written again; the client's own fresh read,
        # later still, may already get the new copy)
        ev=$(grep -F '"event":"evidence"' "$run/events.jsonl" | jq -r .detail || true)
        [ -n "$ev" ] || fail "$name: no evidence event for its findings"
        shown=$(echo "$ev" | sed -nE 's/^[a-z-]+ of block [0-9]+: gs1 (gen ([0-9]+)|zeroes), gs2 gen ([0-9]+), gs3 gen ([0-9]+), client .*/\1|\3|\4/p' |
            awk -F'|' '{ o = ($1 == "zeroes") ? 0 : substr($1, 5) + 0 } $2 == $3 && $2 + 0 > o' | wc -l)
        [ "$shown" -ge 1 ] || fail "$name: no evidence of gs1 holding the older copy beside two newer ones: $(echo "$ev" | head -3)"
        echo "  $name: $shown of $(echo "$ev" | wc -l) findings looked at show gs1 older than gs2 and gs3" ;;
    esac
    xmllint --noout "$run/junit.xml" || fail "$name: junit.xml is not well-formed"
    json "$R" '.expectations | length' \
        "$(xmllint --xpath 'count(//testcase[contains(@classname,".expect")])' "$run/junit.xml")"
    grep -q "<svg" "$run/report.html" || fail "$name: report.html has no plot"
    echo "  $name: $outcome, $(echo "$row" | jq -r '"\(.verdict) (expected \(.expect_verdict)) in \(.wall_s) s, lab \(.lab_use // "none")"'); $(jq -r '[.faults[] | "\(.name): stall \(.stall_s) s, recovery \(.recovery_s) s"] | join("; ")' "$R")"
done
[ -z "$not_met" ] || fail "not met:$not_met (each said above with its reason)"
# every scenario met: the suite said so too, unless the one rerun above
# was needed
if [ "$sf_json" = "$S" ]; then
    [ "$code" = 0 ] || fail "every scenario met, but the suite exited $code"
    json "$S" .verdict '"pass"'
else
    json "$S" '[.scenarios[] | select(.met | not) | .name]' "[\"$SF\"]"
fi
pass
