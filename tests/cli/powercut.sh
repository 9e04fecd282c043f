# tier: quick
# A power cut of a file tree, then `faultline verify`: a `files` run on a
# loop-mounted xfs, 3-6 s in the filesystem is shut down (xfs_io shutdown
# without a log flush: what is not on stable storage is lost, as in a power
# cut) and faultline SIGKILLed; after a remount (log recovery) verify must
# pass with the blocks and, with metadata streams, the names checked: a
# name changed after the stream's last durability point may be back as it
# was (counted as reverted), one that was durable must be exact.  Done with
# metadata = 1 and metadata = 0.  Then the tree is damaged where it was
# durable, and verify must find it.
#
# The test runs in a mount namespace of its own (unshare -m), so no mount
# is seen outside it or outlives it.
if [ -z "${FL_POWERCUT_NS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    FL_POWERCUT_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"

need_root "loop mounts and an xfs shutdown"
[ -n "${FL_POWERCUT_NS:-}" ] || fail "unshare (util-linux) is missing"
for tool in mkfs.xfs xfs_io; do
    command -v $tool > /dev/null || fail "$tool is missing (xfsprogs; make deps installs it)"
done

IMG=$WORK/xfs.img
MNT=$WORK/mnt
mkdir "$MNT"
truncate -s 320M "$IMG" # mkfs.xfs wants 300 MiB at least; sparse
mkfs.xfs -q -f "$IMG" > "$WORK/mkfs.log" 2>&1 || { cat "$WORK/mkfs.log" >&2; fail "mkfs.xfs failed"; }
pid=""
teardown() {
    [ -z "$pid" ] || kill -9 "$pid" 2> /dev/null
    [ -z "$pid" ] || wait "$pid" 2> /dev/null
    umount "$MNT" 2> /dev/null || umount -l "$MNT" 2> /dev/null
    for dev in $(losetup -j "$IMG" -O NAME -n 2> /dev/null); do losetup -d "$dev"; done
    return 0
}
at_exit teardown
mount_fs() { mount -o loop "$IMG" "$MNT" || fail "cannot mount $IMG"; }
mount_fs

# powercut NAME METADATA: a run, cut 3-6 s into its workload, then verify.
powercut() {
    cat > "$WORK/$1.scn" <<EOF
[scenario]
name = $1
duration = 120s
[target]
kind = files
path = $MNT
size = 16MiB
[workload]
class = mixed
read = 25%
procs = 2
flush = 32
metadata = $2
EOF
    RUN=$WORK/run-$1 # outside the filesystem that is cut
    "$FAULTLINE" run "$WORK/$1.scn" --out "$RUN" --quiet > "$WORK/$1.log" 2>&1 &
    pid=$!
    # The workload has begun once the first worker's journal exists.
    i=0
    while [ ! -s "$RUN/worker-0/journal.bin" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$RUN/worker-0/journal.bin" ] || { cat "$WORK/$1.log" >&2; fail "$1: the run never started its workload"; }
    # A metadata stream has made a few durability points (one per 16 changes,
    # about 2.5 KiB of journal) before the clock starts: the negative check
    # needs a durable directory.
    i=0
    while [ "$2" != 0 ] && [ "$(stat -c %s "$RUN/meta-0.journal" 2> /dev/null || echo 0)" -lt 8192 ] &&
        [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    [ $i -lt 1200 ] || { cat "$WORK/$1.log" >&2; fail "$1: the metadata journal holds under 8 KiB after 60 s"; }
    sleep $((3 + $(od -An -N1 -tu1 /dev/urandom) % 4))
    kill -0 "$pid" 2> /dev/null || { cat "$WORK/$1.log" >&2; fail "$1: the run ended before the cut"; }
    xfs_io -x -c shutdown "$MNT" || fail "$1: xfs_io shutdown failed"
    kill -9 "$pid"
    wait "$pid" 2> /dev/null || true
    pid=""
    [ ! -e "$RUN/report.json" ] || fail "$1: the killed run wrote a report"
    umount "$MNT" || fail "$1: cannot unmount the shut down filesystem"
    mount_fs # log recovery: what was on stable storage at the cut
    expect_code 0 "$FAULTLINE" verify "$RUN" --quiet
    R=$RUN/report.json
    json "$R" .verdict '"pass"'
    json "$R" .journal.state_final false
    json "$R" '.counts.ok > 100' true
    json "$R" '.findings | length' 0
}

# --- with a metadata stream ---
powercut meta 1
json "$R" .metadata.streams 1
json "$R" '.metadata.names_checked > 0' true
json "$R" .metadata.rebuilt_from_journal 1
json "$R" '.metadata.durability_points > 0' true
json "$R" '.metadata.journal_records > 0' true
echo "  meta: $(jq -c '{ok: .counts.ok, m: .metadata | del(.ops)}' "$R")"
# A durability point came after the stream's first mkdir (no operation but
# mkdir runs before a directory exists): take every directory away, and the
# durable ones are missing.
rm -rf "$MNT/faultline-meta/meta-0/"d*
expect_code 1 "$FAULTLINE" verify "$RUN" --quiet
json "$R" .verdict '"fail"'
json "$R" '[.findings[] | select(.class == "missing-file" and (.path | test("meta-0/d[0-3]$")))] | length > 0' true

# --- without ---
powercut plain 0
json "$R" '.metadata // "none"' '"none"'
# A file of the tree, made (and synced by the workload's flushes) at the start.
rm "$MNT/faultline-plain/small/s000/00/f-00001"
expect_code 1 "$FAULTLINE" verify "$RUN" --quiet
json "$R" '[.findings[] | select(.class == "missing-file") | .path | test("small/s000/00/f-00001$")]' '[true]'
pass
