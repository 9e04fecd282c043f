# The include direction of the source tree: a folder may include only
# itself and the folders below it.
#
#   sh tests/layers.sh [ROOT]      (ROOT: the repository, the parent of tests/)
#
#   lib        general code     may include lib
#   checks                      may include lib, checks
#   workloads                   may include lib, checks, workloads
#   faults                      may include lib, faults
#   harness    (and harness/*/) may include lib, checks, workloads, faults, harness
#
# Inside harness/ the rooms are layers too: a file in a room may include its
# own room and the rooms after it in this order (harness/ROOM/...; a file at
# the top of harness/, or in a room not listed, is a violation):
#
#   cli       the verbs' front door: main, cleanup
#   run       run, verify, check, repeat, launch; what a run concludes
#   clients   the exchange between the ranks of a run over several clients
#   compare   two reports side by side: a run's read back through report's
#             result (result.h)
#   report    every file of a run's report, the summary of repeats, a suite's reports
#   live      a run while it runs: the crew of workers, faults on schedule,
#             events, resources, heal, evidence, the manifest
#   judge     pass or fail: the verdict from the metrics
#   scenario  what a scenario file means
#   lab       the embedded labs
#   storage   a real cluster's storage ([cluster])
#
# The record's renderers (harness/report/result*.c and result*.h, all but
# result_read.c, which maps report.json onto the record) tell a result from
# the record alone: they may include only lib/, the record's headers
# (harness/report/result*.h) and report_files.h, never the live run's.
# A suite's reports (harness/report/suite*.c and suite*.h) are told from
# suite.json alone: they may include only lib/, harness/report/suite*.h,
# report_files.h and result_html.h (the look every report.html shares).
#
# Every #include "..." of the *.c and *.h files under those folders (at any
# depth) is resolved against the directory of the file that has it, `..`
# taken out; the top folder of the result must be allowed, and the file must
# exist.  <...> includes are not looked at; nor are tests/ and bench/.  A
# folder that does not exist holds nothing.  Exit 1 with FILE:LINE for each
# violation, 0 when there is none.
set -eu

ROOT=${1:-$(dirname "$0")/..}
cd "$ROOT" || exit 2
LAYERS="lib checks workloads faults harness"
ROOMS="cli run clients compare report live judge scenario lab storage"

room_rank() { # ROOM: its place in $ROOMS (1 = the top), 0 when it is none of them
    i=0
    for r in $ROOMS; do
        i=$((i + 1))
        [ "$r" != "$1" ] || { echo $i; return; }
    done
    echo 0
}

allowed() { # FOLDER: the folders it may include, comma-separated
    case $1 in
    lib) echo "lib" ;;
    checks) echo "lib, checks" ;;
    workloads) echo "lib, checks, workloads" ;;
    faults) echo "lib, faults" ;;
    harness) echo "lib, checks, workloads, faults, harness" ;;
    esac
}

INCLUDES=$(mktemp "${TMPDIR:-/tmp}/fl-layers-XXXXXX")
trap 'rm -f "$INCLUDES"' EXIT
dirs=""
for d in $LAYERS; do [ ! -d "$d" ] || dirs="$dirs $d"; done
TAB=$(printf '\t')
# FILE TAB LINE TAB TARGET for every quoted include, TARGET resolved and
# normalised (a TARGET above ROOT keeps its leading "..").
[ -z "$dirs" ] || find $dirs -type f \( -name '*.c' -o -name '*.h' \) 2> /dev/null | LC_ALL=C sort |
    while IFS= read -r file; do
        awk -v file="$file" '
            function resolve(dir, inc,    parts, n, out, m, i, r) {
                n = split(dir "/" inc, parts, "/")
                m = 0
                for (i = 1; i <= n; i++) {
                    if (parts[i] == "" || parts[i] == ".") continue
                    if (parts[i] == ".." && m > 0 && out[m] != "..") { m--; continue }
                    out[++m] = parts[i]
                }
                r = ""
                for (i = 1; i <= m; i++) r = r (i > 1 ? "/" : "") out[i]
                return r
            }
            BEGIN { dir = file; if (!sub(/\/[^\/]*$/, "", dir)) dir = "." }
            /^[ \t]*#[ \t]*include[ \t]*"/ {
                inc = $0
                sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc)
                if (!sub(/".*$/, "", inc)) next   # no closing quote: not an include
                printf "%s\t%d\t%s\n", file, FNR, resolve(dir, inc)
            }' "$file"
    done > "$INCLUDES"

checked=0
bad=0
while IFS="$TAB" read -r file line target; do
    checked=$((checked + 1))
    from=${file%%/*}
    to=${target%%/*}
    if [ ! -f "$target" ]; then
        echo "$file:$line: $from includes $target, which does not exist"
        bad=$((bad + 1))
        continue
    fi
    case ", $(allowed "$from"), " in
    *", $to, "*) ;;
    *)
        echo "$file:$line: $from includes $target ($from may include only: $(allowed "$from"))"
        bad=$((bad + 1))
        ;;
    esac
    # the rooms of harness/
    if [ "$from" = harness ] && [ "$to" = harness ]; then
        rest=${file#harness/}
        case $rest in */*) fr=${rest%%/*} ;; *) fr="" ;; esac
        rest=${target#harness/}
        case $rest in */*) tr=${rest%%/*} ;; *) tr="" ;; esac
        fi=$(room_rank "$fr")
        ti=$(room_rank "$tr")
        if [ "$fi" = 0 ] || [ "$ti" = 0 ]; then
            echo "$file:$line: includes $target: every file of harness/ lives in a room ($ROOMS)"
            bad=$((bad + 1))
        elif [ "$ti" -lt "$fi" ]; then
            echo "$file:$line: harness/$fr includes $target (a room may include only itself and the rooms after it: $ROOMS)"
            bad=$((bad + 1))
        fi
    fi
    case $file in
    harness/report/result_read.c) ;;
    harness/report/result*)
        case $target in
        lib/* | harness/report/result*.h | harness/report/report_files.h) ;;
        *)
            echo "$file:$line: a renderer of the record includes $target (only lib/, harness/report/result*.h and report_files.h)"
            bad=$((bad + 1))
            ;;
        esac
        ;;
    harness/report/suite*)
        case $target in
        lib/* | harness/report/suite*.h | harness/report/report_files.h | harness/report/result_html.h) ;;
        *)
            echo "$file:$line: a suite's report includes $target (only lib/, harness/report/suite*.h, report_files.h and result_html.h)"
            bad=$((bad + 1))
            ;;
        esac
        ;;
    esac
done < "$INCLUDES"

# a file at the top of harness/ is in no room
for f in harness/*.c harness/*.h; do
    [ -f "$f" ] || continue
    echo "$f: every file of harness/ lives in a room ($ROOMS)"
    bad=$((bad + 1))
done

if [ $bad -gt 0 ]; then
    echo "layers: $bad violations ($checked includes checked)"
    exit 1
fi
echo "layers: $checked includes checked, none goes up"
