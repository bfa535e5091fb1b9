#!/usr/bin/env bash
# A one-node Slurm on this machine, for labs/harness/test/slurm-real.test.ts (CI: .ci/run calls it before `npm test`
# and stop-slurm.sh on exit, whatever happened).
#
# Installs Debian's slurmd, slurmctld, slurm-client and munge when they are missing, writes /etc/slurm/slurm.conf
# with this host as controller and only node (CPUs = nproc), starts munged, slurmctld and slurmd, and waits (at most
# 60 s) until sinfo shows the node idle. Tried with Debian 12's Slurm 22.05.8.
#
# Without root it changes nothing, says so in one line and exits 0: the tests then skip with that reason. With root,
# any failure is an error (exit 1), so a CI machine that should have a cluster does not quietly test without one.
# A Slurm that already answers (a real cluster) is used as it is and left alone by stop-slurm.sh.
set -euo pipefail

state="${COURSE_SLURM_DIR:-/tmp/course-slurm}"
conf=/etc/slurm/slurm.conf
marker='# written by labs/harness/slurm/ci/start-slurm.sh'

if [ "$(id -u)" -ne 0 ]; then
  echo "start-slurm: not root, so no Slurm is installed or started here; the real-Slurm tests will skip" >&2
  exit 0
fi
if command -v sinfo >/dev/null && timeout 10 sinfo -h >/dev/null 2>&1 && ! grep -qF "$marker" "$conf" 2>/dev/null; then
  echo "start-slurm: a Slurm already answers here (sinfo); using it and starting nothing" >&2
  exit 0
fi

missing=()
for pair in slurmd:slurmd slurmctld:slurmctld sbatch:slurm-client munged:munge; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "start-slurm: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  # policy-rc.d 101: the packages' own service starts are refused (this script starts the daemons itself).
  # A machine's own policy-rc.d (a container's) is left as it is.
  ours_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    ours_policy=1
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ "$ours_policy" = 1 ]; then
    rm -f /usr/sbin/policy-rc.d
    trap - EXIT
  fi
fi

if [ -e "$conf" ] && ! grep -qF "$marker" "$conf"; then
  echo "start-slurm: $conf exists and was not written by this script; not touching it" >&2
  exit 1
fi

host="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$state"/{spool/ctld,spool/d,log} /etc/slurm
# Memory in MiB, a little under the machine's, so that slurmd's own count is never below it (the node would drain).
mem_mib="$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
cat >"$conf" <<CONF
$marker; removed by stop-slurm.sh
ClusterName=course-ci
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Affinity only: CPUs are bound, not limited by cgroups (this CI machine has no cgroup setup for Slurm).
TaskPlugin=task/affinity
ProctrackType=proctrack/linuxproc
MpiDefault=none
ReturnToService=2
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$state/spool/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
SchedulerType=sched/backfill
# Short waits, so the tests' cancelled and timed-out jobs end in seconds: SIGTERM, then SIGKILL KillWait later.
KillWait=10
MinJobAge=300
InactiveLimit=0
OverTimeLimit=0
NodeName=$host CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# munge: its own user, its run, log and key folders; a key if the package made none.
mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key; else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
fi
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
chmod 0700 /etc/munge /var/log/munge /var/lib/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! { [ -f /run/munge/munged.pid ] && kill -0 "$(cat /run/munge/munged.pid)" 2>/dev/null; }; then
  su -s /bin/sh munge -c munged
  echo started >"$state/munged.ours"
fi

slurmctld
slurmd

for _ in $(seq 60); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; then
    echo "start-slurm: $(sinfo --version) up: node $host, $cpus CPUs, partition debug (logs in $state/log)" >&2
    exit 0
  fi
  sleep 1
done
echo "start-slurm: the node did not become idle within 60 s; sinfo says:" >&2
sinfo -N -l >&2 || true
tail -n 20 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
exit 1
