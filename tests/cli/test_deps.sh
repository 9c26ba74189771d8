#!/bin/sh
# tests/deps.sh's decisions, on a fake os-release with a recording apt-get:
# what `make deps-run` and `make deps` install on Debian, on Ubuntu (no
# chromium package there: a snap) and beside Mellanox OFED (its rdma-core
# kept), nothing when all is installed, one line and exit 2 elsewhere.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
# apt-get records its arguments; dpkg-query says installed for the packages
# in $tmp/installed; sudo runs its command
cat >"$tmp/bin/apt-get" <<'EOS'
#!/bin/sh
echo "$*" >>"$FAKE/apt.log"
[ "$1" != update ] || [ ! -e "$FAKE/update-fails" ] || exit 100
EOS
cat >"$tmp/bin/dpkg-query" <<'EOS'
#!/bin/sh
for p; do :; done
grep -qx "$p" "$FAKE/installed" 2>/dev/null && printf 'install ok installed' || exit 1
EOS
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
printf '#!/bin/sh\necho "MLNX_OFED_LINUX-23.10-1.1.9.0:"\n' >"$tmp/ofed_info"
chmod +x "$tmp/bin/"* "$tmp/ofed_info"
FAKE=$tmp; export FAKE
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n' >"$tmp/debian"
printf 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n' >"$tmp/ubuntu"
printf 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n' >"$tmp/mint"
printf 'NAME="Fedora Linux"\nID=fedora\n' >"$tmp/fedora"

# deps OS MODE [ofed]: runs the script; $tmp/out its output, $tmp/pkgs the
# packages apt-get was asked to install (one a line), $tmp/rc its status
deps() {
	rm -f "$tmp/apt.log"; : >"$tmp/pkgs"
	path=$tmp/bin:$PATH
	[ "${3:-}" != ofed ] || { mkdir -p "$tmp/ofed"; cp "$tmp/ofed_info" "$tmp/ofed/"; path=$tmp/ofed:$path; }
	PATH=$path NETMEM_OS_RELEASE=$tmp/$1 sh tests/deps.sh "$2" >"$tmp/out" 2>&1
	echo $? >"$tmp/rc"
	[ ! -e "$tmp/apt.log" ] || sed -n 's/^install -y -q --no-install-recommends //p' "$tmp/apt.log" | tr ' ' '\n' | sed '/^$/d' >"$tmp/pkgs"
}
has() { grep -qx "$1" "$tmp/pkgs"; }
hasnt() { ! grep -qx "$1" "$tmp/pkgs"; }
all_of() { for p; do has "$p" || return 1; done; }
none_of() { for p; do hasnt "$p" || return 1; done; }
tools="qemu-system-x86 busybox-static cpio libxml2-utils openssh-server openssh-client git chromium"
run_pkgs="build-essential openmpi-bin libopenmpi-dev libibverbs-dev librdmacm-dev rdma-core perftest libjansson-dev
	libnuma-dev libhwloc-dev gnuplot-nox jq libhiredis-dev libevent-dev redis-server libxxhash-dev libnetfilter-queue-dev nftables"

deps debian run
check "debian, deps-run: exit 0" grep -qx 0 "$tmp/rc"
check "debian, deps-run: what building and running needs" all_of $run_pkgs
check "debian, deps-run: no test tool (no VM, no browser, no sshd)" none_of $tools
deps debian all
check "debian, deps: what running needs and the test tools, chromium included" all_of $run_pkgs $tools
check "debian, deps: the registry updated first" sh -c "head -1 $tmp/apt.log | grep -qx 'update -q'"
deps ubuntu all
check "ubuntu, deps: exit 0, the test tools but no chromium package" sh -c \
	"grep -qx 0 $tmp/rc && ! grep -qx chromium $tmp/pkgs && grep -qx qemu-system-x86 $tmp/pkgs && grep -qx libibverbs-dev $tmp/pkgs"
check "ubuntu, deps: says chromium is a snap and the browser test skips itself" grep -q 'chromium is a snap on Ubuntu' "$tmp/out"
deps mint run
check "a distribution like Ubuntu (ID_LIKE) is taken as Ubuntu" sh -c "grep -qx 0 $tmp/rc && grep -q '(ubuntu, run)' $tmp/out"
deps ubuntu run ofed
check "beside Mellanox OFED: none of rdma-core, libibverbs, librdmacm, perftest installed" none_of rdma-core ibverbs-providers \
	ibverbs-utils libibverbs-dev librdmacm-dev perftest
check "beside Mellanox OFED: the rest still installed, and the OFED named" sh -c \
	"grep -qx libopenmpi-dev $tmp/pkgs && grep -q 'Mellanox OFED MLNX_OFED_LINUX-23.10-1.1.9.0 is installed' $tmp/out"
# everything installed: apt-get is never called
deps debian all
cp "$tmp/pkgs" "$tmp/installed"
deps debian all
check "everything installed: exit 0, apt-get not called" sh -c "grep -qx 0 $tmp/rc && [ ! -e $tmp/apt.log ]"
rm -f "$tmp/installed"
: >"$tmp/update-fails"
deps debian run
check "apt-get update failing: exit 1, said" sh -c "grep -qx 1 $tmp/rc && grep -q 'apt-get update failed' $tmp/out"
rm -f "$tmp/update-fails"
deps fedora run
check "neither Debian nor Ubuntu: one line, exit 2, nothing installed" sh -c \
	"grep -qx 2 $tmp/rc && [ \$(wc -l <$tmp/out) = 1 ] && grep -q 'fedora is neither Debian nor Ubuntu' $tmp/out && [ ! -e $tmp/apt.log ]"
deps debian bogus
check "an unknown mode: exit 2" grep -qx 2 "$tmp/rc"
t_summary
