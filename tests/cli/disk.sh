# tier: quick
# The disk faults (disk-fail, disk-errors, disk-slow, disk-full) as the
# scenario says them, before any lab:
#   - `faultline check` accepts them on lab servers, and refuses each
#     mistake with FILE:LINE and the reason;
#   - on a [host], a disk fault names its disk (device = sdX, dm = NAME),
#     and disk-full is refused there;
#   - at prepare, what this machine lacks is said: no SCSI disk of that
#     name, no device-mapper in its kernel;
#   - with a device-mapper that is a stand-in (a dmsetup in PATH that logs
#     and answers as dmsetup does, FL_SYSFS_ROOT with module/dm_mod),
#     disk-errors loads its table over the bad blocks and loads the linear
#     one back at clear.
# The lab end-to-end tests (the lab's disk layer) are in tests/lab/.
. "$(dirname "$0")/../lib.sh"

lab_scn() { # NAME, then the fault's lines: a gluster-lab scenario with [fault d]
    _n=$1
    shift
    { printf '[scenario]\nname = %s\nduration = 10s\nlab = gluster\n' "$_n"
      printf '[target]\nkind = files\nsize = 4MiB\n[fault d]\n'
      for l in "$@"; do printf '%s\n' "$l"; done; } > "$WORK/$_n.scn"
}

lab_scn good "action = disk-errors" "host = gs1" "at = 1s" "duration = 2s" "blocks = 8" \
    "on = both" "percent = 50"
cat >> "$WORK/good.scn" <<EOF
[fault slow]
action = disk-slow
host = gs2
at = 1s
latency = 20ms
jitter = 5ms
[fault gone]
action = disk-fail
host = gs3
at = 2s
replace = yes
[fault full]
action = disk-full
host = gs1
at = 5s
[fault range]
action = disk-errors
host = gs2
at = 6s
offset = 0
length = 1MiB
on = write
EOF
expect_code 0 "$FAULTLINE" check "$WORK/good.scn"
contains "$WORK/out" "5 faults"

# bad WANT, then the fault's lines: refused at check with WANT
bad() {
    _want=$1
    shift
    lab_scn bad "$@"
    expect_code 2 "$FAULTLINE" check "$WORK/bad.scn"
    contains "$WORK/err" "$_want"
}
bad "bad.scn:8: [fault d] disk-errors: length needs offset" "action = disk-errors" \
    "host = gs1" "length = 4k"
bad "bad.scn:8: [fault d] disk-errors: offset needs length" "action = disk-errors" \
    "host = gs1" "offset = 4k"
bad "bad.scn:8: [fault d] disk-errors takes blocks, or offset and length, not both" \
    "action = disk-errors" "host = gs1" "offset = 0" "blocks = 2"
bad "bad.scn:8: [fault d] disk-errors: percent = 0 fails nothing" "action = disk-errors" \
    "host = gs1" "percent = 0"
bad "bad.scn:12: percent: '150' is not a percentage from 0 to 100" "action = disk-errors" \
    "host = gs1" "on = read" "percent = 150"
bad "bad.scn:8: [fault d] disk-slow needs latency" "action = disk-slow" "host = gs1"
bad "bad.scn:8: [fault d] disk-fail: gs1 is a lab server, whose disk is the lab's: leave out device" \
    "action = disk-fail" "host = gs1" "device = sdb"
bad "bad.scn:11: 'jitter' does not apply to action disk-fail" "action = disk-fail" "host = gs1" \
    "jitter = 1ms"

# On a [host]: say which disk; disk-full only on a lab server.
host_scn() { # NAME, then the fault's lines: a file target, [host far], [fault d] on it
    _n=$1
    shift
    { printf '[scenario]\nname = %s\nduration = 2s\n' "$_n"
      printf '[target]\nkind = file\npath = %s/%s.img\nsize = 1MiB\n' "$WORK" "$_n"
      printf '[host far]\nssh = root@198.18.0.9\n[fault d]\nhost = far\n'
      for l in "$@"; do printf '%s\n' "$l"; done; } > "$WORK/$_n.scn"
}
host_scn h1 "action = disk-fail"
expect_code 2 "$FAULTLINE" check "$WORK/h1.scn"
contains "$WORK/err" "h1.scn:10: [fault d] disk-fail on far (not a lab server): say which disk, device = sdX"
host_scn h2 "action = disk-slow" "latency = 5ms"
expect_code 2 "$FAULTLINE" check "$WORK/h2.scn"
contains "$WORK/err" "h2.scn:10: [fault d] disk-slow on far (not a lab server): say which disk, dm = NAME"
host_scn h3 "action = disk-full"
expect_code 2 "$FAULTLINE" check "$WORK/h3.scn"
contains "$WORK/err" "h3.scn:10: [fault d] disk-full: only a lab server's disk can be made full (far is not one); on a machine of your own, fill its filesystem: action = command"
host_scn h4 "action = disk-fail" "device = sdb" "replace = yes"
expect_code 2 "$FAULTLINE" check "$WORK/h4.scn"
contains "$WORK/err" "h4.scn:10: [fault d] disk-fail: replace = yes cannot be done to a real disk (sdb)"
host_scn h5 "action = disk-errors" "dm = vg0" "percent = 10"
expect_code 2 "$FAULTLINE" check "$WORK/h5.scn"
contains "$WORK/err" "device-mapper fails every I/O of a range or none"
host_scn h6 "action = disk-slow" "dm = vg0" "latency = 5ms" "jitter = 1ms"
expect_code 2 "$FAULTLINE" check "$WORK/h6.scn"
contains "$WORK/err" "h6.scn:10: [fault d] disk-slow: jitter: device-mapper's delay target"
host_scn h7 "action = disk-fail" "device = sdb"
expect_code 0 "$FAULTLINE" check "$WORK/h7.scn"
host_scn h8 "action = disk-errors" "dm = vg0" "blocks = 4" "on = both"
expect_code 0 "$FAULTLINE" check "$WORK/h8.scn"

