# tier: quick
# The documents and the installation:
#   (a) docs/scenario.md and man/faultline-scenario.5 are what `make docs`
#       makes with the binary under test (its tables), byte for byte, and the
#       example scenario in them checks clean;
#   (b) both manual pages lint clean (groff -ww, mandoc -T lint);
#   (c) man/faultline.1 names every verb, lab subverb and --option that the
#       --help outputs print;
#   (d) make install into a DESTDIR (the binary under test, nothing built)
#       gives a faultline that runs from anywhere, its manual pages, the
#       scenarios and the completion; make uninstall removes all of it;
#   (e) the completion completes the verbs, the lab kinds, a kind's hosts,
#       a verb's options and the files each verb takes.
. "$(dirname "$0")/../lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $FAULTLINE in /*) ;; *) FAULTLINE=$PWD/$FAULTLINE ;; esac
for tool in make groff mandoc man bash; do
    command -v $tool > /dev/null || fail "$tool is missing (make deps installs it)"
done
# make in the repository, a make of its own (not a sub-make of whoever runs
# the tests), its output in $WORK/make.log
mk() {
    MAKEFLAGS= MAKELEVEL= make --no-print-directory -C "$ROOT" "$@" > "$WORK/make.log" 2>&1 || {
        cat "$WORK/make.log" >&2
        fail "make $* failed"
    }
}

