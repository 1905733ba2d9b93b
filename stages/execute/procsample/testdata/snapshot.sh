#!/bin/sh
# snapshot.sh DIR PID... copies the /proc files procsample reads for each PID
# (stat, status, and comm/stat/status of every thread) into DIR/proc, as
# plain files, so that procfs.NewFS(DIR+"/proc") reads them back. Threads or
# processes that exit during the copy are skipped.
set -eu
dir=$1
shift
for pid in "$@"; do
	d=$dir/proc/$pid
	mkdir -p "$d"
	cat /proc/$pid/stat >"$d/stat" 2>/dev/null || { rm -rf "$d"; continue; }
	cat /proc/$pid/status >"$d/status"
	cat /proc/$pid/comm >"$d/comm"
	for t in /proc/$pid/task/*; do
		tid=${t##*/}
		mkdir -p "$d/task/$tid"
		for f in comm stat status; do
			cat "$t/$f" >"$d/task/$tid/$f" 2>/dev/null || true
		done
	done
done