# At prepare, on this machine (host = local): what it lacks.  A run with
# faults registers its undo log under /run/faultline/runs.
need_root "runs with faults (their undo registry in /run/faultline/runs)"
local_scn() { # NAME, then the fault's lines: a file target, [fault d] on local
    _n=$1
    shift
    { printf '[scenario]\nname = %s\nduration = 2s\n' "$_n"
      printf '[target]\nkind = file\npath = %s/%s.img\nsize = 1MiB\n' "$WORK" "$_n"
      printf '[workload]\ndepth = 2\n[fault d]\nhost = local\nat = 500ms\nduration = 1s\n'
      for l in "$@"; do printf '%s\n' "$l"; done; } > "$WORK/$_n.scn"
}
local_scn l1 "action = disk-fail" "device = sdfl9"
expect_code 2 "$FAULTLINE" run "$WORK/l1.scn" --out "$WORK/r1" --quiet
contains "$WORK/err" "l1.scn:10: [fault d] disk-fail: sdfl9 is not a SCSI disk of local: no /sys/block/sdfl9/device/state"
if [ ! -e /sys/module/dm_mod ]; then
    local_scn l2 "action = disk-slow" "dm = flnone" "latency = 5ms"
    expect_code 2 "$FAULTLINE" run "$WORK/l2.scn" --out "$WORK/r2" --quiet
    contains "$WORK/err" "l2.scn:10: [fault d] disk-slow: local has no device-mapper (no /sys/module/dm_mod)"
fi

# A stand-in device-mapper: dmsetup logs every call and keeps one table.
mkdir -p "$WORK/bin" "$WORK/sys/module/dm_mod"
cat > "$WORK/bin/dmsetup" <<EOF
#!/bin/sh
echo "\$*" >> "$WORK/dmsetup.log"
case \$1 in
version) echo "Library version: 1.02.185"; echo "Driver version: 4.47.0" ;;
info) [ "\$2" = vg0 ] || { echo "Device does not exist."; exit 1; } ;;
table) [ "\$2" = vg0 ] || { echo "Device does not exist."; exit 1; }
       cat "$WORK/table" ;;
load) if [ "\$3" = --table ]; then echo "\$4" > "$WORK/table.new"; else cp "\$3" "$WORK/table.new"; fi ;;
resume) mv "$WORK/table.new" "$WORK/table" ;;
esac
EOF
chmod +x "$WORK/bin/dmsetup"
echo "0 2048 linear 7:3 0" > "$WORK/table"
local_scn l3 "action = disk-errors" "dm = vg0" "blocks = 4" "on = both"
PATH="$WORK/bin:$PATH" FL_SYSFS_ROOT="$WORK/sys" \
    expect_code 0 "$FAULTLINE" run "$WORK/l3.scn" --out "$WORK/r3" --quiet
[ "$(grep -c '^load vg0 ' "$WORK/dmsetup.log")" = 2 ] || { cat "$WORK/dmsetup.log" >&2; fail "not two loads"; }
[ "$(grep -c '^resume vg0$' "$WORK/dmsetup.log")" = 2 ] || fail "not two resumes"
grep -q "^load vg0 --table 0 2048 linear 7:3 0$" "$WORK/dmsetup.log" || fail "the linear table was not loaded back"
[ "$(cat "$WORK/table")" = "0 2048 linear 7:3 0" ] || fail "the table is not the linear one again"
faulty=$(ls "$WORK"/r3/*/disk-0-vg0.table 2>/dev/null || ls "$WORK"/r3/disk-0-vg0.table)
[ "$(grep -c ' error$' "$faulty")" -ge 1 ] && [ "$(grep -c ' error$' "$faulty")" -le 4 ] ||
    { cat "$faulty" >&2; fail "the faulty table has not 1..4 error segments"; }
R=$(ls "$WORK"/r3/*/report.json 2>/dev/null || ls "$WORK"/r3/report.json)
json "$R" '[.faults[] | .detail | test("device-mapper device vg0 of local: reads and writes fail with EIO in 4 ranges \\(dm error\\)")] | all' true
# A killed run's record: faultline cleanup loads the linear table back.
echo "0 2048 error" > "$WORK/table"
mkdir "$WORK/killed"
printf 'U 1 dm-table vg0 0 2048 linear 7:3 0\n' > "$WORK/killed/undo.log"
chmod 600 "$WORK/killed/undo.log"
PATH="$WORK/bin:$PATH" expect_code 0 "$FAULTLINE" cleanup "$WORK/killed"
[ "$(cat "$WORK/table")" = "0 2048 linear 7:3 0" ] || fail "cleanup did not load the linear table back"
pass
