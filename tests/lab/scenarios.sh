# tier: full
# passes: plain
# Every shipped scenario, run as it is, must reach its verdict for the right
# reason: the outage it stages really happened (the recovery numbers show
# it), the expectations of the file held, and the integrity rules held —
# except the gluster-bitrot ones, which must fail, and only on corrupt
# blocks served by the volume, iscsi-cache-lies, which must fail on lost
# writes, and gluster-small-file-brick-kill, which must fail (in one of up
# to seven runs) on small files read from the brick that missed their
# write, and cephfs-mds-grace-trap, which must fail because its dead MDS
# is never replaced, with the monitors' own word for why.  Under the
# sanitizers a few run in the plain pass only (plain_only).
# The file-based ones (smoke, demo) write to their own paths in /tmp; what
# they create is removed afterwards.
. "$(dirname "$0")/../lib.sh"

DIR=$(cd "$(dirname "$0")/../../scenarios" && pwd)

# The scenarios without a fault: the workload really ran, wrote, read back
# and verified, and the sweep read the written blocks again.
RAN='.faults == [] and .io.reads > 0 and .io.writes > 0 and .io.errors == 0 and .counts.ok > 0 and .sweep.reads > 0 and .sweep.errors == 0'

# A heal is GlusterFS's own pace (10-26 s here); under the sanitizers it
# once took longer than the 90 s of heal_wait in CI.  There a missing heal
# time is a timing miss like the others, and the run must say what was
# left instead (checked after the reason).
if [ -n "${FL_SANITIZED:-}" ]; then HEALED=true; else HEALED='.faults[0].heal_s != null'; fi

