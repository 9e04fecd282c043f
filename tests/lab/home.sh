# tier: full
# The labs' own files live where only root can write (/var/lib/faultline/labs
# for their data, /run/faultline for their state and the run registry), and
# faultline refuses every level of them that another user could change,
# and every link planted where it would write:
#   - the labs' home or a parent of it owned by another user, or writable by
#     group or others: `lab up` refuses, naming the owner, the mode and the
#     fix, and builds nothing;
#   - a lab's directory there already (a directory, or a link to one) with
#     no state naming it: refused and left alone, nothing written through it;
#   - a link, or another user's file, where the lab's state file goes:
#     refused by up, down and status, nothing written through it;
#   - the old home /var/tmp/faultline-labs made first by another user, mode
#     777: not used at all;
#   - a lab an older faultline brought up there: refused with how to take it
#     down, and `lab down` removes it (only while that home is root's);
#   - a link, or another user's file, in the run registry: cleanup refuses
#     it, runs nothing it names, and exits 2.
# Each planted change is put back on exit, also on failure.
. "$(dirname "$0")/../lib.sh"

need_root "the labs' home under /var/lib and /run"
lab_prefix
HOME_DIR=/var/lib/faultline/labs
STATE=/run/faultline/labs/$P-iscsi.state
OLD=/var/tmp/faultline-labs

# nothing_built: the refused up left no state, namespace or lab directory
nothing_built() {
    [ ! -e "$STATE" ] && [ ! -L "$STATE" ] || fail "a state file was left: $(ls -l "$STATE")"
    ! ip netns list | grep -q "^$P-" || fail "namespaces were made: $(ip netns list | grep "^$P-")"
}

# The homes exist (a first up makes them); their owner and mode are put
# back on exit, whatever the test changed.
expect_code 0 "$FAULTLINE" lab up iscsi
contains "$WORK/out" "$HOME_DIR/$P-iscsi/lun.img"
expect_code 0 "$FAULTLINE" lab down iscsi
[ ! -e "$HOME_DIR/$P-iscsi" ] || fail "lab down left $HOME_DIR/$P-iscsi"
for d in /var/lib/faultline "$HOME_DIR" /run/faultline/labs; do
    [ "$(stat -c '%U %a' "$d")" = "root 700" ] || [ "$(stat -c '%U %a' "$d")" = "root 755" ] ||
        fail "$d is $(stat -c '%U %a' "$d"), not root's alone"
done
SAVED=$(stat -c '%u:%g %a' /var/lib/faultline "$HOME_DIR" | tr '\n' ' ')
restore_homes() {
    set -- $SAVED
    chown "$1" /var/lib/faultline && chmod "$2" /var/lib/faultline
    chown "$3" "$HOME_DIR" && chmod "$4" "$HOME_DIR"
}
at_exit restore_homes

# --- the labs' home owned by another user ---
chown nobody "$HOME_DIR"
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "the labs' home is not root's alone: $HOME_DIR is owned by nobody (uid 65534) with mode"
contains "$WORK/err" "chown root:root $HOME_DIR; chmod go-w $HOME_DIR"
nothing_built
restore_homes

# --- a parent of it writable by others ---
chmod 777 /var/lib/faultline
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "/var/lib/faultline is owned by root (uid 0) with mode 777"
nothing_built
restore_homes

# --- the labs' home replaced by a link ---
mv "$HOME_DIR" "$HOME_DIR.moved"
restore_link() { [ ! -L "$HOME_DIR" ] || rm "$HOME_DIR"; [ ! -d "$HOME_DIR.moved" ] || mv "$HOME_DIR.moved" "$HOME_DIR"; }
at_exit restore_link
ln -s "$WORK" "$HOME_DIR"
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "$HOME_DIR is a symbolic link (to $WORK)"
nothing_built
[ ! -e "$WORK/$P-iscsi" ] || fail "the lab was made through the link"
restore_link

# --- a lab directory that no state names: a directory, then a link ---
mkdir "$HOME_DIR/$P-iscsi"
echo mine > "$HOME_DIR/$P-iscsi/keep"
drop_planted() { rm -rf "$HOME_DIR/$P-iscsi"; }
at_exit drop_planted
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "$HOME_DIR/$P-iscsi is there already (a directory), and no lab state names it"
nothing_built
[ "$(ls "$HOME_DIR/$P-iscsi")" = keep ] && [ "$(cat "$HOME_DIR/$P-iscsi/keep")" = mine ] ||
    fail "the refused up changed the planted directory: $(ls -la "$HOME_DIR/$P-iscsi")"
rm -r "$HOME_DIR/$P-iscsi"
mkdir "$WORK/victim"
ln -s "$WORK/victim" "$HOME_DIR/$P-iscsi"
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "$HOME_DIR/$P-iscsi is there already (a symbolic link)"
nothing_built
[ -z "$(ls -A "$WORK/victim")" ] || fail "the up wrote through the link: $(ls -A "$WORK/victim")"
[ -L "$HOME_DIR/$P-iscsi" ] || fail "the planted link was not left as it was"
rm "$HOME_DIR/$P-iscsi"

