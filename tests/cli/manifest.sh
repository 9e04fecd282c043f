# tier: quick
# The manifest of a report (report.json's `manifest`, report.txt's and
# report.html's sections), for a run and for a later verify, checked against
# what this machine says itself: uname, nproc, /proc/meminfo, sha256sum of
# the scenario, the seed, findmnt's filesystem type and options of the
# target's mount; the versions of tgtd and glusterfs as their programs say
# them, libnl's as its header does; this build's version as
# `faultline --version` says it.  A file tree target too, and (as root) a
# loop device names its backing file.
. "$(dirname "$0")/../lib.sh"

SCN=$(SCENARIO_KEYS="seed = 4242" scenario man)
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/run" --quiet
R=$WORK/run/report.json
M=.manifest
json "$R" .verdict '"pass"'

# faultline: the version `faultline --version` prints, its build flags
want=$("$FAULTLINE" --version | sed 's/^faultline //')
[ -n "$want" ] || fail "faultline --version said nothing"
json "$R" "$M.faultline.version" "\"$want\""
json "$R" "$M.faultline.build_flags.cc | length > 0" true
json "$R" "$M.faultline.build_flags.cflags | length > 0" true
if [ -n "${FL_SANITIZED:-}" ]; then
    json "$R" "$M.faultline.build_flags.sanitizers | test(\"address\")" true
else
    json "$R" "$M.faultline.build_flags.sanitizers" '"off"'
fi

# the machine
json "$R" "$M.machine.kernel" "\"$(uname -r)\""
json "$R" "$M.machine.hostname" "\"$(uname -n)\""
json "$R" "$M.machine.cpus_usable" "$(nproc)"
json "$R" "$M.machine.cpus" "$(getconf _NPROCESSORS_ONLN)"
json "$R" "$M.machine.memory_bytes" "$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)"
model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
[ -z "$model" ] || json "$R" "$M.machine.cpu_model" "$(jq -cn --arg m "$model" '$m')"

# the scenario as run, and the seed
json "$R" "$M.scenario_sha256" "\"$(sha256sum < "$SCN" | cut -d' ' -f1)\""
json "$R" "$M.seed" 4242
json "$R" .seed 4242

# the target: the filesystem the file lives on
json "$R" "$M.target.kind" '"file"'
json "$R" "$M.target.fs_type" "\"$(findmnt -n -o FSTYPE -T "$WORK")\""
json "$R" "$M.target.mount_point" "\"$(findmnt -n -o TARGET -T "$WORK")\""
json "$R" "$M.target.mount_options" "\"$(findmnt -n -o VFS-OPTIONS -T "$WORK")\""

# versions found on this machine
ver_of() { # PROGRAM ARGS...: its first line, or "not found"
    if command -v "$1" > /dev/null 2>&1; then "$@" 2>&1 | head -n 1; else echo "not found"; fi
}
json "$R" "$M.versions.tgtd" "\"$(ver_of tgtd --version)\""
json "$R" "$M.versions.glusterfs" "\"$(ver_of glusterfs --version | sed 's/^glusterfs //')\""
nl=$(awk '/define LIBNL_VERSION/ { gsub(/"/, "", $3); print $3 }' /usr/include/libnl3/netlink/version.h)
json "$R" "$M.versions.libnl" "\"$nl\""
iscsi=$(dpkg-query -W -f '${Version}' libiscsi7 2>/dev/null || true)
[ -z "$iscsi" ] || json "$R" "$M.versions.libiscsi | startswith(\"$iscsi \")" true

# the hosts: this one
json "$R" "[$M.hosts[] | select(.name == \"client\") | [.hostname, .kernel, .via]]" \
    "[[\"$(uname -n)\",\"$(uname -r)\",\"local\"]]"
json "$R" "$M.gather_s < 1" true

# the sections for people
contains "$WORK/run/report.txt" "manifest:"
contains "$WORK/run/report.txt" "kernel $(uname -r)"
contains "$WORK/run/report.txt" "sha256 $(sha256sum < "$SCN" | cut -d' ' -f1), seed 4242"
contains "$WORK/run/report.html" "<h2>Manifest</h2>"
contains "$WORK/run/report.html" "$(uname -r)"

# a verify writes it too (the scenario's copy hashes the same)
expect_code 0 "$FAULTLINE" verify "$WORK/run" --quiet
json "$R" .mode '"verify"'
json "$R" "$M.scenario_sha256" "\"$(sha256sum < "$SCN" | cut -d' ' -f1)\""
json "$R" "$M.seed" 4242
json "$R" "$M.target.fs_type" "\"$(findmnt -n -o FSTYPE -T "$WORK")\""
contains "$WORK/run/report.txt" "manifest:"

# a file tree: the filesystem of its directory
mkdir "$WORK/tree"
cat > "$WORK/tree.scn" <<EOS
[scenario]
name = tree
duration = 1s
[target]
kind = files
path = $WORK/tree
size = 1MiB
[workload]
class = large
EOS
expect_code 0 "$FAULTLINE" run "$WORK/tree.scn" --out "$WORK/run-tree" --quiet
json "$WORK/run-tree/report.json" "$M.target.kind" '"files"'
json "$WORK/run-tree/report.json" "$M.target.fs_type" "\"$(findmnt -n -o FSTYPE -T "$WORK/tree")\""

# a loop device: no model or serial of its own, its backing file instead
if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null; then
    truncate -s 8M "$WORK/disk.img"
    DEV=$(losetup -f --show "$WORK/disk.img") || fail "losetup cannot attach a loop device"
    detach() { losetup -d "$DEV"; }
    at_exit detach
    printf '[scenario]\nname = dev\nduration = 1s\n[target]\nkind = blockdev\npath = %s\n' \
        "$DEV" > "$WORK/dev.scn"
    expect_code 0 "$FAULTLINE" run "$WORK/dev.scn" --out "$WORK/run-dev" --quiet
    D=$WORK/run-dev/report.json
    json "$D" "$M.target.kind" '"blockdev"'
    json "$D" "$M.target.device" "\"$(basename "$DEV")\""
    json "$D" "$M.target.backing_file" "\"$(realpath "$WORK/disk.img")\""
fi
pass
