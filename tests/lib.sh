# Shell test helpers: each check prints a TAP line ("ok N - what" or
# "not ok N - what"); t_summary prints "N passed, N failed" (and ", N
# skipped" when a check was skipped).
T_PASS=0; T_FAIL=0; T_SKIP=0; T_N=0
# printf, not echo: dash's echo would turn an escaped "\n" in a message
# back into a line break
ok() { T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1)); printf 'ok %s - %s\n' "$T_N" "$*"; }
notok() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); printf 'not ok %s - %s\n' "$T_N" "$*"; }
# skip "what" "reason": a check this host cannot make, as TAP's
# "ok N - what # SKIP reason"; counted as skipped, neither passed nor failed.
skip() { T_N=$((T_N + 1)); T_SKIP=$((T_SKIP + 1)); printf 'ok %s - %s # SKIP %s\n' "$T_N" "$1" "$2"; }
# check "what" command...: passes when the command succeeds
# (a failed nm_jq or nm_rc_jq check also prints why, as TAP comments: see
# nm_diag). Checks on a run's document (nm_jq, nm_rc_jq) are batched: they
# are evaluated together, one jq per document, when the next nm_run starts,
# at nm_flush or at t_summary (a jq start costs about 0.9 s in the emulated
# guest, one per check added minutes to a lane). A test that changes a
# document other than through nm_run calls nm_flush first.
check() {
	what=$1; shift
	case $1 in
	nm_jq) nm_defer "$what" "$2" - "$3"; return 0 ;;
	nm_rc_jq) nm_defer "$what" "$2" "$3" "$4"; return 0 ;;
	esac
	if "$@" >/dev/null 2>&1; then ok "$what"; else notok "$what"; fi
	return 0
}
# nm_defer WHAT NAME RC FILTER: one batched check (RC "-": any exit status),
# its filter appended to NAME's jq program at once, wrapped so that it
# prints "K true|false" the way `jq -e` judges (the last output neither
# false nor null; an error fails it).
nm_defer() {
	T_DEFER=$((${T_DEFER:-0} + 1))
	mkdir -p "$tmp/.chk"
	sep=", "; [ -e "$tmp/.chk/$2.jq" ] || sep=
	printf '%s("%s " + ((try (([(\n%s\n)] | last) | . != null and . != false) catch false) | tostring))\n' \
		"$sep" "$T_DEFER" "$4" >>"$tmp/.chk/$2.jq"
	printf '%s %s %s %s\n' "$T_DEFER" "$2" "$3" "$1" >>"$tmp/.chk/list"
}
# nm_flush: evaluates the batched checks in the order they were made, one jq
# per document and no process per check (under emulation each costs more
# than the check).
nm_flush() {
	[ -s "${tmp:-/nonexistent}/.chk/list" ] || return 0
	: >>"$tmp/.chk/verdicts"
	for name in $(cut -d' ' -f2 "$tmp/.chk/list" | sort -u); do
		# an unreadable document prints nothing: every check on it fails
		jq -r -f "$tmp/.chk/$name.jq" "$tmp/$name.json" >>"$tmp/.chk/verdicts" 2>/dev/null || :
	done
	sort -n "$tmp/.chk/verdicts" -o "$tmp/.chk/verdicts" 2>/dev/null
	vk=0
	while read -r k n rc what; do
		while [ -n "$vk" ] && [ "$vk" -lt "$k" ]; do read -r vk vv <&3 || vk=; done
		v=false got=-
		[ "$vk" = "$k" ] && v=$vv
		[ "$rc" = - ] || read -r got <"$tmp/$n.rc" || got=
		if [ "$v" = true ] && [ "$got" = "$rc" ]; then ok "$what"; else
			notok "$what"
			nm_diag "$n"
		fi
	done <"$tmp/.chk/list" 3<"$tmp/.chk/verdicts"
	rm -rf "$tmp/.chk"
}
# skipped_of LINE: the N of a summary line's ", N skipped" (0 without one),
# for the scripts that add up lanes and files.
skipped_of() { n=$(echo "$1" | sed -n 's/.*, \([0-9]*\) skipped.*/\1/p'); echo "${n:-0}"; }
t_summary() {
	nm_flush
	if [ "$T_SKIP" -gt 0 ]; then echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	else echo "$T_PASS passed, $T_FAIL failed"; fi
	[ "$T_FAIL" -eq 0 ]
}

# nm_rdma_device: prints the name of an RDMA device this host has and
# succeeds, or fails when it has none (/sys/class/infiniband, else what
# ibv_devices lists).
nm_rdma_device() {
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	command -v ibv_devices >/dev/null 2>&1 &&
		ibv_devices 2>/dev/null | awk 'NR > 2 && $1 != "" { print $1; f = 1; exit } END { exit !f }'
}

