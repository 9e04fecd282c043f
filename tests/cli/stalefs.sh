# tier: quick
# passes: plain
# The test's own tool first: tests/fuse/stalefs serves one client stale data
# and nothing else (a plain mount stays coherent, the stale one serves what
# it first read until it writes itself or is told to forget), so that
# clients.sh can trust it to show that cross-client reads catch that.
. "$(dirname "$0")/../lib.sh"

need_root "FUSE mounts"
STALEFS=${STALEFS:-$(cd "$(dirname "$0")/../.." && pwd)/build/stalefs}
[ -x "$STALEFS" ] || fail "$STALEFS is missing (make build/stalefs)"
sh "$(dirname "$0")/../fuse/stalefs-selftest.sh" "$STALEFS" > "$WORK/selftest.log" 2>&1 ||
    { cat "$WORK/selftest.log" >&2; fail "stalefs does not behave as specified"; }
grep -q "^ok   stalefs" "$WORK/selftest.log" || { cat "$WORK/selftest.log" >&2; fail "no verdict"; }
pass