# why SCENARIO: sets WHY to a jq filter on report.json that must be true,
# saying that the run failed or passed for the reason the scenario is
# about.  A scenario without one fails the test: a verdict alone is no
# reason.  (It sets a variable rather than printing the filter: fail inside
# $(...) would end only that subshell.)
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
    iscsi-controller-kill) WHY='[.faults[0].path_events[] | select(.event == "switch")] | length >= 1' ;;
    # the same, and the kill went through the agent on ctrl-a over ssh
    iscsi-controller-kill-ssh) WHY='([.faults[0].path_events[] | select(.event == "switch")] | length >= 1) and .faults[0].transport == "ssh" and .faults[0].applied_by == "ctrl-a" and .hosts[0].transport == "ssh" and .hosts[0].rtt_ms > 0' ;;
    iscsi-controller-pause) WHY='([.faults[0].path_events[] | select(.event == "switch")] | length >= 1) and .faults[0].stall_s >= 2' ;;
    iscsi-port-bounce) WHY='.faults[0].stall_s >= 1.5 and .faults[0].steps == 2' ;;
    iscsi-switch-restart) WHY='.faults[0].stall_s >= 3.5' ;;
    iscsi-client-link) WHY='.faults[0].stall_s >= 3.5' ;;
    # the loss slowed the path (recovery), or at least one I/O waited out
    # a TCP retransmission timeout (200 ms at least): under the sanitizers
    # the client itself may be the bottleneck, and CI once saw its recovery
    # under 2 s (4 ASan runs here: recovery 5.7-6.1 s, max latency 0.63-0.65 s)
    iscsi-packet-loss) WHY='(.faults[0].recovery_s // 99) >= 2 or (.faults[0].max_latency_s // 0) >= 0.2' ;;
    iscsi-partition) WHY='([.faults[0].path_events[] | select(.event == "switch")] | length >= 1) and .faults[0].stall_s >= 2' ;;
    iscsi-bandwidth) WHY='.faults[0].impact_s != null and (.faults[0].recovery_s // 99) >= 4' ;;
    iscsi-disk-corruption) WHY='.corruption.detected_corrupt == 4 and .counts.corrupt >= 4' ;;
    gluster-brick-kill) WHY="($HEALED) and .metadata.ops.create > 0" ;;
    gluster-glusterd-kill) WHY='.faults[0].cleared_at - .faults[0].injected_at >= 2.5' ;;
    gluster-server-link) WHY=".faults[0].stall_s >= 3 and ($HEALED)" ;;
    gluster-server-partition) WHY=".faults[0].stall_s >= 3 and ($HEALED)" ;;
    gluster-switch-restart) WHY='.faults[0].stall_s >= 2' ;;
    # power cuts: the cut found writes at risk; without a mirror some read
    # back reverted (allowed, counted per cut) after the failover to B; with
    # it none did; a gluster server's brick went down without its log (its
    # heal is reported, or the entries it left: see the scenario)
    # (reverted > 0 unless the cut found A's cache nearly clean, a flush just
    # done: then it lost nothing to revert; 0 of 15 measured runs)
    iscsi-controller-power) WHY='.power[0].fault == "power-a" and .power[0].writes_at_risk > 0 and (.power[0].reverted > 0 or (.faults[0].detail | capture("killed, (?<n>[0-9]+) unflushed pages").n | tonumber) < 20) and .counts.reverted == .power[0].reverted and .counts["lost-write"] == 0 and ([.faults[0].path_events[] | select(.event == "switch")] | length >= 1)' ;;
    iscsi-controller-power-mirrored) WHY='.power[0].fault == "power-a" and .power[0].writes_at_risk > 0 and .power[0].reverted == 0 and .counts.reverted == 0 and ([.faults[0].path_events[] | select(.event == "switch")] | length >= 1)' ;;
    gluster-server-power) WHY=".power[0].fault == \"power-gs2\" and .power[0].writes_at_risk > 0 and (.faults[0].detail | contains(\"xfs shut down without log flush\")) and .metadata.ops.create > 0" ;;
    # must fail: the flushes A acknowledged were lies, so blocks older than
    # their durable generation are lost writes, each named
    iscsi-cache-lies)
        WHY='.power[0].fault == "power-a" and .counts["lost-write"] > 0 and ([.findings[] | select(.class == "lost-write") | .block != null and .found_gen < .expected_gen] | all) and ([.expectations[] | select(.pass | not) | .metric] - ["lost_writes", "zeroed"] == [])' ;;
    # the brick really died three times and the volume really ran with no
    # post-op delay; no finding of any class
    gluster-small-file-brick-kill-post-op)
        WHY='.manifest.target.lab.options["cluster.post-op-delay-secs"] == "0" and ([.faults[] | select(.stall_s != null)] | length) == 3 and .io.writes > 0 and .counts.ok > 0 and .findings == []' ;;
    # must fail, on the defaults: only reads of an older copy (or zeroes)
    # of a write, and only those rules failed
    gluster-small-file-brick-kill)
        WHY='.manifest.target.lab.options["cluster.post-op-delay-secs"] == null and .counts["lost-write"] + .counts["stale-read"] + .counts.zeroed > 0 and ([.findings[] | .class] - ["lost-write", "stale-read", "zeroed"] == []) and ([.expectations[] | select(.pass | not) | .metric] - ["lost_writes", "stale_reads", "zeroed"] == [])' ;;
    # must fail: corrupt blocks served, each named with its file
    gluster-bitrot | gluster-bitrot-detect)
        WHY='.counts.corrupt > 0 and ([.findings[] | select(.class == "corrupt") | .path | test("/faultline-gluster-bitrot[^/]*/s[0-9]+/[0-9]+/f-[0-9]+$")] | all) and ([.expectations[] | select(.pass | not) | .metric] == ["corrupt"])' ;;
    # the standby took over while the fault lasted, and the names waited
    # for it (the data of files already open need not)
    # and the cluster was whole again once the killed MDS was back as the
    # standby
    cephfs-mds-kill)
        WHY='([.faults[0].path_events[] | select(.event == "mds-active") | .portal | startswith("mds.cs2 ")] | any) and .faults[0].metadata_stall_s > 5 and .faults[0].recover_s != null and .metadata.ops.create > 0 and .findings == []' ;;
    # the standby took over while cs1's cable was still out, the names
    # waited for it, and the cluster was whole again after the cable was
    # back
    cephfs-mds-link)
        WHY='(.faults[0] as $f | [$f.path_events[] | select(.event == "mds-active" and (.portal | startswith("mds.cs2 "))) | .t < $f.cleared_at] | any) and .faults[0].metadata_stall_s > 5 and .faults[0].recover_s != null and .metadata.ops.create > 0 and .findings == []' ;;
    # cs1's power cut was a power cut (its disk's XFS shut down without log
    # flush), the standby took over while cs1 was still off, the names
    # waited for it, and the cluster was whole again after cs1 was back
    cephfs-mds-power)
        WHY='.power[0].fault == "power-cs1" and .power[0].writes_at_risk > 0 and (.faults[0].detail | contains("xfs (every store of its daemons) shut down without log flush")) and (.faults[0] as $f | [$f.path_events[] | select(.event == "mds-active" and (.portal | startswith("mds.cs2 "))) | .t < $f.cleared_at] | any) and .faults[0].metadata_stall_s > 5 and .faults[0].recover_s != null and .metadata.ops.create > 0 and .findings == []' ;;
    # the data server's cut was felt (a stall of about the cut), and the
    # cluster was whole again afterwards
    cephfs-osd-link) WHY='.faults[0].stall_s >= 3 and .faults[0].recover_s != null and .findings == []' ;;
    # an OSD died (not just anything on cs3), and the cluster recovered the
    # objects written while it was away: that takes Ceph seconds at least
    cephfs-osd-kill)
        WHY='(.faults[0].detail | test("^osd of cs3 killed")) and .faults[0].recover_s > 2 and .metadata.ops.create > 0 and .findings == []' ;;
    # the fabric's cut was felt by all, nobody was replaced for it, and the
    # cluster was whole again afterwards
    cephfs-switch-restart)
        WHY='.faults[0].stall_s >= 2 and .faults[0].recover_s != null and ([.path_events[] | select(.event == "mds-assigned")] == []) and .findings == []' ;;
    # CephFS served no rot: the rot was on cs1's OSD's disk; the reads of
    # the objects whose primary copy is cs1's met its checksum and were
    # served from the other copies, the deep scrub found the rest, all on
    # osd.0, and the cluster is not whole until a repair (see below)
    cephfs-bitrot)
        WHY='(.faults[0].detail | test("over 64 ranges of cs1.s copy of the volume [(][0-9]+ places of its store[)]")) and ([.path_events[] | select(.event == "read-repair") | .portal | startswith("osd.0 ")] | length > 0 and all) and ([.path_events[] | select(.event == "scrub-bad-copy") | .portal | startswith("osd.0 ")] | length > 0 and all) and ([.faults[] | .recover_s] == [null, null]) and .counts.ok > 0 and .findings == []' ;;
    # must fail: cs1's dead MDS was never replaced (no takeover, the fault
    # never recovered, the workers left waiting), the report says why from
    # the monitors' log with the settings that cause it, and only the stall
    # and hung rules failed
    cephfs-mds-grace-trap)
        WHY='.faults[0].recovery_s == null and ([.path_events[] | select(.event == "mds-active")] == []) and ([.path_events[] | select(.event == "mds-beacons-reset") | .detail | test("mon_tick_interval [(]5 s[)] is not shorter than mds_beacon_grace [(]5 s[)] minus mds_beacon_interval [(]4 s[)]")] | any) and .measured.hung > 0 and .findings == [] and ([.expectations[] | select(.pass | not) | .metric] - ["max_stall", "hung"] == [])' ;;
    *) fail "$1: no reason check in why(); every shipped scenario needs one" ;;
    esac
}

