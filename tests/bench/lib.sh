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
