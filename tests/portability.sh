#!/bin/sh
# The suite on older and newer Debian than the one it is developed on: for
# each suite named (default: bullseye and trixie), a chroot made with
# debootstrap from Debian's package registry, `make deps-run` and the test
# tools the host lanes use installed in it, then the build, the unit tests
# and the command-line tests, as `NETMEM_SKIP_VM=1 make check` runs them.
#   bullseye (Debian 11): hiredis 0.14, OpenMPI 4.1.0, rdma-core 33, about
#            the vintage of Ubuntu 22.04
#   trixie   (Debian 13): OpenMPI 5, a newer rdma-core
# Needs root (debootstrap, chroot, mounts). Not part of make check: a
# chroot's first build takes minutes of downloads (tests/README.md).
#   tests/portability.sh [SUITE...]
# NETMEM_PORT_DIR: where the chroots live (default /var/tmp/netmem-port; kept
# between runs, so a second run only rebuilds); NETMEM_PORT_MIRROR: the
# registry (default http://deb.debian.org/debian).
# Ends with a line per suite and "N passed, N failed" (a suite is one check).
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "portability: needs root (debootstrap, chroot)" >&2; exit 2; }
suites=${*:-bullseye trixie}
root=${NETMEM_PORT_DIR:-/var/tmp/netmem-port}
mirror=${NETMEM_PORT_MIRROR:-http://deb.debian.org/debian}
for s in $suites; do
	case $s in bullseye | bookworm | trixie | forky | sid) ;; *)
		echo "portability: unknown suite '$s' (bullseye, bookworm, trixie...)" >&2; exit 2 ;; esac
done
command -v debootstrap >/dev/null 2>&1 || {
	echo "portability: installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null 2>&1 ||
		{ echo "portability: cannot install debootstrap" >&2; exit 1; }
}
pass=0 fail=0 summary=""
for s in $suites; do
	dir=$root/$s log=$root/$s.log
	mkdir -p "$root"
	start=$(date +%s)
	echo "== $s: chroot $dir (log $log)"
	if [ ! -x "$dir/usr/bin/apt-get" ] || [ ! -e "$dir/.netmem-ready" ]; then
		rm -rf "$dir"
		debootstrap --variant=minbase "$s" "$dir" "$mirror" >"$log" 2>&1 ||
			{ echo "$s: debootstrap failed (tail of $log):"; tail -5 "$log"; fail=$((fail + 1));
			  summary="$summary\n$s: debootstrap failed"; continue; }
		touch "$dir/.netmem-ready"
	fi
	# the tree as committed and as edited: the working copy without build output
	rm -rf "$dir/netmem" && mkdir -p "$dir/netmem"
	tar --exclude=./build --exclude=./bin --exclude=./tests/vm/cache --exclude=./results --exclude=./.git -cf - . |
		tar -xf - -C "$dir/netmem"
	mkdir -p "$dir/netmem/results"
	for m in proc sys dev dev/pts; do mountpoint -q "$dir/$m" || mount --bind "/$m" "$dir/$m"; done
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
	chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -c '
		set -u
		cd /netmem || exit 1
		. /etc/os-release; echo "== $PRETTY_NAME"
		tests/deps.sh run || exit 1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends jq libxml2-utils git procps >/dev/null 2>&1 ||
			{ echo "apt-get: the test tools failed"; exit 1; }
		echo "versions: $(dpkg-query -W -f="\${Package} \${Version}, " libibverbs1 openmpi-bin libhiredis-dev libjansson-dev gcc 2>/dev/null)"
		make -j"$(nproc)" >build.log 2>&1 || { tail -30 build.log; echo "build failed"; exit 1; }
		NETMEM_SKIP_VM=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PRTE_MCA_allow_run_as_root=1 \
			make check 2>&1 | tee check.log | grep -E "^(not ok|==)|passed, .* failed"
		tail -1 check.log | grep -q " 0 failed"
	' >"$log.run" 2>&1
	rc=$?
	for m in dev/pts dev sys proc; do umount "$dir/$m" 2>/dev/null; done
	grep -E "^== |^versions|not ok|passed, .* failed|failed" "$log.run" | tail -40
	t=$(($(date +%s) - start))
	if [ "$rc" = 0 ]; then pass=$((pass + 1)); summary="$summary\n$s: passed ($t s)"
	else fail=$((fail + 1)); summary="$summary\n$s: FAILED ($t s; $log.run)"; fi
done
printf "$summary\n"
echo "$pass passed, $fail failed"