# A sanitized build (FL_SANITIZED, set by `make check-asan`) runs two to
# three times slower on the same two cores: its timing is not the product's.
# There a timing expectation (stall, recovery, ...) may miss and is reported;
# the integrity rules, every other expectation and the reason must hold.
TIMING='["recovery","max_stall","stall","impact","max_latency","first_io_after_inject","first_io_after_clear","heal","recover","iops"]'

# Under the sanitizers (the second pass of `make check`), a scenario whose
# faultline code another scenario or test of that pass runs as well is
# left to the plain pass: what differs is the storage's own behaviour, not
# ours, and the pass keeps CI within its hour.  plain_only NAME says why,
# or nothing.
plain_only() {
    case $1 in
    gluster-small-file-brick-kill-post-op) echo "gluster-small-file-brick-kill runs its faults and checks; only a volume option differs" ;;
    gluster-bitrot) echo "gluster-bitrot-detect runs the same corrupt fault and evidence, with the scrubber on" ;;
    iscsi-controller-power-mirrored) echo "iscsi-controller-power runs the same power cut; the mirror is tgtd's" ;;
    cephfs-mds-kill) echo "tests/lab/ceph.sh kills the active MDS the same way and checks the takeover, the stalls and the recovery" ;;
    cephfs-mds-power) echo "gluster-server-power cuts a server's power with the same freeze, XFS shutdown and kill, tests/lab/ceph.sh checks the takeover; its power-on ran 10 times under the sanitizers when it was measured" ;;
    cephfs-mds-link) echo "gluster-server-link pulls a server's cable the same way, tests/lab/ceph.sh checks the takeover's path events, the stalls and the recovery" ;;
    cephfs-osd-link) echo "gluster-server-link pulls a server's cable the same way, tests/lab/ceph.sh checks the recovery" ;;
    cephfs-osd-kill) echo "gluster-brick-kill kills a server's daemon the same way, tests/lab/ceph.sh checks the recovery" ;;
    cephfs-switch-restart) echo "gluster-switch-restart restarts the switch the same way, tests/lab/ceph.sh checks the recovery" ;;
    cephfs-bitrot) echo "gluster-bitrot-detect runs the corrupt fault; its store scan and the OSDs' log lines ran 10 times under the sanitizers when it was measured" ;;
    cephfs-mds-grace-trap) echo "tests/lab/ceph.sh kills the active MDS the same way and reads the monitors' logs; every ceph and gluster lab down aborts its FUSE connection" ;;
    esac
}
untimed_misses() {
    jq --argjson t "$TIMING" \
        '[.expectations[] | select(.pass | not) | .metric | select(. as $m | ($t | any(.[]; . == $m)) | not)] | length' "$1"
}

