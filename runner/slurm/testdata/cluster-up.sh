#!/bin/bash
# Starts a throwaway Slurm cluster on this host, everything under DIR:
# munged, slurmctld and two slurmd "nodes" (n1, n2) that share the host's
# CPUs. For tests only: run as root; stop it with cluster-down.sh DIR,
# which the caller runs on every exit path, also after a failed start.
#
#   cluster-up.sh DIR      then: export SLURM_CONF=DIR/slurm.conf
#
# Ports: SLURM_TEST_PORT (default 16817) for slurmctld, the next two for
# the nodes. Process tracking is proctrack/linuxproc with task/affinity,
# which need no cgroup setup (a container often has no usable cgroup v2
# delegation).
set -euo pipefail
D=${1:?usage: cluster-up.sh DIR}
PORT=${SLURM_TEST_PORT:-16817}
for c in munged mungekey slurmctld slurmd sinfo runuser; do
	command -v "$c" >/dev/null || { echo "cluster-up: $c not found: apt-get install slurm-wlm munge" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "cluster-up: slurmd runs jobs as their user, so it must run as root" >&2; exit 1; }
id munge >/dev/null 2>&1 || { echo "cluster-up: no munge user: apt-get install munge" >&2; exit 1; }

HOST=$(hostname -s)
CPUS=$(nproc)
mkdir -p "$D/munge" "$D/state" "$D/spool-n1" "$D/spool-n2"
chmod 755 "$D"
# munged insists: its directory 0755 and key 0600, both the munge user's.
chown munge:munge "$D/munge"
chmod 755 "$D/munge"
mungekey -c -k "$D/munge/munge.key"
chown munge:munge "$D/munge/munge.key"
chmod 600 "$D/munge/munge.key"
runuser -u munge -- munged --key-file="$D/munge/munge.key" --socket="$D/munge/sock" \
	--pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/seed"

cat >"$D/slurm.conf" <<CONF
ClusterName=yardstick-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool-%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
ReturnToService=2
MpiDefault=none
KillWait=5
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/jobcomp.txt
NodeName=n1 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((PORT + 1)) CPUs=$CPUS RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((PORT + 2)) CPUs=$CPUS RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -i
slurmd -N n1
slurmd -N n2
for _ in $(seq 80); do
	if [ "$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$')" = 2 ]; then
		exit 0
	fi
	sleep 0.25
done
echo "cluster-up: the two nodes did not become idle in 20s:" >&2
sinfo -N >&2 || true
tail -n 20 "$D"/slurmctld.log "$D"/slurmd-n*.log >&2 || true
exit 1
