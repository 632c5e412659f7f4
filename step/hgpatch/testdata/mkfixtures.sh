#!/usr/bin/env bash
# mkfixtures.sh makes the Mercurial patch fixtures with real Mercurial.
#
#	mkfixtures.sh OUT [TREES]
#
# writes OUT/NAME.patch for every case below. With TREES, it also writes
# TREES/NAME/base (the files the patch applies to) and TREES/NAME/want (the
# files 'hg import' produces from the patch on that base), so that a test can
# port NAME.patch onto a Git copy of base and compare the result with want.
# A case that hg itself refuses to import has no want directory.
#
# Everything is deterministic (fixed users and dates), so running it again
# gives the same bytes: 'mkfixtures.sh step/hgpatch/testdata' refreshes
# the committed fixtures, and step/port's tests run it into a temporary
# directory to get the trees.
set -euo pipefail

out=$(realpath "$1")
trees=${2:+$(realpath "$2")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export HGPLAIN=1 HGRCPATH=/dev/null HGENCODING=utf-8 TZ=UTC
export HGUSER='Gopher <gopher@golang.org>'

# ci MESSAGE DATE [USER]: commit everything with a fixed date ("UNIX OFFSET").
ci() { hg commit -q -A -m "$1" -d "$2" -u "${3:-$HGUSER}"; }

# emit NAME BASE: save the patch on stdin as NAME.patch and, with TREES, the
# tree at revision BASE and the tree 'hg import' makes of the patch on it.
emit() {
	local name=$1 base=$2
	cat >"$out/$name.patch"
	[ -n "$trees" ] || return 0
	mkdir -p "$trees/$name"
	hg update -q -C "$base"
	snapshot "$trees/$name/base"
	if hg import -q --no-commit "$out/$name.patch" 2>/dev/null; then
		snapshot "$trees/$name/want"
	fi
	hg update -q -C tip
	hg purge -q --all --config extensions.purge= 2>/dev/null || true
}

snapshot() {
	mkdir -p "$1"
	tar -C . --exclude=./.hg -cf - . | tar -C "$1" -xf -
}

# newrepo NAME: start a fresh repository for one case.
newrepo() {
	rm -rf "$work/$1"
	hg init "$work/$1"
	cd "$work/$1"
}

lines() { seq "$1" "$2" | sed 's/^/line /'; }

# export: the simple case, and a description that needs cleaning: review
# trailers, an issue reference and a '---' line that git am would cut at.
newrepo export
mkdir -p src/pkg/encoding/binary
lines 1 30 >src/pkg/encoding/binary/binary.go
ci "initial" "1400000000 0"
sed -i 's/^line 15$/line fifteen/' src/pkg/encoding/binary/binary.go
ci "encoding/binary: add fast path for unsigned integers

intDataSize missed the unsigned types.
---
This line follows a '---' line and is still part of the message.

Fixes issue 8311.

LGTM=r
R=golang-codereviews, r
CC=golang-codereviews
https://codereview.appspot.com/123456" "1412345678 25200"
hg export -r tip | emit export 0

# series: three changesets in one stream, in zones +0530, +0545 and +1345.
newrepo series
lines 1 10 >a.txt
ci "initial" "1400000000 0"
echo "line 11" >>a.txt
ci "a: add line 11" "1412345678 -19800"
sed -i 's/^line 1$/line one/' a.txt
ci "a: name line one" "1412345679 -20700"
echo "new" >b.txt
ci "b: new file" "1412345680 -49500"
hg export -r 1:3 | emit series 0

# git: what only git-style diffs can say. A user with no e-mail address, and
# a zone 30 minutes west of UTC.
newrepo git
lines 1 5 >old.txt
lines 1 5 >copied.txt
lines 1 5 >gone.txt
lines 1 5 >script.sh
printf 'a\nb\n' >'with space.txt'
ci "initial" "1400000000 0"
hg mv -q old.txt new.txt
echo "line 6" >>new.txt
hg cp -q copied.txt copy.txt
echo "copy only" >>copy.txt
hg rm -q gone.txt
chmod +x script.sh
: >empty.txt
ln -s new.txt link
hg mv -q 'with space.txt' 'still with space.txt'
echo c >>'still with space.txt'
ci "all: git-only operations" "1412345678 1800" "gopher"
hg export --git -r tip | emit git 0

# binary: a binary file added and another changed (git-style literals).
newrepo binary
printf 'GIF89a\000\001\002\003' >logo.gif
ci "initial" "1400000000 0"
printf '\000\001\002\003\004\005\377' >data.bin
printf 'GIF89a\000\001\002\004\005' >logo.gif
ci "images: update" "1412345678 0"
hg export --git -r tip | emit binary 0

# plainbinary: the same change as a plain export, which cannot carry it.
hg export -r tip | emit plainbinary 0

# gitdelta: a binary change as a Git delta, which Git writes when the new
# content is close to the old (made with git; hg applies it too).
newrepo gitdelta
{ head -c 20000 /dev/zero; seq 1 2000; } >big.bin
ci "initial" "1400000000 0"
git init -q "$work/gitdelta.git"
cp big.bin "$work/gitdelta.git/"
sed -i 's/^1000$/one thousand/' big.bin
(
	cd "$work/gitdelta.git"
	git add big.bin
	cp "$work/gitdelta/big.bin" big.bin
	git -c core.autocrlf=false diff --binary
) | emit gitdelta 0

# eol: a CRLF file and files without a final newline, git-style and plain.
newrepo eol
printf 'one\r\ntwo\r\nthree\r\n' >dos.txt
printf 'no newline' >nonl.txt
printf 'keep\nlast' >last.txt
ci "initial" "1400000000 0"
printf 'one\r\nTWO\r\nthree\r\n' >dos.txt
printf 'still no newline' >nonl.txt
printf 'keep\nlast\n' >last.txt
ci "eol: change line endings carefully" "1412345678 0"
hg export --git -r tip | emit eol 0
hg export -r tip | emit eolplain 0

# plain: 'hg diff' output, no metadata: a file modified, added and removed.
newrepo plain
lines 1 20 >keep.txt
lines 1 3 >remove.txt
ci "initial" "1400000000 0"
sed -i 's/^line 10$/line ten/' keep.txt
echo "added" >add.txt
hg rm -q remove.txt
ci "change" "1412345678 0"
hg diff -r 0 -r 1 | emit plain 0

# review: a raw patch as the old review site served it: 'hg diff --git'
# with each 'diff --git' line replaced by 'Index:' and a line of '='.
hg diff --git -r 0 -r 1 |
	sed -E 's|^diff --git a/(.*) b/(.*)$|Index: \2\n===================================================================|' |
	emit review 0

# offset: the base the patch is applied to has gained lines above the
# change, so the hunk applies 5 lines further down.
newrepo offset
lines 1 40 >f.txt
ci "initial" "1400000000 0"
sed -i 's/^line 30$/line thirty/' f.txt
ci "f: thirty" "1412345678 0"
hg export -r 1 >"$work/offset.patch"
hg update -q -C 0
{ lines 101 105; lines 1 40; } >f.txt
ci "f: five more lines at the top" "1412345600 0"
emit offset 2 <"$work/offset.patch"

# fuzz: a context line of the hunk changed in the base; hg imports it with
# fuzz (patchbot needs -fuzz 1 or more).
newrepo fuzz
lines 1 40 >f.txt
ci "initial" "1400000000 0"
sed -i 's/^line 30$/line thirty/' f.txt
ci "f: thirty" "1412345678 0"
hg export -r 1 >"$work/fuzz.patch"
hg update -q -C 0
sed -i 's/^line 27$/line XXVII/' f.txt
ci "f: 27 in roman" "1412345600 0"
emit fuzz 2 <"$work/fuzz.patch"

# conflict: the changed line itself differs in the base: no fuzz helps.
newrepo conflict
lines 1 40 >f.txt
lines 1 10 >g.txt
ci "initial" "1400000000 0"
sed -i 's/^line 30$/line thirty/' f.txt
sed -i 's/^line 5$/line five/' g.txt
ci "f, g: thirty and five" "1412345678 0"
hg export -r 1 >"$work/conflict.patch"
hg update -q -C 0
sed -i 's/^line 30$/line 30 changed elsewhere/' f.txt
ci "f: someone else's change" "1412345600 0"
emit conflict 2 <"$work/conflict.patch"

# merge: a merge changeset has two '# Parent' lines; its diff is against
# the first parent.
newrepo merge
lines 1 10 >f.txt
ci "initial" "1400000000 0"
echo "from one" >one.txt
ci "one" "1400000100 0"
hg update -q 0
echo "from two" >two.txt
ci "two" "1400000200 0"
hg merge -q 1 >/dev/null
sed -i 's/^line 1$/line merged/' f.txt
ci "merge one into two" "1412345678 -3600"
hg export -r tip | emit merge 2

# remap: a patch from before Go moved src/pkg to src, applied to a base
# after the move (want is the same change at the new path).
newrepo remap
mkdir -p src/pkg/strings src/cmd/go
lines 1 10 >src/pkg/strings/strings.go
lines 1 10 >src/cmd/go/main.go
ci "initial" "1400000000 0"
sed -i 's/^line 4$/line four/' src/pkg/strings/strings.go
sed -i 's/^line 4$/line four/' src/cmd/go/main.go
echo "package strings" >src/pkg/strings/new.go
ci "strings, cmd/go: four" "1412345678 0"
hg export --git -r 1 >"$work/remap.patch"
hg update -q -C 0
hg mv -q src/pkg/strings src/strings
ci "all: move src/pkg to src" "1410000000 0"
if [ -n "$trees" ]; then
	# hg cannot remap; make want by importing the remapped patch.
	sed 's#\([ab]\)/src/pkg/#\1/src/#g' "$work/remap.patch" >"$work/remapped.patch"
	emit remap 2 <"$work/remapped.patch"
fi
cp "$work/remap.patch" "$out/remap.patch"
