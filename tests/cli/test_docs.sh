#!/bin/sh
# The documentation a clone carries is all a reader has.
# 1. No tracked file points at a document that is not in the repository
#    (notes kept beside the project during development): a user cannot
#    follow such a reference. What a reader needs from one belongs here,
#    citing the paper's own section.
# 2. In every README.md of the tree (the top-level one, and those of
#    harness/, plots/, configs/, results/, numa/, primitives/, workloads/*
#    and tests/), each repository path written in backticks (inline or in a
#    fenced block) is in the tree: globs are expanded, {a,b} alternatives
#    too; paths under results/ and bin/ (produced at run time), paths git
#    ignores, and placeholders with a capital-letter word (FILE, DIR, NAME,
#    figN) are skipped.
# 3. Each `netmem SUBCOMMAND` a README.md names is a command `netmem --help`
#    lists, and each --long-flag after it in the same span (up to a pipe,
#    ';', '&&' or a comment) is in `netmem SUBCOMMAND --help`.
# 4. Every relative link of a README.md ([text](PATH#ANCHOR), and an <img>'s
#    src) leads to a file or folder of the tree, and its anchor, if any, to a
#    heading of that file (GitHub's rule: lower case, punctuation dropped,
#    blanks to hyphens, -1, -2... for repeats).
# 5. The top-level README.md is a front door: at most 300 lines, the
#    reference lives in the other READMEs it links to.
# 6. The test command the top-level README gives (its "# the tests" line)
#    is what .ci/run runs: each make target of it, or that target's recipe.
# One TAP line per problem, or one ok line per file when it is clean.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	skip "documentation checks" "not a git work tree (they check what a clone has)"
	t_summary; exit
fi
git ls-files >"$tmp/files"

# 1. No reference to an outside document (this file excepted: it has to
# name what it looks for).
pat='digest|\.\./shared|shared/papers|shared/notes|(clover|corm|loco|numa|alock|anchors)\.md'
grep -v '^tests/cli/test_docs\.sh$' "$tmp/files" | tr '\n' '\0' |
	xargs -0 grep -nIiE "$pat" -- >"$tmp/refs" 2>/dev/null
if [ -s "$tmp/refs" ]; then
	notok "no reference to a document a clone does not have: $(wc -l <"$tmp/refs") found"
	sed 's/^/# /' "$tmp/refs"
else
	ok "no reference to a document a clone does not have"
fi

# spans FILE: "LINE<TAB>text" for every backtick span (one may run over
# lines within a paragraph) and every line of a fenced code block
spans() {
	awk '
	/^[ \t]*```/ { fence = !fence; open = 0; next }
	fence && /\\$/ { if (cont == "") cl = NR; cont = cont substr($0, 1, length($0) - 1) " "; next }
	fence { print (cont == "" ? NR : cl) "\t" cont $0; cont = ""; next }
	/^[ \t]*$/ { open = 0; next }
	{
		line = $0
		while (line != "") {
			i = index(line, "`")
			if (open) {
				if (i == 0) { buf = buf " " line; line = "" }
				else {
					print start "\t" buf " " substr(line, 1, i - 1)
					open = 0; line = substr(line, i + 1)
				}
			} else if (i == 0) line = ""
			else {
				line = substr(line, i + 1); j = index(line, "`")
				if (j == 0) { open = 1; start = NR; buf = line; line = "" }
				else { print NR "\t" substr(line, 1, j - 1); line = substr(line, j + 1) }
			}
		}
	}' "$1"
}

# Every tracked file and every directory above one: what a path may name.
awk -F/ '{ p = ""; for (i = 1; i < NF; i++) { p = p $i "/"; print p } print }' "$tmp/files" |
	sort -u >"$tmp/tree"

