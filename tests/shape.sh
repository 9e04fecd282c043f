# The shape of the source tree: small files, short functions, no circles.
#
#   sh tests/shape.sh [BUILD_DIR]     (BUILD_DIR: build, whose obj/ has the objects)
#
# Run from the repository.  Looks at the *.c and *.h files under lib, checks,
# workloads, faults and harness (tests/ and bench/ are not looked at):
#
#   long-file F (N lines)
#                     a .c file over 900 lines
#   long-function F NAME (N lines, from line L)
#                     a function over 100 lines, counted from its name's
#                     line to its closing brace (our style puts a
#                     function's braces in column 1, and nothing else's)
#   call-circle A B ...
#                     .c files whose objects use each other's symbols round
#                     a loop (nm of BUILD_DIR/obj), named in sorted order
#   include-circle A B ...
#                     headers that include each other round a loop
#   own-fork F (CALL) a .c file other than lib/spawner.c whose object calls
#                     fork() (or vfork, posix_spawn, system, popen): every
#                     child is forked by the spawner, from a
#                     descriptor table without the target's files
#                     (lib/spawner.h)
#
# Exit 1 with every finding, 0 when there is none; 2 when the objects are
# missing.
set -u

BUILD=${1:-build}
ROOTS="lib checks workloads faults harness"
MAX_FILE=900
MAX_FUNCTION=100
[ -d lib ] && [ -d tests ] || { echo "shape: run from the repository" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fl-shape-XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

# The sources, without the programs of their own (not part of libfaultline).
find $ROOTS -type f -name '*.c' ! -name main.c ! -name wcache.c ! -path harness/lab/disk/disk.c \
    2> /dev/null | LC_ALL=C sort > "$TMP/c"
find $ROOTS -type f -name '*.h' 2> /dev/null | LC_ALL=C sort > "$TMP/h"

# --- long files and long functions
while IFS= read -r f; do
    n=$(wc -l < "$f")
    [ "$n" -le $MAX_FILE ] || echo "long-file $f ($n lines)"
    awk -v f="$f" -v max=$MAX_FUNCTION '
        # the name of a function: the last line before its "{" that starts
        # in column 1 with a letter (its return type and name)
        # (not a label, not a declaration, not inside a function)
        /^[A-Za-z_]/ && !inside && $0 !~ /(;|:)[ \t]*$/ { head = FNR; name = $0 }
        /^\{/ { start = head ? head : FNR; inside = 1; next }
        /^\}/ && inside {
            n = FNR - start + 1
            if (n > max) {
                fn = name
                sub(/\(.*$/, "", fn); sub(/^.*[ *]/, "", fn)
                printf "long-function %s %s (%d lines, from line %d)\n", f, fn, n, start
            }
            inside = 0; head = 0
        }' "$f"
done < "$TMP/c" > "$TMP/findings"

# --- circles of calls: who uses whose symbols, from the objects
: > "$TMP/defs"
: > "$TMP/uses"
missing=0
while IFS= read -r f; do
    o=$BUILD/obj/${f%.c}.o
    if [ ! -f "$o" ]; then
        echo "shape: $o is missing: build first (make $BUILD/libfaultline.a)" >&2
        missing=1
        continue
    fi
    nm "$o" | awk -v f="$f" -v defs="$TMP/defs" -v uses="$TMP/uses" '
        $1 == "U" { print $2, f >> uses; next }
        NF == 3 && $2 ~ /^[TDBRVWC]$/ { print $3, f >> defs }'
done < "$TMP/c"
[ $missing = 0 ] || exit 2
# "A B": A uses a symbol B defines.  tsort names every loop it meets.
awk 'NR == FNR { def[$1] = $2; next } ($1 in def) && def[$1] != $2 { print $2, def[$1] }' \
    "$TMP/defs" "$TMP/uses" | LC_ALL=C sort -u > "$TMP/calls"
loops() { # EDGES KIND: one line per loop, the files in tsort's order
    tsort "$1" 2>&1 > /dev/null | awk -v kind="$2" '
        /input contains a loop/ { flush(); next }
        /^tsort: / { f = $0; sub(/^tsort: /, "", f); files[++n] = f }
        function flush(   i, j, t, s) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && files[j - 1] > files[j]; j--) {
                    t = files[j]; files[j] = files[j - 1]; files[j - 1] = t
                }
            s = kind
            for (i = 1; i <= n; i++) s = s " " files[i]
            if (n) print s
            n = 0
        }
        END { flush() }' | LC_ALL=C sort -u
}
loops "$TMP/calls" call-circle >> "$TMP/findings"
awk '$1 ~ /^(fork|vfork|posix_spawnp?|system|popen)$/ && $2 != "lib/spawner.c" {
        print "own-fork", $2, "(" $1 ")" }' "$TMP/uses" |
    LC_ALL=C sort -u >> "$TMP/findings"

# --- circles of includes, between headers
while IFS= read -r h; do
    d=$(dirname "$h")
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$h" | while IFS= read -r inc; do
        t=$(realpath -m --relative-to=. "$d/$inc")
        echo "$h $t"
    done
done < "$TMP/h" > "$TMP/includes"
loops "$TMP/includes" include-circle >> "$TMP/findings"

# --- the verdict
bad=$(wc -l < "$TMP/findings")
cat "$TMP/findings"
files=$(wc -l < "$TMP/c")
if [ "$bad" -gt 0 ]; then
    echo "shape: $bad findings in $files C files"
    exit 1
fi
echo "shape: $files C files: none over $MAX_FILE lines, no function over $MAX_FUNCTION, no circle," \
    "no fork() but the spawner's"
