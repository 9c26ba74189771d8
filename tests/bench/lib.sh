# Shared set-up of the benchmark scripts: build, a stamped output folder, and
# the script that runs inside the VM.
#   bench_setup NAME OUT   builds (always: an edited tree must not run a stale
#                          binary), sets $dir to OUT/NAME-<UTC stamp>/ and
#                          $inner to a temporary file removed at exit
bench_setup() {
	make -j"$(nproc)" >/dev/null || { echo "$1.sh: build failed (run make)" >&2; exit 1; }
	dir="$2/$1-$(date -u +%Y%m%dT%H%M%SZ)"
	mkdir -p "$dir" || exit 1
	inner=$(mktemp)
	trap 'rm -f "$inner"' EXIT
}

# bench_run NAME HERE TIMEOUT [SOFTROCE-RUN FLAGS...]: runs $inner on this
# host's verbs device when HERE is 1, else under tests/vm/softroce-run
# (its flags, e.g. --kernel trixie-backports, then --timeout TIMEOUT); a
# failed VM run ends the script naming NAME.
bench_run() {
	local name=$1 here=$2 tmo=$3
	shift 3
	if [ "$here" = 1 ]; then
		bash "$inner"
	else
		tests/vm/softroce-run "$@" --timeout "$tmo" -- bash "$inner" ||
			{ echo "$name: the VM run failed" >&2; exit 1; }
	fi
}

# perftest inside the run (the VM or the host), for scripts that compare
# with it. Server and client on one host: the client's address only carries
# perftest's TCP handshake.
#   pt_pair FILE TLIMIT PORT CMD...   server (FILE.server.txt) on PORT, then the
#                                     client to 127.0.0.1 (FILE.txt); status 0
#                                     when the client printed a result table
#   pt_p50 FILE                       t_typical [us] of a latency test
#   pt_mpps FILE                      MsgRate [Mpps] of a bandwidth test
#   pt_setting FILE NAME              a "NAME : value" line of perftest's header
pt_pair() {
	local file=$1 tlimit=$2 port=$3 spid i rc=0
	shift 3
	timeout -k 5 "$tlimit" "$@" -p "$port" >"$file.server.txt" 2>&1 &
	spid=$!
	# until the server listens (bounded)
	for ((i = 0; i < 150; i++)); do
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	timeout -k 5 "$tlimit" "$@" -p "$port" 127.0.0.1 >"$file.txt" 2>&1 || rc=$?
	for ((i = 0; i < 100; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	[ "$rc" = 0 ] && grep -Eq 't_typical|MsgRate' "$file.txt"
}

# Columns are found by name in the header; later headers contain blanks, so
# t_typical is matched by index and MsgRate counted from the end of the line.
pt_p50() {
	awk '/t_typical/ { for (i = 1; i <= NF; i++) if ($i ~ /^t_typical/) ti = i; next }
	     ti && $1 ~ /^[0-9]+$/ && $ti ~ /^[0-9.]+$/ { print $ti; exit }' "$1"
}
pt_mpps() {
	awk '/MsgRate/ { for (i = 1; i <= NF; i++) if ($i ~ /^MsgRate/) back = NF - i; hdr = 1; next }
	     hdr && $1 ~ /^[0-9]+$/ && NF > back { v = $(NF - back); if (v ~ /^[0-9.]+$/) { print v; exit } }' "$1"
}
pt_setting() { sed -n "s/^ *$2 *: *\([0-9][0-9]*\).*/\1/p" "$1" | head -n1; }