# --- a link, then another user's file, where the state file goes ---
echo "not a lab" > "$WORK/victim.state"
ln -s "$WORK/victim.state" "$STATE"
drop_state() { rm -f "$STATE"; }
at_exit drop_state
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "$STATE: Too many levels of symbolic links (a symbolic link: refused)"
expect_code 2 "$FAULTLINE" lab down iscsi
contains "$WORK/err" "(a symbolic link: refused)"
expect_code 1 "$FAULTLINE" lab status iscsi
contains "$WORK/out" "(a symbolic link: refused)"
[ "$(cat "$WORK/victim.state")" = "not a lab" ] || fail "the state was written through the link"
! ip netns list | grep -q "^$P-" || fail "namespaces were made"
rm "$STATE"
printf 'kind iscsi\nprefix %s\nsubnet 250\nnetns %s-iscsi-planted\nready\n' "$P" "$P" > "$STATE"
chown nobody "$STATE"
expect_code 2 "$FAULTLINE" lab down iscsi
contains "$WORK/err" "refusing $STATE: it is owned by nobody (uid 65534) with mode 644"
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "refusing $STATE: it is owned by nobody"
rm "$STATE"

# --- the old home, made first by another user: not used ---
if [ -e "$OLD" ]; then
    OLD_SAVED=$(stat -c '%u:%g %a' "$OLD")
else
    mkdir "$OLD"
    OLD_SAVED=made
fi
restore_old() {
    if [ "$OLD_SAVED" = made ]; then
        rm -rf "$OLD/$P-iscsi"
        rmdir "$OLD"
    else
        rm -rf "$OLD/$P-iscsi"
        chown "${OLD_SAVED% *}" "$OLD" && chmod "${OLD_SAVED#* }" "$OLD"
    fi
}
at_exit restore_old
chown nobody "$OLD" && chmod 777 "$OLD"
expect_code 0 "$FAULTLINE" lab up iscsi
[ ! -e "$OLD/$P-iscsi" ] || fail "lab up wrote under $OLD"
contains "$WORK/out" "$HOME_DIR/$P-iscsi/lun.img"
expect_code 0 "$FAULTLINE" lab down iscsi

# --- a lab an older faultline brought up under the old home ---
mkdir "$OLD/$P-iscsi"
echo old > "$OLD/$P-iscsi/lun.img"
printf 'kind iscsi\nprefix %s\nsubnet 250\nopt size 1048576\ntree %s\nfile %s\nready\n' \
    "$P" "$OLD/$P-iscsi" "$OLD/$P-iscsi/lun.img" > "$STATE"
expect_code 1 "$FAULTLINE" lab status iscsi
contains "$WORK/out" "lab iscsi (prefix $P) keeps its files in $OLD/$P-iscsi, where an older faultline put them"
contains "$WORK/out" "take it down (faultline lab down iscsi --prefix $P)"
expect_code 2 "$FAULTLINE" lab up iscsi
contains "$WORK/err" "take it down (faultline lab down iscsi --prefix $P) and bring it up again"
[ -e "$OLD/$P-iscsi/lun.img" ] || fail "the refused up removed the old lab's files"
# its home is still another user's: down removes nothing there
expect_code 2 "$FAULTLINE" lab down iscsi
contains "$WORK/err" "refusing to remove $OLD/$P-iscsi: it, or $OLD, is not root's alone"
[ -e "$OLD/$P-iscsi" ] || fail "down removed a lab directory under another user's home"
chown root "$OLD" && chmod 755 "$OLD"
expect_code 0 "$FAULTLINE" lab down iscsi
contains "$WORK/out" "is down"
[ ! -e "$OLD/$P-iscsi" ] || fail "down left the old lab's directory"
[ ! -e "$STATE" ] || fail "down left the old lab's state"

# --- the run registry: a link and another user's entry are refused ---
mkdir -p /run/faultline/runs
mkdir "$WORK/planted-run"
printf 'U 1 command - touch %s/ran\n' "$WORK" > "$WORK/planted-run/undo.log"
chmod 600 "$WORK/planted-run/undo.log"
printf '%s/planted-run\n1 1\n' "$WORK" > "$WORK/entry"
ln -s "$WORK/entry" "/run/faultline/runs/$P-link"
cp "$WORK/entry" "/run/faultline/runs/$P-theirs"
chown nobody "/run/faultline/runs/$P-theirs"
drop_entries() { rm -f "/run/faultline/runs/$P-link" "/run/faultline/runs/$P-theirs"; }
at_exit drop_entries
# a refused entry may name a run that still needs undoing: exit 2, never
# "nothing to clean up"
(cd "$WORK" && expect_code 2 "$FAULTLINE" cleanup)
contains "$WORK/err" "cleanup: 2 entries of /run/faultline/runs refused (above)"
! grep -q "nothing to clean up" "$WORK/out" || fail "cleanup said there was nothing to clean up"
contains "$WORK/err" "run registry: refusing /run/faultline/runs/$P-link: a symbolic link"
contains "$WORK/err" "run registry: refusing /run/faultline/runs/$P-theirs: it is owned by nobody (uid 65534)"
[ ! -e "$WORK/ran" ] || fail "cleanup ran what a refused registry entry named"
drop_entries

pass