# Every scenario has its reason before any of them runs (also without root).
for f in "$DIR"/*.scn; do why "$(basename "$f" .scn)"; done

need_root "the labs"
lab_prefix

made=""
remove_made() { for f in $made; do rm -f "$f"; done; }
at_exit remove_made
for f in "$DIR"/*.scn; do
    name=$(basename "$f" .scn)
    if [ -n "${FL_SANITIZED:-}" ] && [ -n "$(plain_only "$name")" ]; then
        echo "  $name: in the plain pass only: $(plain_only "$name")"
        continue
    fi
    path=$(sed -n 's/^path *= *\([^ #]*\).*/\1/p' "$f")
    [ -z "$path" ] || [ -e "$path" ] || made="$made $path"
    start=$(date +%s)
    # gluster-small-file-brick-kill fails when a read meets GlusterFS's
    # window after a brick returns, in about 2 runs of 3 (docs/clients.md): a run
    # that missed it is run again, up to seven runs in all (all seven pass
    # less than once in a thousand), and the last must fail.
    tries=1
    case $name in gluster-small-file-brick-kill) tries=7 ;; esac
    for try in $(seq 1 $tries); do
        rm -rf "${WORK:?}/$name"
        set +e
        "$FAULTLINE" run "$f" --out "$WORK/$name" -q > "$WORK/$name.out" 2>&1
        code=$?
        set -e
        [ "$code" = 0 ] && [ "$try" -lt "$tries" ] || break
        echo "  $name: passed in run $try (no read met the window), run again"
    done
    R=$WORK/$name/report.json
    [ -f "$R" ] || { cat "$WORK/$name.out" >&2; fail "$name: no report.json"; }
    case $name in
    gluster-bitrot*) want=1 verdict=fail ;; # a replica serves its rotten copy
    gluster-small-file-brick-kill) want=1 verdict=fail ;; # read from the brick that missed it
    iscsi-cache-lies) want=1 verdict=fail ;; # flushes acknowledged, never made
    cephfs-mds-grace-trap) want=1 verdict=fail ;; # the dead MDS is never replaced
    *) want=0 verdict=pass ;;
    esac
    timing_missed=""
    if [ -n "${FL_SANITIZED:-}" ] && [ "$code" = 1 ] && [ $want = 0 ] && [ "$(untimed_misses "$R")" = 0 ]; then
        timing_missed=$(jq -r '[.expectations[] | select(.pass | not) | .expect] | join(", ")' "$R")
        echo "  $name: under the sanitizers missed only timing: $timing_missed"
        code=0
    fi
    # gluster-server-power may fail for what GlusterFS does after one
    # server's power cut (see the scenario): names the cut server took back
    # served again, or I/O held until that server is back.  Only those:
    # every other rule held, and no block read back wrong.
    known=""
    if [ "$name" = gluster-server-power ] && [ "$code" = 1 ] &&
        [ "$(jq --argjson t "$TIMING" '[.expectations[] | select(.pass | not) | .metric | select(. as $m | ($t + ["hung", "missing_files", "unexpected_files", "wrong_sizes"]) | any(.[]; . == $m) | not)] | length' "$R")" = 0 ] &&
        [ "$(jq '[.findings[] | select(.block != null)] | length' "$R")" = 0 ]; then
        known=$(jq -r '[.expectations[] | select(.pass | not) | .expect] | join(", ")' "$R")
        echo "  $name: failed for what GlusterFS did after the power cut: $known"
        code=0
    fi
    # a run that fails shows its whole report: which finding, which rule
    [ "$code" = $want ] || { cat "$WORK/$name.out" "$WORK/$name/report.txt" >&2; fail "$name: exit $code, expected $want"; }
    [ -n "$timing_missed$known" ] || json "$R" .verdict "\"$verdict\""
    [ $verdict = fail ] || [ -n "$timing_missed$known" ] || json "$R" '[.expectations[] | select(.pass | not)] | length' 0
    why "$name"
    json "$R" "$WHY" true
    case $name in
    gluster-brick-kill | gluster-server-link | gluster-server-partition | gluster-server-power)
        if [ "$(jq .faults[0].heal_s "$R")" = null ]; then
            grep -Eq 'did not heal within heal_wait \([1-9][0-9]* entries still to heal[) ]' \
                "$WORK/$name/events.jsonl" ||
                fail "$name: no heal time, and its heal event does not say what was left"
            echo "  $name: $(grep -o 'did not heal within heal_wait ([^)]*)' "$WORK/$name/events.jsonl" | head -1)"
        fi ;;
    cephfs-bitrot)
        grep -Eq 'did not recover within heal_wait \(.*PG_DAMAGED' "$WORK/$name/events.jsonl" ||
            fail "$name: its recover event does not say that placement groups are damaged"
        echo "  $name: $(jq '[.path_events[] | select(.event == "read-repair")] | length' "$R") read-repairs, $(jq '[.path_events[] | select(.event == "scrub-bad-copy")] | length' "$R") bad copies found by the deep scrub" ;;
    gluster-bitrot*)
        # the first findings were followed by a look at every brick's copy
        # (evidence.txt): the rot is gs1's, the other two hold the data
        ev=$(grep -F '"event":"evidence"' "$WORK/$name/events.jsonl" || true)
        [ -n "$ev" ] || fail "$name: no evidence event for its findings"
        ! echo "$ev" | grep -Evq '[a-z-]+ of block [0-9]+: gs1 (not ours|bad crc), gs2 gen [0-9]+, gs3 gen [0-9]+, client ' ||
            fail "$name: evidence that does not show gs1's rot beside good copies: $(echo "$ev" | grep -Ev 'gs1 (not ours|bad crc), gs2 gen [0-9]+, gs3 gen [0-9]+,' | head -1)"
        grep -q "trusted.afr.dirty 0x" "$WORK/$name/evidence.txt" || fail "$name: evidence.txt shows no brick's xattrs"
        echo "  $name: $(echo "$ev" | wc -l) findings looked at on the bricks" ;;
    gluster-small-file-brick-kill)
        # at least one finding was looked at while gs1 still held the older
        # copy (or zeroes) and gs2 and gs3 both the newer one (a later look
        # may find the file written again; the client's own fresh read,
        # later still, may already get the new copy)
        ev=$(grep -F '"event":"evidence"' "$WORK/$name/events.jsonl" | jq -r .detail || true)
        [ -n "$ev" ] || fail "$name: no evidence event for its findings"
        shown=$(echo "$ev" | sed -nE 's/^[a-z-]+ of block [0-9]+: gs1 (gen ([0-9]+)|zeroes), gs2 gen ([0-9]+), gs3 gen ([0-9]+), client .*/\1|\3|\4/p' |
            awk -F'|' '{ o = ($1 == "zeroes") ? 0 : substr($1, 5) + 0 } $2 == $3 && $2 + 0 > o' | wc -l)
        [ "$shown" -ge 1 ] || fail "$name: no evidence of gs1 holding the older copy beside two newer ones: $(echo "$ev" | head -3)"
        echo "  $name: $shown of $(echo "$ev" | wc -l) findings looked at show gs1 older than gs2 and gs3" ;;
    esac
    xmllint --noout "$WORK/$name/junit.xml" || fail "$name: junit.xml is not well-formed"
    json "$R" '.expectations | length' \
        "$(xmllint --xpath 'count(//testcase[contains(@classname,".expect")])' "$WORK/$name/junit.xml")"
    grep -q "<svg" "$WORK/$name/report.html" || fail "$name: report.html has no plot"
    echo "  $name: $verdict in $(($(date +%s) - start)) s; $(jq -r '[.faults[] | "\(.name): stall \(.stall_s) s, recovery \(.recovery_s) s"] | join("; ")' "$R")"
done
pass
