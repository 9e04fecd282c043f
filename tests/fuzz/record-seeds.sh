# Records the seeds of the journal and metajournal targets from real runs of
# build/faultline (make faultline), after a change of the on-disk formats:
#
#   sh tests/fuzz/record-seeds.sh
#
# journal: state.bin FZ_SEP journal.bin FZ_SEP journal.old of a `file` run
# with 2 workers that ended cleanly, one SIGKILLed 0.7 s in, a `files` run
# and one SIGKILLed 1.5 s in; journals cut to 4 KiB (journal.old is checked
# whole, so clean-w0-whole keeps it whole); variants without journal.old
# (-nold) and without either journal (-nojournal).  metajournal:
# meta-0.journal [FZ_SEP meta-0.model] of a `files` run with metadata = 1
# SIGKILLed 1.5 s in (cut to 4 KiB) and of a short one that ended cleanly.
# Overwrites tests/fuzz/corpus/journal and tests/fuzz/corpus/metajournal.
set -eu
FL=$PWD/build/faultline
[ -x "$FL" ] || { echo "record-seeds: $FL is not built (make faultline)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/fl-seeds-XXXXXX")
pid=
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; rm -rf "$W"' EXIT
SEP=$(printf '\n--faultline-fuzz-file--\n'; echo x)
SEP=${SEP%x}
J=tests/fuzz/corpus/journal
M=tests/fuzz/corpus/metajournal

scn() { # NAME KIND PATH DURATION DEPTH [LINE...]
    n=$1 k=$2 p=$3 d=$4 q=$5
    shift 5
    {
        printf '[scenario]\nname = %s\nduration = %s\njournal_segment = 64KiB\n' "$n" "$d"
        printf '[target]\nkind = %s\npath = %s\nsize = 256KiB\n' "$k" "$p"
        printf '[workload]\nblock = 4KiB\ndepth = %s\nflush = 16\n' "$q"
        for l in "$@"; do printf '%s\n' "$l"; done
    } > "$W/$n.scn"
}
run() { "$FL" run "$W/$1.scn" --out "$W/$1" --quiet > "$W/$1.log" 2>&1; }
killed() { # NAME SECONDS
    "$FL" run "$W/$1.scn" --out "$W/$1" --quiet > "$W/$1.log" 2>&1 &
    pid=$!
    sleep "$2"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
}
cut4k() { [ ! -f "$1" ] || head -c 4096 "$1"; }
join3() { # WORKER_DIR SEED
    { cat "$1/state.bin"; printf '%s' "$SEP"; cut4k "$1/journal.bin"
      printf '%s' "$SEP"; cut4k "$1/journal.old"; } > "$J/$2"
    { cat "$1/state.bin"; printf '%s' "$SEP"; cut4k "$1/journal.bin"; } > "$J/$2-nold"
    cat "$1/state.bin" > "$J/$2-nojournal"
}

mkdir -p "$W/fs" "$W/fsk" "$W/fss"
scn clean file "$W/clean.img" 2s 2
run clean
scn killed file "$W/killed.img" 60s 2
killed killed 0.7
scn files files "$W/fs" 2s 1 "metadata = 1"
run files
scn filesk files "$W/fsk" 60s 1 "metadata = 1"
killed filesk 1.5
scn short files "$W/fss" 300ms 1 "metadata = 1"
run short

rm -rf "$J" "$M"
mkdir -p "$J" "$M"
join3 "$W/clean/worker-0" clean-w0
join3 "$W/clean/worker-1" clean-w1
join3 "$W/killed/worker-0" killed-w0
join3 "$W/files/worker-0" files-w0
d=$W/clean/worker-0
{ cat "$d/state.bin"; printf '%s' "$SEP"; cut4k "$d/journal.bin"; printf '%s' "$SEP"
  cat "$d/journal.old"; } > "$J/clean-w0-whole"
d=$W/filesk/worker-0
{ cat "$d/state.bin"; printf '%s' "$SEP"; cut4k "$d/journal.bin"; } > "$J/files-killed-w0"
head -c 4096 "$W/filesk/meta-0.journal" > "$M/killed"
cat "$W/short/meta-0.journal" > "$M/clean-nomodel"
{ cat "$W/short/meta-0.journal"; printf '%s' "$SEP"; cat "$W/short/meta-0.model"; } > "$M/clean"
{ head -c 2048 "$W/short/meta-0.journal"; printf '%s' "$SEP"; cat "$W/short/meta-0.model"; } > "$M/clean-cut"
ls -l "$J" "$M"
