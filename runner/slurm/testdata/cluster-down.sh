#!/bin/bash
# Stops the cluster cluster-up.sh started under DIR, and waits until its
# processes are gone: the jobs first (scancel, then their step daemons if
# they outlive it), then the slurmds, slurmctld and munged, each by the
# pid in its pid file. Safe after a start that failed half-way.
set -u
D=${1:?usage: cluster-down.sh DIR}
export SLURM_CONF=$D/slurm.conf

# waitgone PID...: up to 10 s for the processes to end, then SIGKILL.
waitgone() {
	for _ in $(seq 40); do
		local alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && return 0
		sleep 0.25
	done
	for p in "$@"; do kill -KILL "$p" 2>/dev/null; done
	sleep 0.5
}

if [ -f "$D/slurmctld.pid" ] && kill -0 "$(cat "$D/slurmctld.pid")" 2>/dev/null; then
	scancel --full -u "$(id -un)" 2>/dev/null
	for _ in $(seq 40); do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
		sleep 0.25
	done
fi

# Step daemons of this cluster's jobs (slurmd starts them, and they are
# not its children): the slurmstepd processes whose environment names
# this cluster's slurm.conf.
steps=()
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2>/dev/null)" = /usr/sbin/slurmstepd ] || continue
	if tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$D/slurm.conf"; then
		steps+=("${p#/proc/}")
	fi
done
if ((${#steps[@]})); then
	kill -TERM "${steps[@]}" 2>/dev/null
	waitgone "${steps[@]}"
fi

# stop NAME PIDFILE...: SIGTERM to each pid file's process if it is NAME
# (a stale pid file may name a reused pid), then wait for them.
stop() {
	local name=$1 pids=() p
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$name" ] || continue
		kill -TERM "$p" 2>/dev/null && pids+=("$p")
	done
	if ((${#pids[@]})); then waitgone "${pids[@]}"; fi
}
stop slurmd "$D/slurmd-n1.pid" "$D/slurmd-n2.pid"
stop slurmctld "$D/slurmctld.pid"
stop munged "$D/munge/munged.pid"
exit 0