# expect_usage "what" cmd...: exit status 2, exactly one line on stderr that
# starts with "netmem:" (mpirun's own notes are ignored), no core dump.
# With NM_USAGE_ERR=FILE set for the call, its stderr is kept there.
expect_usage() { NM_USAGE_RE=; nm_expect_usage "$@"; }
# expect_usage_re "what" ERE cmd...: the same, and that line matches ERE (on
# a host without an RDMA device every job ends in one such line: what it
# says tells which check refused the input).
expect_usage_re() { NM_USAGE_RE=$2; w=$1; shift 2; nm_expect_usage "$w" "$@"; }
nm_expect_usage() {
	what=$1; shift
	err=$(mktemp); rm -f core core.*
	# A rank that exits 2 makes mpirun signal the others and wait
	# odls_base_sigkill_timeout (1 s) before SIGKILL: 2 s of a bad-input
	# job's 2.7 s on a quiet host, more in a guest. Nothing of such a job is
	# left to save, so the test's jobs skip that grace (a user's keep it).
	OMPI_MCA_odls_base_sigkill_timeout=0 "$@" >/dev/null 2>"$err"; rc=$?
	lines=$(grep -c '^netmem:' "$err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && ! ls core core.* >/dev/null 2>&1 &&
		{ [ -z "$NM_USAGE_RE" ] || grep '^netmem:' "$err" | grep -Eq -- "$NM_USAGE_RE"; }; then
		ok "$what: $(grep '^netmem:' "$err")"
	else
		notok "$what: exit $rc, $lines netmem line(s): $(head -c 600 "$err" | tr '\n' '|')"
	fi
	# NM_USAGE_ERR=FILE keeps stderr for more checks (no second job to read it)
	if [ -n "${NM_USAGE_ERR:-}" ]; then mv "$err" "$NM_USAGE_ERR"; else rm -f "$err"; fi
}

# Integration-test helpers: nm_setup SUBCOMMAND sets up a temp dir and mpirun
# for real-verbs runs; then
#   nm_run NAME NP ARGS...  runs `netmem SUBCOMMAND` into $tmp/NAME.json
#   nm_rc NAME              its exit status
#   nm_jq NAME FILTER       succeeds when jq FILTER holds on its document
#   nm_rc_jq NAME RC FILTER succeeds when it exited RC and FILTER holds
nm_setup() {
	NM_SUB=$1
	# NETMEM_BIN: another build to test, e.g. one with a check broken on
	# purpose, to see the test fail (tests/README.md)
	N=${NETMEM_BIN:-bin/netmem}
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	MPI="mpirun --oversubscribe --bind-to none"
	Q="--progress=false"
}
nm_run() {
	nm_flush
	name=$1; np=$2; shift 2
	# NETMEM_TEST_PROFILE=FILE: one line per job (test, job, seconds), to see
	# where a lane's time goes; unset, no clock is read (a process each, in a guest)
	[ -z "${NETMEM_TEST_PROFILE:-}" ] || t0=$(date +%s.%N)
	$MPI -np "$np" $N "$NM_SUB" $Q --output "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	[ -z "${NETMEM_TEST_PROFILE:-}" ] ||
		awk -v a="$t0" -v b="$(date +%s.%N)" -v t="${0##*/}" -v n="$name" 'BEGIN { printf "%s %s %.1f\n", t, n, b - a }' >>"$NETMEM_TEST_PROFILE"
}
nm_rc() { cat "$tmp/$1.rc"; }
nm_jq() { jq -e "$2" "$tmp/$1.json" >/dev/null 2>&1; }
nm_rc_jq() { [ "$(nm_rc "$1")" = "$2" ] && nm_jq "$1" "$3"; }
# nm_diag NAME: what a run left behind, as TAP comments (exit status, the
# last netmem lines on stderr, each point's parameters and verdict).
nm_diag() {
	echo "#   $1: exit $(cat "$tmp/$1.rc" 2>/dev/null)"
	grep '^netmem:' "$tmp/$1.err" 2>/dev/null | tail -3 | sed 's/^/#   /'
	# the verdict and its checks first: parameters are long, and a cut must not hide why
	jq -c '.points[] | {valid, checks, error, nic_retransmissions, params}' "$tmp/$1.json" 2>/dev/null | cut -c1-1200 |
		sed 's/^/#   /'
}

# nm_figure_ok FILE: a non-empty figure that is what its name says: a PNG
# (signature, then an IEND chunk at the end) or an SVG (an <svg> root,
# well-formed XML when xmllint is installed).
nm_figure_ok() {
	[ -s "$1" ] || return 1
	case $1 in
	*.png) [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(tail -c 8 "$1" | head -c 4)" = IEND ] ;;
	*.svg) grep -q '<svg' "$1" && grep -q '</svg>' "$1" &&
		{ ! command -v xmllint >/dev/null 2>&1 || xmllint --noout "$1" 2>/dev/null; } ;;
	*) return 1 ;;
	esac
}

# nm_docs CONFIG...: the result documents run_all.sh writes for these
# configs, one name a line: NAME, or NAME.nR for each count R of a "ranks"
# list (one job per count). One jq for all (a jq start costs about a second
# in an emulated guest).
nm_docs() {
	jq -r '(input_filename | sub(".*/"; "") | sub("\\.json$"; "")) as $n |
		if (.ranks | type) == "array" then .ranks[] | "\($n).n\(.)" else $n end' "$@"
}
