# shellcheck shell=bash
# scripts/freeport.sh is sourced by the test-server scripts: freeport prints
# a loopback TCP port nobody listens on, for a server that binds it a few
# seconds later.
#
# The port is drawn from below the kernel's ephemeral range
# (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default): a port
# inside it can be handed to any outgoing connection or any ":0" listener
# between our probe and the server's bind, and the parallel tests make
# hundreds of both. That race failed a CI run ("could not bind IPv4 address
# "127.0.0.1": Address already in use"). Below the range, only another
# freeport can pick the same port, one chance in thousands.
freeport() {
	local p low=32768
	if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
		read -r low _ </proc/sys/net/ipv4/ip_local_port_range
	fi
	[ "$low" -gt 11024 ] || low=32768 # a range that starts low: use the default's floor
	for _ in $(seq 1 50); do
		p=$((10000 + RANDOM % (low - 10000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "no free port found on 127.0.0.1 below $low"
}
