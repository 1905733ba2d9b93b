#!/bin/sh
# Starts the Go gateway (bin/gateway-go, Caddy v2) in the foreground with
# the Caddyfile beside this script: every request to 127.0.0.1:PORT is
# forwarded to UPSTREAM. It execs the gateway, so the process yardstick
# started is the gateway itself; SIGTERM stops it. Its event-loop knob is
# the Go runtime's GOMAXPROCS, taken from the environment as always.
#
# Usage: targets/gateway-go/run.sh --port N --upstream URL [--access-log FILE] [--bin PATH]
#   --port N           listen on 127.0.0.1:N (1..65535)         env PORT
#   --upstream URL     e.g. http://127.0.0.1:18090 (loopback)   env UPSTREAM
#   --access-log FILE  one JSON line per request to FILE         env ACCESS_LOG (default off)
#   --bin PATH         the gateway binary (default bin/gateway-go of this checkout)
set -eu

usage() {
	sed -n 's/^# \{0,1\}//; 8,12p' "$0" >&2
}
die() {
	echo "$0: $*" >&2
	usage
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
port=${PORT:-}
upstream=${UPSTREAM:-}
access_log=${ACCESS_LOG:-}
bin=$here/../../bin/gateway-go

while [ "$#" -gt 0 ]; do
	case $1 in
	--port | --upstream | --access-log | --bin)
		[ "$#" -ge 2 ] || die "$1 needs a value"
		case $1 in
		--port) port=$2 ;;
		--upstream) upstream=$2 ;;
		--access-log) access_log=$2 ;;
		--bin) bin=$2 ;;
		esac
		shift 2
		;;
	--port=* | --upstream=* | --access-log=* | --bin=*)
		v=${1#*=}
		case $1 in
		--port=*) port=$v ;;
		--upstream=*) upstream=$v ;;
		--access-log=*) access_log=$v ;;
		--bin=*) bin=$v ;;
		esac
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown argument '$1'" ;;
	esac
done

case $port in
'' | *[!0-9]* | 0?*) die "--port must be an integer from 1 to 65535, not '$port'" ;;
esac
if [ "${#port}" -gt 5 ] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
	die "--port must be an integer from 1 to 65535, not '$port'"
fi
# A loopback upstream only: a benchmark gateway sends no load off the machine.
case $upstream in
http://127.*:[0-9]* | http://localhost:[0-9]* | http://\[::1\]:[0-9]*) ;;
'') die "--upstream (or UPSTREAM) is required, e.g. http://127.0.0.1:18090" ;;
*) die "--upstream must be http://127.x.y.z:PORT, http://localhost:PORT or http://[::1]:PORT, not '$upstream'" ;;
esac
case $upstream in
*[!0-9]) die "--upstream must end with the port, with no path: '$upstream'" ;;
esac
if [ ! -x "$bin" ]; then
	echo "$0: $bin not found: run make frameworks" >&2
	exit 1
fi

if [ -n "$access_log" ] && [ "$access_log" != off ]; then
	case $access_log in /*) ;; *) access_log=$(pwd)/$access_log ;; esac
	ACCESS_LOG=$access_log
	ACCESS_LOG_MODE=on
else
	ACCESS_LOG=
	ACCESS_LOG_MODE=off
fi
PORT=$port
UPSTREAM=$upstream
export PORT UPSTREAM ACCESS_LOG ACCESS_LOG_MODE
exec "$bin" run --adapter caddyfile --config "$here/Caddyfile"
