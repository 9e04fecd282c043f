# tier: quick
# Host resource timelines: a run on a file of a real disk writes
# resources.csv with the client's CPU on the period's grid and the disk
# under the file, whose written bytes really move while the workload
# writes; report.html plots them under the throughput.  A file on tmpfs
# has no disk: the run still passes, with CPU rows and no disk rows, and
# the report says why.
. "$(dirname "$0")/../lib.sh"

# A directory on a block device: /var/tmp when it is on one, else a loop
# device with an ext4 of its own (root), else the test cannot run here.
disk_of() { # PATH: the whole disk under PATH (its kernel name), or nothing
    majmin=$(stat -c '%Hd:%Ld' "$1")
    [ "${majmin%%:*}" != 0 ] && [ -e "/sys/dev/block/$majmin" ] || return 0
    sys=$(readlink -f "/sys/dev/block/$majmin")
    [ ! -e "$sys/partition" ] || sys=$(dirname "$sys")
    basename "$sys"
}
DATA=$(mktemp -d /var/tmp/fl-resources-XXXXXX)
drop_data() { rm -rf "$DATA"; }
at_exit drop_data
DEV=$(disk_of "$DATA")
if [ -z "$DEV" ]; then
    [ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null || skip "/var/tmp is on no block device"
    truncate -s 256M "$DATA/disk.img"
    LOOP=$(losetup -f --show "$DATA/disk.img")
    drop_loop() { umount "$DATA/mnt" 2> /dev/null || true; losetup -d "$LOOP"; }
    at_exit drop_loop
    mkfs.ext4 -q "$LOOP"
    mkdir "$DATA/mnt"
    mount "$LOOP" "$DATA/mnt"
    DATA=$DATA/mnt
    DEV=$(basename "$LOOP")
fi

cat > "$WORK/disk.scn" <<EOS
[scenario]
name = disk
duration = 3s
bucket = 250ms
[target]
kind = file
path = $DATA/target.img
size = 64MiB
[workload]
read = 30%
depth = 4
direct = yes
flush = 64
EOS
expect_code 0 "$FAULTLINE" run "$WORK/disk.scn" --out "$WORK/run" --quiet
C=$WORK/run/resources.csv
[ -s "$C" ] || fail "no resources.csv"
[ "$(head -1 "$C")" = "t_s,host,kind,name,metric,value" ] || fail "resources.csv starts with $(head -1 "$C")"
# the client's CPU at every sample: every 250 ms (the bucket) over 3 s (a
# sample late on a loaded machine is taken at the next one)
n=$(awk -F, '$2 == "client" && $3 == "cpu" && $4 == "machine" && $5 == "busy_pct"' "$C" | wc -l)
[ "$n" -ge 8 ] && [ "$n" -le 13 ] || fail "$n CPU samples in 3 s of 250 ms buckets"
awk -F, '$5 == "busy_pct" { print $1 }' "$C" | awk 'NR > 1 { d = $1 - last; n++; ok += d > 0.2 && d < 0.3 }
    { last = $1 } END { exit ok < 0.75 * n }' \
    || fail "the samples are not 250 ms apart: $(awk -F, '$5 == "busy_pct" { print $1 }' "$C" | tr '\n' ' ')"
awk -F, '$2 == "client" && $5 == "iowait_pct"' "$C" | grep -q . || fail "no iowait of the client"
# the disk under the target: its written bytes move in (nearly) every sample
total=$(awk -F, -v d="$DEV" '$3 == "disk" && $4 == d && $5 == "write_bytes_per_s"' "$C" | wc -l)
moving=$(awk -F, -v d="$DEV" '$3 == "disk" && $4 == d && $5 == "write_bytes_per_s" && $6 > 0' "$C" | wc -l)
[ "$total" -ge 8 ] || fail "$total samples of $DEV's written bytes: $(grep ',disk,' "$C" | head -3)"
[ "$moving" -ge $((total - 2)) ] || fail "$DEV wrote in only $moving of $total samples"
awk -F, -v d="$DEV" '$4 == d && $5 == "writes_per_s" && $6 > 0 { n++ } END { exit n < 5 }' "$C" \
    || fail "no writes per second on $DEV"
for m in reads_per_s read_bytes_per_s in_flight util_pct; do
    awk -F, -v d="$DEV" -v m="$m" '$4 == d && $5 == m' "$C" | grep -q . || fail "no $m of $DEV"
done
H=$WORK/run/report.html
contains "$H" "<h2>Host resources</h2>"
contains "$H" "<title>CPU of this machine over time, % of all its CPUs</title>"
! grep -q "% of one CPU" "$H" || fail "report.html plots a lab host's CPU without a lab"
contains "$H" "<title>disk throughput over time</title>"
contains "$H" "<title>disk queue depth over time</title>"
contains "$H" "client $DEV (target"
# the baseline named in the throughput plot's legend, not written over the
# curve (which runs there in healthy times)
json "$WORK/run/report.json" ".baseline != null" true
grep -q '<i class="mk dash" style="border-color:#[0-9a-f]*"></i>baseline [0-9]* IOPS' "$H" \
    || fail "report.html has no key of the baseline"
! grep -q '<text[^>]*>baseline' "$H" || fail "report.html writes the baseline's label on the plot"
# the resource plots come after the throughput plot
[ "$(grep -n 'throughput over time' "$H" | head -1 | cut -d: -f1)" -lt \
  "$(grep -n 'CPU of this machine over time' "$H" | cut -d: -f1)" ] || fail "the resources come before the throughput"

# --- a file on tmpfs: no disk ---
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
    SHM=$(mktemp -d /dev/shm/fl-resources-XXXXXX)
    drop_shm() { rm -rf "$SHM"; }
    at_exit drop_shm
    sed -e "s|path = .*|path = $SHM/target.img|" -e 's/^direct = yes/direct = no/' \
        "$WORK/disk.scn" > "$WORK/shm.scn"
    expect_code 0 "$FAULTLINE" run "$WORK/shm.scn" --out "$WORK/shm" --quiet
    C=$WORK/shm/resources.csv
    awk -F, '$3 == "cpu" && $4 == "machine"' "$C" | grep -q . || fail "no CPU rows on tmpfs"
    ! awk -F, '$3 == "disk"' "$C" | grep -q . || fail "disk rows for a file on tmpfs: $(grep ,disk, "$C" | head -2)"
    contains "$WORK/shm/report.html" "No disk sampled: $SHM/target.img is on no block device"
fi
pass
