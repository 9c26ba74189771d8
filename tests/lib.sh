# Shell test helpers: each check prints a TAP line ("ok N - what" or
# "not ok N - what"); t_summary prints "N passed, N failed".
T_PASS=0; T_FAIL=0; T_N=0
ok() { T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1)); echo "ok $T_N - $*"; }
notok() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $*"; }
# check "what" command...: passes when the command succeeds
check() { what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else notok "$what"; fi; }
t_summary() { echo "$T_PASS passed, $T_FAIL failed"; [ "$T_FAIL" -eq 0 ]; }

# expect_usage "what" cmd...: exit status 2, exactly one line on stderr that
# starts with "netmem:" (mpirun's own notes are ignored), no core dump.
expect_usage() {
	what=$1; shift
	err=$(mktemp); rm -f core core.*
	"$@" >/dev/null 2>"$err"; rc=$?
	lines=$(grep -c '^netmem:' "$err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && ! ls core core.* >/dev/null 2>&1; then
		ok "$what: $(grep '^netmem:' "$err")"
	else
		notok "$what: exit $rc, $lines netmem line(s): $(head -c 600 "$err" | tr '\n' '|')"
	fi
	rm -f "$err"
}