# --- (a) the generated documents are up to date
mk docs DOCS_FAULTLINE="$FAULTLINE" DOCS_OUT="$WORK/gen"
n=0
for f in $(cd "$WORK/gen" && find . -type f | LC_ALL=C sort); do
    f=${f#./}
    n=$((n + 1))
    [ -f "$ROOT/$f" ] || fail "$f is not checked in: run make docs and add it"
    diff -u "$ROOT/$f" "$WORK/gen/$f" > "$WORK/diff" || {
        cat "$WORK/diff" >&2
        fail "$f is stale (above: what the tables make of it now): run make docs"
    }
done
for f in docs/scenario.md man/faultline-scenario.5; do
    [ -f "$WORK/gen/$f" ] || fail "make docs does not make $f"
done
echo "docs: $n generated documents up to date"
# the minimum scenario of its description is a good one (the second block)
awk '/^```ini$/ { n++; on = n == 2; next } /^```$/ { on = 0 } on' "$ROOT/docs/scenario.md" \
    > "$WORK/minimum.scn"
grep -q '^\[target\]' "$WORK/minimum.scn" || fail "no example scenario in docs/scenario.md"
expect_code 0 "$FAULTLINE" check "$WORK/minimum.scn"

# --- (b) the manual pages lint clean
for page in man/faultline.1 man/faultline-scenario.5; do
    groff -ww -man -z "$ROOT/$page" > "$WORK/lint" 2>&1 || true
    mandoc -T lint "$ROOT/$page" >> "$WORK/lint" 2>&1 || true
    [ ! -s "$WORK/lint" ] || { cat "$WORK/lint" >&2; fail "$page does not lint clean"; }
done

# --- (c) faultline(1) names every verb and option
# The page as text: fonts, \& and quotes out, \- as -, \e as \, macro names off.
sed -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/"//g' \
    -e 's/^\.[A-Z][A-Z]* *//' "$ROOT/man/faultline.1" > "$WORK/page"
# the tags of COMMANDS (the line after each .TP): the verbs and their options
awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH/ { on = 0 } on && tp { print } { tp = /^\.TP/ }' \
    "$ROOT/man/faultline.1" |
    sed -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\-/-/g' -e 's/"//g' -e 's/^\.[A-Z][A-Z]* *//' \
        > "$WORK/tags"
expect_code 0 "$FAULTLINE" --help
sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' "$WORK/out" | sort -u > "$WORK/verbs"
[ "$(wc -l < "$WORK/verbs")" -ge 9 ] || fail "faultline --help lists too few verbs: $(cat "$WORK/verbs")"
cp "$WORK/out" "$WORK/help-main"
for verb in $(cat "$WORK/verbs"); do
    grep -q "^$verb\( \|$\)" "$WORK/tags" || fail "faultline.1 has no COMMANDS entry for $verb"
    sed 's/\\-/-/g' "$ROOT/man/faultline.1" |
        awk -v v="$verb" 'sy && $1 == ".B" && $2 == v { found = 1 } { sy = /^\.SY faultline/ }
                          END { exit !found }' || fail "faultline.1's SYNOPSIS has no faultline $verb"
    set +e
    "$FAULTLINE" "$verb" --help > "$WORK/help-$verb" 2> /dev/null
    set -e
done
# lab's subverbs, from its usage lines: each in a COMMANDS entry of lab
sed -n 's/^.*faultline lab \([a-z|]*\) .*/\1/p' "$WORK/help-lab" | tr '|' '\n' > "$WORK/subverbs"
[ "$(wc -l < "$WORK/subverbs")" -ge 4 ] || fail "lab --help names too few subverbs"
for sub in $(cat "$WORK/subverbs"); do
    grep "^lab " "$WORK/tags" | grep -Eq "(^lab |[|])$sub([| ]|$)" ||
        fail "faultline.1 has no COMMANDS entry for lab $sub"
done
cat "$WORK"/help-* | grep -o -- '--[a-z][a-z-]*' | sort -u > "$WORK/options"
[ "$(wc -l < "$WORK/options")" -ge 20 ] || fail "the --help outputs name too few options"
for opt in $(cat "$WORK/options"); do
    grep -Eq -- "(^|[^a-z-])$opt([^a-z-]|$)" "$WORK/page" || fail "faultline.1 does not name $opt"
done
echo "docs: faultline.1 names $(wc -l < "$WORK/verbs") verbs and $(wc -l < "$WORK/options") options"

# --- (d) make install into a DESTDIR, and make uninstall
WCACHE=$(dirname "$FAULTLINE")/faultline-wcache
[ -x "$WCACHE" ] || WCACHE=$ROOT/build/faultline-wcache
[ -x "$WCACHE" ] || fail "no faultline-wcache next to $FAULTLINE or in build/ (make)"
DISK=$(dirname "$FAULTLINE")/faultline-disk
[ -x "$DISK" ] || DISK=$ROOT/build/faultline-disk
[ -x "$DISK" ] || fail "no faultline-disk next to $FAULTLINE or in build/ (make)"
mk install DESTDIR="$WORK/inst" INSTALL_FAULTLINE="$FAULTLINE" INSTALL_WCACHE="$WCACHE" \
    INSTALL_DISK="$DISK"
P=$WORK/inst/usr/local
for f in bin/faultline bin/faultline-wcache bin/faultline-disk; do
    [ "$(stat -c %a "$P/$f")" = 755 ] || fail "$f is not installed with mode 755"
done
cmp -s "$FAULTLINE" "$P/bin/faultline" || fail "the installed faultline is not the one under test"
for f in share/man/man1/faultline.1:man/faultline.1 \
    share/man/man5/faultline-scenario.5:man/faultline-scenario.5 \
    share/bash-completion/completions/faultline:completion/faultline.bash; do
    cmp -s "$ROOT/${f#*:}" "$P/${f%%:*}" || fail "${f%%:*} is not installed as ${f#*:}"
    [ "$(stat -c %a "$P/${f%%:*}")" = 644 ] || fail "${f%%:*} is not installed with mode 644"
done
for f in "$ROOT"/scenarios/*.scn "$ROOT"/scenarios/thrash/*.scn; do
    cmp -s "$f" "$P/share/faultline/scenarios/${f#"$ROOT"/scenarios/}" ||
        fail "${f#"$ROOT"/scenarios/} is not installed"
done
# from elsewhere, with nothing of the repository around
cd "$WORK"
expect_code 0 "$P/bin/faultline" --version
contains "$WORK/out" "faultline "
expect_code 0 "$P/bin/faultline" check "$P/share/faultline/scenarios/smoke.scn"
MANWIDTH=80 MANPAGER=cat PAGER=cat
export MANWIDTH MANPAGER PAGER
for page in faultline "5 faultline-scenario"; do
    # shellcheck disable=SC2086 # the section and the name, two words
    expect_code 0 man -P cat -M "$P/share/man" $page
    contains "$WORK/out" "SEE ALSO"
done
contains "$WORK/out" "faultline-scenario - the scenario language of faultline"
cd "$ROOT"
# (e) below uses the installed completion and binary; uninstall after it

# --- (e) the completion asks the installed faultline
cat > "$WORK/complete.bash" << 'EOS'
# complete.bash SCRIPT WORD...: what the completion offers for the last WORD
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
_faultline
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
EOS
offers() { # WORD...: the offers, one a line, in $WORK/offers
    bash --norc --noprofile "$WORK/complete.bash" "$P/share/bash-completion/completions/faultline" \
        "$P/bin/faultline" "$@" > "$WORK/offers" 2> "$WORK/offers.err" ||
        { cat "$WORK/offers.err" >&2; fail "the completion failed on '$*'"; }
}
same() { # WANT_FILE WHAT: $WORK/offers is WANT_FILE, sorted
    LC_ALL=C sort -u "$1" > "$WORK/want"
    diff -u "$WORK/want" "$WORK/offers" > "$WORK/diff" || { cat "$WORK/diff" >&2; fail "$2"; }
}
# the verbs
offers ""
{ cat "$WORK/verbs"; echo --help; echo --version; } > "$WORK/want-verbs"
same "$WORK/want-verbs" "faultline <TAB> does not offer the verbs of --help"
for verb in run verify check cleanup compare lab agent build-id help; do
    grep -qx "$verb" "$WORK/offers" || fail "faultline <TAB> does not offer $verb"
done
# the lab kinds: those under "Labs:" in help scenario
"$FAULTLINE" help scenario | awk '/^Labs:/ { sub(/^Labs:/, ""); on = 1 } !on { next } /^$/ { exit }
    $1 != "hosts:" { print $1 }' > "$WORK/kinds"
[ "$(wc -l < "$WORK/kinds")" -ge 3 ] || fail "help scenario lists too few lab kinds: $(cat "$WORK/kinds")"
offers lab up ""
same "$WORK/kinds" "faultline lab up <TAB> does not offer the lab kinds"
offers lab ""
same "$WORK/subverbs" "faultline lab <TAB> does not offer lab's subverbs"
offers lab restart ceph ""
printf '%s\n' client cs1 cs2 cs3 > "$WORK/want-hosts"
same "$WORK/want-hosts" "faultline lab restart ceph <TAB> does not offer the ceph lab's hosts"
offers lab up iscsi --
grep -qx -- --write-cache "$WORK/offers" || fail "lab up iscsi --<TAB> does not offer --write-cache"
! grep -qx -- --ping-timeout "$WORK/offers" || fail "lab up iscsi --<TAB> offers gluster's --ping-timeout"
# a verb's options: those of its usage lines
offers run --
{ sed -n '1,/^$/p' "$WORK/help-run" | grep -o -- '--[a-z][a-z-]*'; echo --help; } > "$WORK/want-run"
same "$WORK/want-run" "faultline run --<TAB> does not offer run's options"
offers help scenario --format ""
printf '%s\n' text markdown man > "$WORK/want-formats"
same "$WORK/want-formats" "help scenario --format <TAB> does not offer the formats"
# files: *.scn and directories for run, directories for verify
mkdir -p "$WORK/here/a-run" "$WORK/here/b"
: > "$WORK/here/x.scn"
: > "$WORK/here/notes.txt"
cd "$WORK/here"
offers run ""
printf '%s\n' a-run b x.scn > "$WORK/want-files"
same "$WORK/want-files" "faultline run <TAB> does not offer *.scn files and directories"
offers verify ""
printf '%s\n' a-run b > "$WORK/want-dirs"
same "$WORK/want-dirs" "faultline verify <TAB> does not offer directories"
cd "$ROOT"

mk uninstall DESTDIR="$WORK/inst"
left=$(find "$WORK/inst" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
pass
