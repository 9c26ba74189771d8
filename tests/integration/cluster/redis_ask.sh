#!/bin/bash
# redis_ask.sh PORT [--wait | --secret] HOST...: probes of the Redis instance on PORT, all as bash
# builtins (/dev/tcp) in this one process: under emulation every process started costs seconds,
# and the server must still run when the last probe comes. For each HOST, one connection that
# sends PING and prints "HOST: " and the first reply line, or "HOST: refused". --secret first
# sends AUTH with the secret of this host's server on PORT (read here from its configuration,
# never on a command line) and prints both replies. --wait: waits (at most 2 minutes) until
# HOST:PORT accepts a connection, exit 1 if it never does.
port=$1; shift
mode=ping
case $1 in --wait | --secret) mode=${1#--}; shift ;; esac
if [ $mode = wait ]; then
	for _ in $(seq 600); do (exec 3<>"/dev/tcp/$1/$port") 2>/dev/null && exit 0; sleep 0.2; done
	exit 1
fi
send="PING\r\n" n=1
if [ $mode = secret ]; then
	pid=$(pgrep -f "redis-server .*:$port" | head -1)
	while read -r k v; do [ "$k" = requirepass ] && secret=$v; done <"/proc/$pid/cwd/redis.conf"
	send="AUTH $secret\r\nPING\r\n" n=2
fi
for host; do
	exec 3<>"/dev/tcp/$host/$port" 2>/dev/null || { echo "$host: refused"; continue; }
	printf "%b" "$send" >&3
	for _ in $(seq $n); do read -r -t 10 line <&3 && echo "$host: ${line%$'\r'}"; done
	exec 3<&-
done
