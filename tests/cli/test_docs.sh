#!/bin/sh
# The documentation a clone carries is all a reader has: no tracked file may
# point at a document that is not in the repository (notes kept beside the
# project during development), since a user cannot follow such a reference.
# What a reader needs from them belongs here, citing the paper's own section.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 1. No reference to an outside document in any tracked file (this file
# excepted: it has to name what it looks for).
pat='digest|\.\./shared|shared/papers|shared/notes|(clover|corm|loco|numa|alock|anchors)\.md'
git ls-files -z | grep -zv '^tests/cli/test_docs\.sh$' |
	xargs -0 grep -nIiE "$pat" -- >"$tmp/refs" 2>/dev/null
if [ -s "$tmp/refs" ]; then
	notok "no reference to a document a clone does not have: $(wc -l <"$tmp/refs") found"
	sed 's/^/# /' "$tmp/refs"
else
	ok "no reference to a document a clone does not have"
fi

t_summary
