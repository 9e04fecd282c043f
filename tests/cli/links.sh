# tier: quick
# passes: plain
# The documentation holds together: every relative link of every .md file
# of the repository (README.md, docs/, tests/, bench/...) names a file that
# exists inside the repository, and a #fragment names a heading of that
# file; README.md is the front door, so it stays under 20 KB and has no
# link that leaves the repository at all.  Nothing may point at a path
# above the repository's root.
. "$(dirname "$0")/../lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 > /dev/null || fail "python3 is missing (make deps installs it)"

size=$(wc -c < "$ROOT/README.md")
[ "$size" -lt 20480 ] || fail "README.md is $size bytes; the front door stays under 20 KB (move detail to docs/)"

cat > "$WORK/links.py" << 'EOF'
import os, re, subprocess, sys

root = os.path.realpath(sys.argv[1])
try:
    files = subprocess.run(['git', '-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '*.md'], capture_output=True,
                           text=True, check=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    files = []
if not files:  # not a git checkout (an unpacked tarball): every .md outside build/
    files = [os.path.relpath(os.path.join(d, f), root)
             for d, dirs, names in os.walk(root) if '/build' not in d + '/' and '/.git' not in d
             for f in names if f.endswith('.md')]

def slug(heading):
    """The anchor a heading gets (GitHub's rule): lower case, punctuation
    dropped, blanks to hyphens."""
    s = re.sub(r'`', '', heading.strip().lower())
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')

def text_of(path):
    """The file without its fenced code blocks and inline code spans, where
    brackets are code, not links."""
    out, fenced = [], False
    for line in open(path, encoding='utf-8'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('\n')
            continue
        out.append('\n' if fenced else re.sub(r'`[^`]*`', '', line))
    return out

anchors_cache = {}
def anchors(path):
    if path not in anchors_cache:
        seen, result = {}, set()
        for line in text_of(path):
            result.update(re.findall(r'<a\s+(?:id|name)="([^"]+)"', line))
            m = re.match(r'^#{1,6}\s+(.*)$', line)
            if not m:
                continue
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            result.add(s if n == 0 else '%s-%d' % (s, n))
        anchors_cache[path] = result
    return anchors_cache[path]

bad = 0
checked = 0
for rel in sorted(files):
    path = os.path.join(root, rel)
    for lineno, line in enumerate(text_of(path), 1):
        if '../shared' in line:
            print('%s:%d: points outside the repository: ../shared' % (rel, lineno))
            bad += 1
        for target in re.findall(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', line):
            checked += 1
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                if rel == 'README.md':
                    print('%s:%d: %s leaves the repository (README links only to its own files)'
                          % (rel, lineno, target))
                    bad += 1
                continue
            name, _, frag = target.partition('#')
            dest = os.path.realpath(os.path.join(os.path.dirname(path), name)) if name else path
            if dest != root and not dest.startswith(root + os.sep):
                print('%s:%d: %s is outside the repository' % (rel, lineno, target))
                bad += 1
                continue
            if not os.path.exists(dest):
                print('%s:%d: %s: no such file' % (rel, lineno, target))
                bad += 1
                continue
            if frag and dest.endswith('.md') and frag not in anchors(dest):
                print('%s:%d: %s: %s has no heading #%s' % (rel, lineno, target,
                      os.path.relpath(dest, root), frag))
                bad += 1
print('%d links in %d .md files checked, %d bad' % (checked, len(files), bad))
sys.exit(1 if bad else 0)
EOF

# The check must be able to fail: a planted tree with one link of each kind
# of mistake, and one good link of each kind.
mkdir -p "$WORK/plant/docs"
printf '# Top\n\n## A b\n<a id="c-d"></a>\n' > "$WORK/plant/docs/ok.md"
printf '# t\n\n[1](docs/ok.md) [2](docs/ok.md#a-b) [3](#t) [10](docs/ok.md#c-d) [4](docs/nope.md) [5](#nope)\n[6](docs/ok.md#x) [7](https://example.org/) [8](../../etc/passwd) `[9](nope.md)`\n' \
    > "$WORK/plant/README.md"
set +e
python3 "$WORK/links.py" "$WORK/plant" > "$WORK/plant.out" 2>&1
code=$?
set -e
[ "$code" = 1 ] || { cat "$WORK/plant.out" >&2; fail "the planted broken links were not refused (exit $code)"; }
for want in 'docs/nope.md: no such file' '#nope: README.md has no heading #nope' \
            'docs/ok.md#x: docs/ok.md has no heading #x' 'https://example.org/ leaves the repository' \
            '../../etc/passwd is outside the repository' '9 links in 2 .md files checked, 5 bad'; do
    contains "$WORK/plant.out" "$want"
done

python3 "$WORK/links.py" "$ROOT" > "$WORK/out" 2>&1 || { cat "$WORK/out" >&2; fail "broken or outside links (above)"; }
cat "$WORK/out"
echo "links: README.md $size bytes"
