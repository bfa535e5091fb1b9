#!/usr/bin/env bash
# Stops what start-slurm.sh started: cancels the cluster's jobs, ends slurmd, slurmctld and (if it started it) munged
# by their pid files, and removes its slurm.conf. Safe to run when nothing was started, and more than once.
set -uo pipefail

state="${COURSE_SLURM_DIR:-/tmp/course-slurm}"
conf=/etc/slurm/slurm.conf
marker='# written by labs/harness/slurm/ci/start-slurm.sh'

if ! grep -qF "$marker" "$conf" 2>/dev/null; then
  exit 0   # start-slurm.sh started nothing here (no root, or a real cluster it left alone)
fi
# Jobs first, so no slurmstepd outlives the daemons (only slurmctld can cancel them).
if [ -f "$state/slurmctld.pid" ] && kill -0 "$(cat "$state/slurmctld.pid")" 2>/dev/null; then
  timeout 10 scancel --full --partition=debug 2>/dev/null
  for _ in $(seq 15); do
    [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
    sleep 1
  done
fi

stop_pid_file() { # $1 pid file, $2 name: SIGTERM, then SIGKILL after 10 s
  local pid
  [ -f "$1" ] || return 0
  pid="$(cat "$1")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$1"
  echo "stop-slurm: $2 stopped" >&2
}
stop_pid_file "$state/slurmd.pid" slurmd
stop_pid_file "$state/slurmctld.pid" slurmctld
if [ -f "$state/munged.ours" ]; then
  stop_pid_file /run/munge/munged.pid munged
  rm -f "$state/munged.ours"
fi
rm -f "$conf"
