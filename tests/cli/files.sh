# tier: quick
# The files backend on a local directory: a tree with data and metadata
# streams passes; then the tree is damaged the ways a filesystem can damage
# it (a file lost, a file grown, a stray name, a block in the wrong file, a
# metadata stream's file gone) and `faultline verify` reports exactly that,
# with paths.  Scenario errors name file:line; a directory faultline did not
# make is never emptied.
. "$(dirname "$0")/../lib.sh"

mkdir "$WORK/fs"
cat > "$WORK/tree.scn" <<EOS
[scenario]
name = tree
duration = 2s
[target]
kind = files
path = $WORK/fs
size = 4MiB
[workload]
class = large
pattern = sequential
read = 25%
procs = 4
flush = 32
metadata = 2
EOS
expect_code 0 "$FAULTLINE" check "$WORK/tree.scn"
expect_code 0 "$FAULTLINE" run "$WORK/tree.scn" --out "$WORK/run"
contains "$WORK/err" "faultline: made the target: 4 files in" # (a long tree shows progress)
R=$WORK/run/report.json
T=$WORK/fs/faultline-tree
json "$R" .verdict '"pass"'
json "$R" '.findings | length' 0
json "$R" .sweep.reads 1024 # 4 files of 1 MiB, every block written
json "$R" '.metadata.streams' 2
json "$R" '[.metadata.ops.create, .metadata.ops.rename, .metadata.ops.unlink, .metadata.ops.stat, .metadata.ops.readdir] | map(. > 0) | all' true
json "$R" '[.expectations[] | select(.metric | test("files|sizes")) | .pass]' '[true,true,true]'
[ -f "$T/.faultline-tree" ] || fail "no marker in $T"
[ "$(find "$T" -maxdepth 1 -name 'f-*' | wc -l)" = 4 ] || fail "the large class made $(ls "$T")"
[ -s "$WORK/run/meta-0.model" ] && [ -s "$WORK/run/meta-1.model" ] || fail "no metadata models saved"

# --- damage ---
rm "$T/f-00003"                                  # a file lost
printf x >> "$T/f-00002"                         # a file grown
echo stray > "$T/stray"                          # a name nothing made
dd if="$T/f-00000" of="$T/f-00001" bs=4096 skip=7 seek=5 count=1 conv=notrunc status=none
# a file the first metadata stream made (present in its model: state 1)
set -- $(awk '$1 == "d" && $4 == 1 { d[$2] = 1 } $1 == "f" && $4 == 1 && d[$2] { print $2, $3; exit }' \
    "$WORK/run/meta-0.model")
[ $# = 2 ] || fail "the model of meta-0 holds no file"
GONE=$(printf 'meta-0/d%s/f%03d' "$1" "$2")
rm "$T/$GONE"

expect_code 1 "$FAULTLINE" verify "$WORK/run" --quiet
json "$R" .mode '"verify"'
json "$R" '[.counts["missing-file"], .counts["wrong-size"], .counts["unexpected-file"], .counts.misdirected]' '[2,1,1,1]'
json "$R" '[.findings[] | select(.class == "missing-file") | .path] | sort' "[\"$T/f-00003\",\"$T/$GONE\"]"
json "$R" '[.findings[] | select(.class == "wrong-size") | [.path, .detail]]' "[[\"$T/f-00002\",\"1048577 bytes, must be 1048576\"]]"
json "$R" '[.findings[] | select(.class == "unexpected-file") | .path]' "[\"$T/stray\"]"
json "$R" '[.findings[] | select(.class == "misdirected") | [.path, .offset]]' "[[\"$T/f-00001\",20480]]"
# the lost file's blocks cannot be read; nothing else fails
json "$R" '[.findings[] | select(.class == "io-error") | .path] | unique' "[\"$T/f-00003\"]"
json "$R" '.counts["io-error"]' 256
json "$R" '[.findings[] | select(.class | test("file|size")) | .block] | unique' '[null]'
json "$R" '[.expectations[] | select(.pass == false) | .metric] | sort' '["io_errors","misdirected","missing_files","unexpected_files","wrong_sizes"]'
contains "$WORK/run/report.txt" "$T/$GONE (verify, after"
xmllint --noout "$WORK/run/junit.xml" || fail "junit.xml is not well-formed"

# --- a new run over the damaged tree makes it whole again (it is ours) ---
expect_code 0 "$FAULTLINE" run "$WORK/tree.scn" --out "$WORK/run2" --quiet
[ ! -e "$T/stray" ] || fail "the earlier tree was not emptied"

# --- a directory faultline did not make is refused and left as it was ---
mkdir -p "$WORK/other/faultline-tree"
echo precious > "$WORK/other/faultline-tree/notes"
sed "s|path = $WORK/fs|path = $WORK/other|" "$WORK/tree.scn" > "$WORK/other.scn"
expect_code 2 "$FAULTLINE" run "$WORK/other.scn" --out "$WORK/run3" --quiet
contains "$WORK/err" "not a tree of faultline"
[ "$(cat "$WORK/other/faultline-tree/notes")" = precious ] || fail "a foreign directory was touched"

# --- scenario errors ---
printf '[target]\nkind = files\npath = %s\n[workload]\ndirect = yes\n' "$WORK/fs" > "$WORK/bad1.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad1.scn"
contains "$WORK/err" "bad1.scn:5: direct: kind = files runs the sync engine"
printf '[target]\nkind = file\npath = %s/x.img\nsize = 1MiB\n[workload]\nclass = small\n' "$WORK" > "$WORK/bad2.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad2.scn"
contains "$WORK/err" "bad2.scn:6: class: only for kind = files"
printf '[target]\nkind = files\npath = %s\n[workload]\nprocs = 2\ndepth = 4\n' "$WORK/fs" > "$WORK/bad3.scn"
expect_code 2 "$FAULTLINE" check "$WORK/bad3.scn"
contains "$WORK/err" "bad3.scn:5: procs and depth say the same"
printf '[target]\nkind = files\npath = %s/tree.scn\n' "$WORK" > "$WORK/bad4.scn"
expect_code 2 "$FAULTLINE" run "$WORK/bad4.scn" --out "$WORK/run4" --quiet
contains "$WORK/err" "is not a directory"
pass
