#!/usr/bin/env bash
# Runs the gpu-batching lab on a GPU node in about 5 minutes: detection, memory plan, the multi-GPU run with
# per-device progress, proof that the processes really sat on the GPUs, and a --quick harness run on CUDA.
#
# Needs: this repository installed (npm ci), an NVIDIA driver (nvidia-smi), CUDA 12 and cuDNN 9 libraries, and the
# CUDA execution provider of onnxruntime-node (see labs/gpu-batching/README.md, "On a GPU node"). Nothing here
# downloads anything. Usage, from anywhere:   bash labs/gpu-batching/scripts/gpu-node.sh [results folder]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/results}"
node="$root/node_modules/.bin/node"
lab="$root/labs/gpu-batching"

step() { printf '\n== %s\n' "$*"; }
die() { printf 'gpu-node.sh: %s\n' "$*" >&2; exit 1; }

[[ -x "$node" ]] || die "no Node in $root/node_modules/.bin: run 'npm ci' in $root first"
command -v nvidia-smi >/dev/null 2>&1 || die "nvidia-smi not found: this is not a GPU node (or the driver is not loaded)"

step "GPUs (nvidia-smi)"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv

step "Model and memory plan (also probes whether the CUDA execution provider loads)"
"$node" "$lab/src/generate-model-cli.ts"
plan="$("$node" "$lab/src/plan-cli.ts")"
printf '%s\n' "$plan"
if grep -q 'CUDA execution provider usable: NO' <<<"$plan"; then
  die "the CUDA execution provider does not load here; install it (labs/gpu-batching/README.md) or run on CPU with GPU_BATCHING_EP=cpu"
fi

export GPU_BATCHING_EP=cuda

step "One process per GPU (CUDA_VISIBLE_DEVICES per process, deviceId 0 inside), with a check against one session"
# While it runs, record which processes hold GPU memory: the proof that the work ran on the GPUs.
apps="$(mktemp)"
trap 'rm -f "$apps"' EXIT
( for _ in $(seq 1 30); do
    nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader >>"$apps" 2>/dev/null || true
    sleep 1
  done ) &
watcher=$!
status=0
timeout 120 "$node" "$lab/src/devices-cli.ts" --samples 16384 || status=$?
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
step "Processes seen on the GPUs during the run (pid, GPU, memory)"
if [[ -s "$apps" ]]; then sort -u "$apps"; else echo "none seen: the run did not use the GPUs (check the lines above)"; status=1; fi
[[ $status -eq 0 ]] || die "the multi-GPU run failed (status $status)"

step "The lab through the harness on CUDA (--quick), results in $out"
timeout 150 "$node" "$root/labs/harness/src/cli.ts" gpu-batching --impl solution --quick --out "$out"
runs=("$out"/gpu-batching/*/) # run folders are timestamps: the glob's sorted order puts the newest last
cat "${runs[-1]}analysis/analysis.md" # the lab's analysis, written by the harness after the run
