# tier: quick
# Run a scenario on a file, then damage it the way storage does: flip a byte
# in one block, zero another, copy one block over a third.  `faultline
# verify` must report exactly those three blocks with the right classes and
# nothing else.
. "$(dirname "$0")/../lib.sh"

SCN=$(scenario tamper "pattern = sequential" "read = 25%")
expect_code 0 "$FAULTLINE" run "$SCN" --out "$WORK/run" --quiet
R=$WORK/run/report.json
json "$R" .verdict '"pass"'
json "$R" '.counts | [.["lost-write"], .["stale-read"], .torn, .misdirected, .corrupt, .zeroed, .["io-error"]] | add' 0
json "$R" '.sweep.reads' 256 # every block of the 1 MiB file was written
json "$R" '[.io | has("reads", "writes", "bytes_read", "bytes_written", "errors", "seconds")] | all' true

# report.html's legends: each key's mark in the colour of a curve of the
# page, and each curve's colour on a key (a style rule once greyed them all)
H=$WORK/run/report.html
colours() { sed 's/.*#\([0-9a-f]*\)".*/#\1/' | sort -u; }
grep -o 'class="mk[a-z ]*" style="[a-z-]*:#[0-9a-f]*"' "$H" | colours > "$WORK/marks"
grep -oE '<(polyline|line|polygon|circle) [^>]*(stroke|fill)="#[0-9a-f]*"' "$H" | colours > "$WORK/curves"
grep -o '<polyline [^>]*stroke="#[0-9a-f]*"' "$H" | colours > "$WORK/lines"
[ -s "$WORK/marks" ] || fail "report.html's plots have no legend marks"
[ -z "$(comm -23 "$WORK/marks" "$WORK/curves")" ] || fail "report.html: keys in colours no curve has: $(comm -23 "$WORK/marks" "$WORK/curves")"
[ -z "$(comm -13 "$WORK/marks" "$WORK/lines")" ] || fail "report.html: curves in colours no key has: $(comm -13 "$WORK/marks" "$WORK/lines")"

IMG=$WORK/tamper.img
flip "$IMG" $((10 * 4096 + 777)) # a bit of the byte there, whatever it holds
dd if=/dev/zero of="$IMG" bs=4096 seek=20 count=1 conv=notrunc status=none
dd if="$IMG" of="$IMG" bs=4096 skip=40 seek=30 count=1 conv=notrunc status=none

expect_code 1 "$FAULTLINE" verify "$WORK/run" --quiet
contains "$WORK/out" "FAIL, 3 findings"
json "$R" .verdict '"fail"'
json "$R" .mode '"verify"'
json "$R" '.findings | length' 3
json "$R" '[.findings[] | [.block, .class]] | sort' '[[10,"corrupt"],[20,"zeroed"],[30,"misdirected"]]'
json "$R" '[.counts.corrupt, .counts.zeroed, .counts.misdirected, .counts.ok]' '[1,1,1,253]'
json "$R" '.findings[] | select(.class == "corrupt") | .offset' $((10 * 4096 + 512))
json "$R" '[.findings[] | has("class", "block", "offset", "path", "expected_gen", "found_gen", "written_at", "read_at")] | all' true
json "$R" '[.findings[] | .path] | unique' "[\"$IMG\"]"
json "$R" '[.findings[] | .written_at > 0 and .read_at > .written_at] | all' true
contains "$WORK/run/report.txt" "verify of tamper: FAIL"
# which sector and byte were damaged, not only that the checksum failed
contains "$WORK/run/report.txt" "sector 1 damaged: 1 of its bytes differ from what generation"
contains "$WORK/run/report.txt" "the first at byte 777 of the block"
contains "$WORK/run/report.txt" "holds sector 0 of block 40"
contains "$WORK/run/report.txt" "all zero"
# report.html is the verify's too, with its verdict (it kept the run's PASS),
# its findings, and no plot of the run under that verdict
v=$(jq -r .verdict "$R" | tr a-z A-Z)
badge=$(grep -o '<span class="verdict[^"]*">[^<]*<' "$H" | sed 's/.*">//; s/<$//')
[ "$badge" = "$v" ] || fail "report.html says '$badge', report.json '$v'"
contains "$H" "verify of tamper"
for c in corrupt zeroed misdirected; do contains "$H" "<tr><td>$c</td>"; done
! grep -q '<svg' "$H" || fail "the verify's report.html shows the run's plots"
pass
