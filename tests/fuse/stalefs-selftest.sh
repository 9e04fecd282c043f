#!/bin/sh
# stalefs-selftest.sh STALEFS: proves that the stalefs binary behaves as the tests that use it
# rely on.  One backing directory is mounted twice, plainly and with --stale; the plain mount
# plays the other client.  The stale mount must keep serving the pages it read before even after
# the other client changed them (also to O_DIRECT reads), read back its own writes, serve the
# current data after SIGUSR1, and otherwise behave as a file system.  Each check compares against
# data that differs from what a wrong answer would give, so a coherent (or broken) stalefs fails.
#
# Needs root (FUSE mounts); exits 77 without.  Prints "ok   stalefs" or "FAIL stalefs: why".
# shellcheck disable=SC2015 # "A && B || fail": fails when either is false, as meant
set -eu

NAME=stalefs
fail() {
    echo "FAIL $NAME: $*" >&2
    exit 1
}
skip() {
    echo "SKIP $NAME: $*" >&2
    exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root to mount FUSE file systems"
[ $# = 1 ] || {
    echo "usage: $0 STALEFS_BINARY" >&2
    exit 2
}
BIN=$1
[ -x "$BIN" ] || fail "$BIN is not an executable"
[ -c /dev/fuse ] || skip "no /dev/fuse"
for tool in awk cmp dd fallocate head sed stat timeout truncate; do
    command -v "$tool" > /dev/null || fail "$tool is missing"
done

PAGE=4096
PLAIN_PID='' PLAIN_START='' STALE_PID='' STALE_START=''

# t CMD...: CMD, which touches a mount, ended if the daemon hangs instead of hanging the test
t() { timeout 30 "$@"; }

# mounted DIR: DIR is a mount point (from /proc, so that a hung daemon cannot hang the check)
mounted() { awk -v m="$1" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts; }

# starttime PID: when PID started, in clock ticks after boot (field 22 of /proc/PID/stat)
starttime() {
    _stat=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 0
    # shellcheck disable=SC2086 # split into fields on purpose
    set -- $_stat
    echo "${20}"
}

# alive PID START: PID is still the process that started at START and has not exited; a PID
# that was reaped and given to another process is never taken for one of ours.
alive() {
    [ -n "$1" ] && [ -n "$2" ] || return 1
    _stat=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
    # shellcheck disable=SC2086
    set -- "$2" $_stat
    [ "$2" != Z ] && [ "$2" != X ] && [ "${21}" = "$1" ]
}

unmount() {
    mounted "$1" || return 0
    timeout 10 fusermount3 -u "$1" 2> /dev/null || umount -l "$1"
}

# stop PID START: gives a daemon whose mount is gone 2 s to leave, then ends it; returns (and
# reaps) its exit status.
stop() {
    [ -n "$1" ] || return 0
    _i=0
    while alive "$1" "$2" && [ "$_i" -lt 50 ]; do
        [ "$_i" != 20 ] || kill -TERM "$1"
        _i=$((_i + 1))
        sleep 0.1
    done
    ! alive "$1" "$2" || kill -KILL "$1"
    wait "$1"
}

cleanup() {
    _code=$?
    set +e
    unmount "$T/plain"
    unmount "$T/stale"
    stop "$PLAIN_PID" "$PLAIN_START"
    stop "$STALE_PID" "$STALE_START"
    if [ "$_code" != 0 ]; then
        for _m in plain stale; do
            [ ! -s "$T/$_m.log" ] || sed "s/^/$_m daemon: /" "$T/$_m.log" >&2
        done
    fi
    if mounted "$T/plain" || mounted "$T/stale"; then
        echo "$NAME: $T is still mounted, left in place" >&2
    else
        rm -rf "$T"
    fi
    exit "$_code"
}

T=$(mktemp -d /tmp/stalefs-selftest.XXXXXX) || fail "cannot make a temporary directory"
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$T/back" "$T/plain" "$T/stale"
B=$T/back P=$T/plain S=$T/stale

# wait_mounted DIR PID START: up to 10 s for the daemon to mount DIR
wait_mounted() {
    _i=0
    until mounted "$1"; do
        alive "$2" "$3" || fail "the daemon for $1 exited before mounting it (its log follows)"
        _i=$((_i + 1))
        [ "$_i" -le 100 ] || fail "$1 is not mounted after 10 s"
        sleep 0.1
    done
}

"$BIN" "$B" "$P" -f > "$T/plain.log" 2>&1 &
PLAIN_PID=$!
PLAIN_START=$(starttime "$PLAIN_PID")
"$BIN" --stale "$B" "$S" -f > "$T/stale.log" 2>&1 &
STALE_PID=$!
STALE_START=$(starttime "$STALE_PID")
wait_mounted "$P" "$PLAIN_PID" "$PLAIN_START"
wait_mounted "$S" "$STALE_PID" "$STALE_START"

# same A B WHY: A and B hold the same bytes, else fail with WHY
same() { t cmp -s "$1" "$2" || fail "$3"; }
# differ A B WHY: a check whose data would not tell right from wrong proves nothing
differ() {
    _rc=0
    t cmp -s "$1" "$2" || _rc=$?
    [ $_rc = 1 ] || fail "$3"
}
# page FILE N OUT [FLAG]: page N of FILE into OUT
page() { t dd if="$1" of="$3" bs=$PAGE skip="$2" count=1 status=none ${4:+"$4"}; }
# put FILE N PAGEFILE [FLAG]: PAGEFILE written over page N of FILE
put() { t dd if="$3" of="$1" bs=$PAGE seek="$2" count=1 conv=notrunc,fsync status=none ${4:+"$4"}; }
size() { t stat -c %s "$1"; }

# (a) written by the other client, read by the stale one: the first read fills the cache.
head -c 65536 /dev/urandom > "$T/old"
t dd if="$T/old" of="$P/f" bs=64k conv=fsync status=none || fail "(a) cannot write $P/f"
same "$B/f" "$T/old" "(a) the backing file does not hold what the plain mount wrote"
same "$S/f" "$T/old" "(a) the stale mount does not read what the plain mount wrote"

# (b) the other client overwrites the file in place; the stale mount keeps every old page.
head -c 65536 /dev/urandom > "$T/new"
t dd if="$T/new" of="$P/f" bs=64k conv=fsync,notrunc status=none || fail "(b) cannot rewrite $P/f"
same "$P/f" "$T/new" "(b) the plain mount does not read the new data"
same "$B/f" "$T/new" "(b) the backing file does not hold the new data"
i=0
while [ $i -lt 16 ]; do
    page "$T/old" $i "$T/want"
    page "$T/new" $i "$T/other"
    differ "$T/want" "$T/other" "(b) page $i of the old and new data are the same"
    page "$S/f" $i "$T/got" || fail "(b) cannot read page $i through the stale mount"
    same "$T/got" "$T/want" "(b) page $i through the stale mount is not the old data"
    page "$S/f" $i "$T/got" iflag=direct || fail "(b) cannot read page $i with O_DIRECT"
    same "$T/got" "$T/want" "(b) page $i read with O_DIRECT through the stale mount is not old"
    i=$((i + 1))
done
same "$S/f" "$T/old" "(b) the stale mount does not return the old data for the whole file"

# (c) the stale mount's own writes, a whole page and an unaligned write across two pages, are
# read back by itself (its other pages stay old) and by the other client.
head -c $PAGE /dev/urandom > "$T/mine"
head -c 100 /dev/urandom > "$T/small"
cp "$T/old" "$T/stale-view"
cp "$T/new" "$T/plain-view"
for f in "$T/stale-view" "$T/plain-view" "$S/f"; do
    put "$f" 5 "$T/mine" || fail "(c) cannot write page 5 of $f"
    t dd if="$T/small" of="$f" bs=100 seek=$((2 * PAGE - 10)) oflag=seek_bytes conv=notrunc \
        status=none || fail "(c) cannot write 100 bytes across pages 1 and 2 of $f"
done
differ "$T/stale-view" "$T/old" "(c) the write changed nothing"
same "$S/f" "$T/stale-view" "(c) the stale mount does not read back its own writes over old data"
same "$P/f" "$T/plain-view" "(c) the plain mount does not see the stale mount's writes"
same "$B/f" "$T/plain-view" "(c) the backing file does not hold the stale mount's writes"

# (d) SIGUSR1 drops the cache: the stale mount returns the current data.
differ "$S/f" "$B/f" "(d) the stale mount already returns the current data before SIGUSR1"
# A descriptor opened before the signal must see it too: the kernel's page cache is kept out.
exec 4< "$S/f"
t dd bs=$PAGE count=1 status=none <&4 > "$T/got" || fail "(d) cannot read page 0 through fd 4"
page "$T/stale-view" 0 "$T/want"
same "$T/got" "$T/want" "(d) page 0 through an open descriptor is not the stale mount's data"
alive "$STALE_PID" "$STALE_START" || fail "(d) the stale daemon is gone"
kill -USR1 "$STALE_PID"
i=0
until grep -q 'SIGUSR1: cache dropped' "$T/stale.log"; do
    i=$((i + 1))
    [ $i -le 50 ] || fail "(d) the stale daemon did not log dropping its cache within 5 s"
    sleep 0.1
done
t dd bs=$PAGE count=1 status=none <&4 > "$T/got" || fail "(d) cannot read page 1 through fd 4"
exec 4<&-
page "$T/plain-view" 1 "$T/want"
page "$T/stale-view" 1 "$T/other"
differ "$T/want" "$T/other" "(d) page 1 of the current and stale data are the same"
same "$T/got" "$T/want" "(d) after SIGUSR1 a descriptor opened before does not read current data"
same "$S/f" "$B/f" "(d) after SIGUSR1 the stale mount does not return the current data"
same "$S/f" "$T/plain-view" "(d) after SIGUSR1 the stale mount returns neither old nor current data"

# (e) create, truncate, rename, unlink through the stale mount, as on any file system.
printf hello > "$T/hello"
t cp "$T/hello" "$S/e1" || fail "(e) cannot create $S/e1"
t ls "$S" | grep -qx e1 || fail "(e) ls of the stale mount does not list e1"
[ "$(size "$S/e1")" = 5 ] || fail "(e) e1 is not 5 bytes"
same "$S/e1" "$T/hello" "(e) e1 does not read back"
t truncate -s 10000 "$S/e1" || fail "(e) cannot truncate e1 to 10000 bytes"
cp "$T/hello" "$T/want" && truncate -s 10000 "$T/want"
[ "$(size "$S/e1")" = 10000 ] && [ "$(size "$B/e1")" = 10000 ] ||
    fail "(e) e1 is not 10000 bytes after truncate"
same "$S/e1" "$T/want" "(e) e1 grown by truncate does not read as hello and zeros"
t truncate -s 3 "$S/e1" || fail "(e) cannot truncate e1 to 3 bytes"
printf hel > "$T/want"
[ "$(size "$S/e1")" = 3 ] || fail "(e) e1 is not 3 bytes after truncate"
same "$S/e1" "$T/want" "(e) e1 shrunk by truncate does not read as hel"
for f in "$T/want" "$S/e1"; do
    t dd if="$T/hello" of="$f" bs=5 seek=5000 oflag=seek_bytes conv=notrunc status=none ||
        fail "(e) cannot write past the end of $f"
done
[ "$(size "$S/e1")" = 5005 ] || fail "(e) e1 is not 5005 bytes after a write past its end"
same "$S/e1" "$T/want" "(e) e1 written past its end does not read back"
for f in "$T/want" "$S/e1"; do
    # shellcheck disable=SC2016 # $1 is for the inner shell
    t sh -c 'printf "!" >> "$1"' sh "$f" || fail "(e) cannot append to $f"
done
same "$S/e1" "$T/want" "(e) e1 appended to does not read back"
t mv "$S/e1" "$S/e2" || fail "(e) cannot rename e1 to e2"
[ ! -e "$S/e1" ] && [ ! -e "$B/e1" ] || fail "(e) e1 still exists after its rename"
same "$S/e2" "$T/want" "(e) e2 does not hold what e1 held"
t mkdir "$S/d" || fail "(e) cannot make directory d"
t mv "$S/e2" "$S/d/e3" || fail "(e) cannot rename e2 to d/e3"
! t rmdir "$S/d" 2> /dev/null || fail "(e) rmdir removed a directory that is not empty"
t rm "$S/d/e3" || fail "(e) cannot unlink d/e3"
t rmdir "$S/d" || fail "(e) cannot remove the empty directory d"
[ ! -e "$S/d" ] && [ ! -e "$B/d" ] || fail "(e) d still exists after rmdir"
t cp "$T/old" "$S/r1" && t cp "$T/new" "$S/r2" || fail "(e) cannot create r1 and r2"
same "$S/r2" "$T/new" "(e) r2 does not read back"
t mv "$S/r1" "$S/r2" || fail "(e) cannot rename r1 over r2"
same "$S/r2" "$T/old" "(e) r2 renamed over does not read as r1"
t cp "$T/hello" "$S/r2" || fail "(e) cannot rewrite r2"
same "$S/r2" "$T/hello" "(e) r2 rewritten (O_TRUNC) through the stale mount does not read back"
t chmod 600 "$S/r2" && [ "$(t stat -c %a "$B/r2")" = 600 ] || fail "(e) chmod does not reach r2"
t touch -d '2001-02-03 04:05:06' "$S/r2" || fail "(e) cannot set the times of r2"
[ "$(t stat -c %Y "$S/r2")" = "$(stat -c %Y "$B/r2")" ] || fail "(e) touch does not reach r2"
t cp "$T/hello" "$S/u" || fail "(e) cannot create u"
exec 3< "$S/u"
t rm "$S/u" || fail "(e) cannot unlink the open file u"
[ ! -e "$S/u" ] || fail "(e) u still exists after unlink"
# read(2) only: stat of an unlinked open file fails in stalefs (libfuse's hard_remove)
got=
IFS= read -r got <&3 || true
exec 3<&-
[ "$got" = hello ] || fail "(e) the unlinked open file u reads as '$got', not hello"
# shellcheck disable=SC2012 # the names are known
listing() { t ls -A "$1" | sort | tr '\n' ' '; }
[ "$(listing "$S")" = "f r2 " ] || fail "(e) the stale mount lists $(listing "$S")"
[ "$(listing "$B")" = "f r2 " ] || fail "(e) the backing directory holds $(listing "$B")"

# (f) a 64 MiB fallocated file: right size, 4 KiB O_DIRECT reads and writes work, an O_DIRECT
# read still gets the cached page, and concurrent readers agree.
t fallocate -l 64M "$S/big" || fail "(f) cannot fallocate 64 MiB"
[ "$(size "$S/big")" = 67108864 ] && [ "$(size "$B/big")" = 67108864 ] ||
    fail "(f) big is not 64 MiB after fallocate"
head -c $PAGE /dev/zero > "$T/zero"
put "$S/big" 1000 "$T/mine" oflag=direct || fail "(f) an O_DIRECT write to the stale mount failed"
page "$S/big" 1000 "$T/got" iflag=direct || fail "(f) an O_DIRECT read of the stale mount failed"
same "$T/got" "$T/mine" "(f) page 1000 does not read back what O_DIRECT wrote"
page "$B/big" 1000 "$T/got"
same "$T/got" "$T/mine" "(f) page 1000 of the backing file does not hold what O_DIRECT wrote"
page "$S/big" 2000 "$T/got" iflag=direct || fail "(f) cannot read page 2000"
same "$T/got" "$T/zero" "(f) page 2000 of a new file is not zeros"
put "$P/big" 2000 "$T/mine" oflag=direct || fail "(f) an O_DIRECT write to the plain mount failed"
page "$S/big" 2000 "$T/got" iflag=direct || fail "(f) cannot read page 2000 again"
same "$T/got" "$T/zero" "(f) an O_DIRECT read of the stale mount saw the other client's write"
page "$P/big" 2000 "$T/got" iflag=direct || fail "(f) cannot read page 2000 of the plain mount"
same "$T/got" "$T/mine" "(f) the plain mount does not read its own O_DIRECT write"
[ "$(size "$S/big")" = 67108864 ] || fail "(f) big is not 64 MiB after the writes"
rm -f "$T/want"
truncate -s 64M "$T/want"
put "$T/want" 1000 "$T/mine"
pids=
for _ in 1 2 3 4; do
    t cmp -s "$S/big" "$T/want" &
    pids="$pids $!"
done
for pid in $pids; do
    wait "$pid" || fail "(f) a concurrent reader of big through the stale mount got other data"
done

# The daemons must leave cleanly when unmounted, without a sanitizer report (ASan builds).
for m in plain stale; do
    unmount "$T/$m" || fail "cannot unmount $T/$m"
done
set +e
stop "$PLAIN_PID" "$PLAIN_START"
plain_rc=$?
stop "$STALE_PID" "$STALE_START"
stale_rc=$?
set -e
PLAIN_PID='' STALE_PID=''
for m in plain stale; do
    ! grep -qE 'Sanitizer|runtime error' "$T/$m.log" ||
        fail "the $m daemon reported a sanitizer error (its log follows)"
done
[ $plain_rc = 0 ] || fail "the plain daemon exited with status $plain_rc (its log follows)"
[ $stale_rc = 0 ] || fail "the stale daemon exited with status $stale_rc (its log follows)"
echo "ok   $NAME"