# braces WORD: WORD with each {a,b,...} expanded, one a line
braces() {
	case $1 in
	*\{*,*\}*)
		pre=${1%%\{*}; rest=${1#*\{}; alts=${rest%%\}*}; post=${rest#*\}}
		echo "$alts" | tr ',' '\n' | while read -r a; do braces "$pre$a$post"; done ;;
	*) echo "$1" ;;
	esac
}
# in_tree PATH: PATH (a shell glob allowed) names a tracked file or directory
in_tree() {
	case $1 in
	*[*?]*)
		re=$(printf '%s' "${1%/}" | sed -e 's/[.+^$()|\\[]/\\&/g' -e 's/\*/[^\/]*/g' -e 's/?/[^\/]/g')
		grep -qE "^$re/?\$" "$tmp/tree" ;;
	*) grep -qxF -e "${1%/}" -e "${1%/}/" "$tmp/tree" ;;   # no glob: no sed to start
	esac
}

# 2. Repository paths in backticks
docs=$(grep -E '(^|/)README\.md$' "$tmp/files")
for doc in $docs; do
	spans "$doc" >"$tmp/spans"
	bad=0
	# words of the spans that look like repository paths, with their line
	awk -F '\t' '{
		n = split($2, w, /[ \t=:;|()<>"'"'"']+/)
		for (i = 1; i <= n; i++) {
			t = w[i]; sub(/^\.\//, "", t); sub(/[.,]+$/, "", t)
			if (t ~ /^(harness|workloads|primitives|numa|plots|configs|results|tests|bin)\// ||
			    t == "run_all.sh" || t == "Makefile")
				print $1 "\t" t
		}
	}' "$tmp/spans" | sort -u -t "$(printf '\t')" -k2,2 >"$tmp/paths"
	while IFS="$(printf '\t')" read -r line p; do
		case $p in results/* | bin/*) continue ;; esac
		case $p in *\{*) qs=$(braces "$p") ;; *) qs=$p ;; esac
		for q in $qs; do
			q=${q%,}
			in_tree "$q" && continue
			git check-ignore -q -- "$q" 2>/dev/null && continue
			echo "$q" | grep -qE '[A-Z]+([^A-Za-z]|$)' && continue   # a placeholder
			notok "$doc:$line: \`$q\` is not in the repository"
			bad=1
		done
	done <"$tmp/paths"
	[ "$bad" = 0 ] && ok "$doc: every repository path in backticks exists"
done

# 3. netmem commands and their flags in every README.md
[ -x bin/netmem ] || make -s bin/netmem >/dev/null 2>&1
if [ ! -x bin/netmem ]; then
	notok "README.md: bin/netmem could not be built to check its commands"
else
	bin/netmem --help 2>&1 | awk '/^  [a-z]/ { print $1 }' >"$tmp/cmds"
	for doc in $docs; do
	spans "$doc" | awk -F '\t' '{
		s = $2
		while (match(s, /(^|[ \/])netmem [a-z][a-z0-9-]*/)) {
			m = substr(s, RSTART, RLENGTH); sub(/^[ \/]/, "", m); sub(/^netmem /, "", m)
			s = substr(s, RSTART + RLENGTH)
			rest = s; sub(/(\||;|&&|#| -- ).*/, "", rest)
			print $1 "\t" m
			n = split(rest, w, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (match(w[i], /^--[a-z][a-z0-9-]*/)) print $1 "\t" m "\t" substr(w[i], 1, RLENGTH)
		}
	}' | sort -u -t "$(printf '\t')" -k2 >"$tmp/uses"
	bad=0
	while IFS="$(printf '\t')" read -r line cmd flag; do
		if ! grep -qx -- "$cmd" "$tmp/cmds"; then
			[ -n "$flag" ] && continue   # reported once, without its flags
			notok "$doc:$line: \`netmem $cmd\` is not a command netmem --help lists"
			bad=1; continue
		fi
		[ -n "$flag" ] || continue
		[ -e "$tmp/help-$cmd" ] || bin/netmem "$cmd" --help >"$tmp/help-$cmd" 2>&1
		if ! grep -qE -- "$flag([^a-z0-9-]|\$)" "$tmp/help-$cmd"; then
			notok "$doc:$line: \`netmem $cmd $flag\`: netmem $cmd --help has no $flag"
			bad=1
		fi
	done <"$tmp/uses"
	[ "$bad" = 0 ] && [ -s "$tmp/uses" ] && ok "$doc: every netmem command and flag is one netmem --help lists"
	done
fi

# anchors FILE: the anchor of every heading outside fenced blocks, as GitHub
# makes them (a link's text stands for the link; backticks, punctuation
# dropped; repeats numbered)
anchors() {
	awk '/^[ \t]*```/ { fence = !fence; next } !fence && /^#+[ \t]/' "$1" |
		sed -E 's/^#+[ \t]+//; s/[ \t]+#+[ \t]*$//; s/\[([^]]*)\]\([^)]*\)/\1/g' |
		tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' |
		awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

# 4. Relative links and image sources
for doc in $docs; do
	dir=$(dirname "$doc")
	awk '/^[ \t]*```/ { fence = !fence; next }
	!fence {
		line = $0
		while (match(line, /\]\([^) \t]+\)/)) {
			print NR "\t" substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH)
		}
		line = $0
		while (match(line, /<img [^>]*src="[^"]+"/)) {
			m = substr(line, RSTART, RLENGTH); sub(/.*src="/, "", m); sub(/"$/, "", m)
			print NR "\t" m; line = substr(line, RSTART + RLENGTH)
		}
	}' "$doc" >"$tmp/links"
	bad=0
	while IFS="$(printf '\t')" read -r line target; do
		case $target in http://* | https://* | mailto:*) continue ;; esac
		path=${target%%#*} anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		if [ -z "$path" ]; then
			file=$doc
		else
			file=$(realpath -m --relative-to=. -- "$dir/$path")
			case $file in ../* | /*) notok "$doc:$line: link $target leaves the repository"; bad=1; continue ;; esac
			if ! grep -qxF -- "$file" "$tmp/tree" && ! grep -qxF -- "$file/" "$tmp/tree"; then
				notok "$doc:$line: link $target: no $file in the repository"; bad=1; continue
			fi
		fi
		[ -n "$anchor" ] || continue
		a=$tmp/anchors-$(printf '%s' "$file" | tr '/' '_')
		[ -e "$a" ] || { [ -f "$file" ] && anchors "$file"; } >"$a"
		if ! grep -qxF -- "$anchor" "$a"; then
			notok "$doc:$line: link $target: $file has no heading #$anchor"; bad=1
		fi
	done <"$tmp/links"
	[ "$bad" = 0 ] && [ -s "$tmp/links" ] && ok "$doc: every link leads to a file and heading of the repository"
done

# 5. The front door stays short
n=$(wc -l <README.md)
check "README.md is at most 300 lines (it has $n): the reference belongs in the READMEs it links to" \
	[ "$n" -le 300 ]

# 6. The README's test command is what CI runs
cmd=$(awk '/^[ \t]*```/ { fence = !fence; next } fence && /# the tests/ { sub(/[ \t]*#.*/, ""); print; exit }' README.md)
case $cmd in
make\ *)
	bad=0
	for t in ${cmd#make }; do
		grep -qE "^[ \t]*make( [^#]*)? $t( |\$)" .ci/run && continue
		recipe=$(awk -v t="$t" '$0 ~ "^" t ":" { getline; sub(/^\t@?/, ""); print; exit }' Makefile)
		[ -n "$recipe" ] && grep -qF -- "$recipe" .ci/run && continue
		notok "README.md's test command \`$cmd\`: .ci/run runs neither \`make $t\` nor its recipe"; bad=1
	done
	[ "$bad" = 0 ] && ok "README.md's test command \`$cmd\` is what .ci/run runs" ;;
*) notok "README.md names no test command (a fenced line \`make ...  # the tests\`): found '$cmd'" ;;
esac

t_summary
