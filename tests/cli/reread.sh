# tier: quick
# `reread`: that share of reads goes to a block the same stream wrote in its
# last 8 writes.  On a target far larger than a second of writes, random
# reads mostly find blocks never written ("unwritten"); with reread = 100%
# every read after a stream's first write finds data, so only the reads a
# stream makes before its first write can be unwritten.  On a file and on a
# file tree.
. "$(dirname "$0")/../lib.sh"

scn() { # NAME KIND SIZE REREAD [LINE...]
    n=$1 kind=$2 size=$3 rr=$4
    shift 4
    {
        printf '[scenario]\nname = %s\nduration = 1s\nseed = 7\n' "$n"
        printf '[target]\nkind = %s\npath = %s\nsize = %s\n' "$kind" "$WORK/$n.target" "$size"
        printf '[workload]\nread = 50%%\n'
        [ -z "$rr" ] || printf 'reread = %s\n' "$rr"
        for l in "$@"; do printf '%s\n' "$l"; done
    } > "$WORK/$n.scn"
    [ "$kind" = file ] || mkdir "$WORK/$n.target"
    expect_code 0 "$FAULTLINE" run "$WORK/$n.scn" --out "$WORK/$n" --quiet
    json "$WORK/$n/report.json" .verdict '"pass"'
}

scn plain file 1GiB "" "depth = 4"
scn all file 1GiB 100% "depth = 4"
scn files files 4MiB 100% "class = small" "procs = 4"
# without reread, most reads of a sparse 1 GiB file in 1 s find nothing
# written
json "$WORK/plain/report.json" '.counts.unwritten > .io.reads / 4' true
for n in all files; do
    R=$WORK/$n/report.json
    json "$R" '.io.reads > 100' true
    # at most the reads before each of the 4 streams' first write
    json "$R" '.counts.unwritten <= 40' true
done
pass
