#!/usr/bin/env bash
# mkexample.sh regenerates codec-unsigned-fastpath.hg.patch, the built-in
# example's Mercurial-era patch, with real Mercurial.
#
# It rebuilds the founding story on today's codec/: a Mercurial repository
# whose first changeset holds codec/ with the 2014 bug (fastSize lists the
# unsigned integer types only as pointers, so unsigned values take
# the reflection path), and a second changeset that fixes it, exported with
# 'hg export' as a contributor of the time would have mailed it.
#
# Everything that goes into a changeset hash is fixed (files, users, dates,
# messages), so running it again on unchanged sources gives the same bytes.
# The hashes cover all of codec/, so any edit there changes them (and only
# them): internal/example's tests check the rest of the patch against a
# fresh run, and that it still applies in reverse to today's codec/.
#
# Usage: docs/examples/mkexample.sh [OUTPUT]   (needs hg: apt-get install mercurial)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/docs/examples/codec-unsigned-fastpath.hg.patch}

command -v hg >/dev/null || { echo "mkexample.sh: hg not found; install Mercurial (apt-get install mercurial)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HGPLAIN=1 HGRCPATH="$tmp/hgrc" HGENCODING=utf-8 TZ=UTC
: > "$HGRCPATH"

repo=$tmp/repo
hg init "$repo"
mkdir -p "$repo/codec"
cp "$root"/codec/*.go "$repo/codec/"

# The bug: drop the unsigned value types from fastSize's four integer cases
# (and only there: the encoders' own switches never see what fastSize refuses).
fast=$repo/codec/fast.go
sed -i -E '/^func fastSize/,/^}/ s/^(\tcase (bool, )?int(8|16|32|64)), uint(8|16|32|64), /\1, /' "$fast"
changed=$(diff "$root/codec/fast.go" "$fast" | grep -c '^>' || true)
if [ "$changed" != 4 ]; then
	echo "mkexample.sh: expected to change 4 case lines in codec/fast.go, changed $changed;" >&2
	echo "fastSize's case lines must read 'case int16, uint16, *int16, *uint16:' and so on" >&2
	exit 1
fi

cd "$repo"
hg add -q codec
hg commit -u 'Codec Authors <codec-authors@example.com>' -d '2014-10-30 17:00:00 +0000' \
	-m 'codec: fast binary codec for fixed-size data'

cp "$root/codec/fast.go" codec/fast.go
hg commit -u 'Pat Gopher <pat@example.com>' -d '2014-11-06 10:32:00 -0800' -l - <<'MSG'
codec: check for unsigned integers in fastSize

fastSize listed the unsigned integer types only as pointers, so
Write of a uint8, uint16, uint32 or uint64 value missed the fast path
and went through reflection: correct, but much slower than the same
value as a signed integer. List each unsigned value type beside its
signed peer.

Reads are unchanged: they take pointers, which were listed.

LGTM=reviewer
R=golang-codereviews, reviewer
CC=golang-codereviews
https://codereview.appspot.com/100000001
MSG

hg export -r tip > "$out"
echo "wrote $out"
