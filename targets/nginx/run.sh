#!/bin/sh
# Starts nginx in the foreground as yardstick's upstream: renders
# nginx.conf.in into DIR, writes the fixed bodies of /api/generated/{size},
# then execs nginx (daemon off), so the process yardstick started is the
# nginx master and SIGTERM (fast shutdown) or SIGQUIT (graceful) stop it.
#
# Usage: targets/nginx/run.sh --dir DIR --port N [--workers N] [--access-log FILE|off] [--sizes "0 128 ..."]
#   --dir DIR          where the config, pid file, logs and bodies go (made if missing)
#   --port N           listen on 127.0.0.1:N (1..65535)              env PORT
#   --workers N        worker_processes, the event loops (default 1)  env NGINX_WORKERS
#   --access-log FILE  one JSON line per request to FILE (default off) env ACCESS_LOG
#   --sizes LIST       the sizes /api/generated/{size} serves          env NGINX_SIZES
set -eu

usage() {
	sed -n 's/^# \{0,1\}//; 7,12p' "$0" >&2
}
die() {
	echo "$0: $*" >&2
	usage
	exit 2
}
uint() { # uint NAME VALUE MIN MAX
	case $2 in
	'' | *[!0-9]*) die "$1 must be an integer from $3 to $4, not '$2'" ;;
	esac
	# no leading zeros, no overflow: compare as decimal strings first
	case $2 in 0?*) die "$1 must be an integer from $3 to $4, not '$2'" ;; esac
	if [ "${#2}" -gt 9 ] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		die "$1 must be an integer from $3 to $4, not '$2'"
	fi
}

here=$(cd "$(dirname "$0")" && pwd)
dir=
port=${PORT:-}
workers=${NGINX_WORKERS:-1}
access_log=${ACCESS_LOG:-off}
sizes=${NGINX_SIZES:-"0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072 262144 524288 1048576 10 100 1000 10000 100000 1000000"}

while [ "$#" -gt 0 ]; do
	case $1 in
	--dir | --port | --workers | --access-log | --sizes)
		[ "$#" -ge 2 ] || die "$1 needs a value"
		case $1 in
		--dir) dir=$2 ;;
		--port) port=$2 ;;
		--workers) workers=$2 ;;
		--access-log) access_log=$2 ;;
		--sizes) sizes=$2 ;;
		esac
		shift 2
		;;
	--dir=* | --port=* | --workers=* | --access-log=* | --sizes=*)
		v=${1#*=}
		case $1 in
		--dir=*) dir=$v ;;
		--port=*) port=$v ;;
		--workers=*) workers=$v ;;
		--access-log=*) access_log=$v ;;
		--sizes=*) sizes=$v ;;
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

[ -n "$dir" ] || die "--dir is required"
[ -n "$port" ] || die "--port (or PORT) is required"
uint --port "$port" 1 65535
uint --workers "$workers" 1 1024
for s in $sizes; do
	uint "size" "$s" 0 1048576
done
case $dir in
*@* | *'|'* | *'\'* | *'"'* | *"'"* | *';'* | *' '*) die "--dir must not contain spaces, quotes or any of @ | \\ ;" ;;
esac
case $access_log in
*@* | *'|'* | *'\'* | *'"'* | *"'"* | *';'* | *' '*) die "--access-log must not contain spaces, quotes or any of @ | \\ ;" ;;
esac

if ! command -v nginx >/dev/null 2>&1; then
	echo "$0: nginx not found: apt-get install nginx (Debian 12: nginx 1.22)" >&2
	exit 1
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ "$access_log" = off ]; then
	log='access_log off;'
else
	case $access_log in /*) ;; *) access_log=$(pwd)/$access_log ;; esac
	log="access_log $access_log yardstick;"
fi
# nginx drops its workers to the user "nobody" when started as root; they
# could not read the bodies in a private DIR, so as root they stay root.
user=
if [ "$(id -u)" = 0 ]; then
	user='user root;'
fi

# The bodies: size bytes of a fixed 64-byte text line repeated, cut to size.
gen=$dir/www/api/generated
mkdir -p "$gen"
line='The quick brown fox jumps over the lazy dog 0123456789 abcdefgh'
big=$dir/www/.text
if [ ! -s "$big" ] || [ "$(wc -c <"$big")" -ne 1048576 ]; then
	awk -v l="$line" 'BEGIN { for (i = 0; i < 16384; i++) print l }' >"$big.tmp"
	mv -f "$big.tmp" "$big"
fi
for s in $sizes; do
	head -c "$s" "$big" >"$gen/$s"
done

sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" -e "s|@WORKERS@|$workers|g" \
	-e "s|@ACCESS_LOG@|$log|g" -e "s|@USER@|$user|g" \
	"$here/nginx.conf.in" >"$dir/nginx.conf"

exec nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;'
