/** The node's shape from a fake sysfs: 2 sockets x 4 cores x 2 threads, 2 NUMA nodes; and what a sweep crosses. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeTopology, parseCacheSize, readTopology, topologyWarnings } from '../src/machine/topology.ts';
import { expandCpuList } from '../src/machine/cpus.ts';

/** CPUs 0-7 on socket 0 and 8-15 on socket 1; CPU c and c + 4 (on socket 0; c + 12 on socket 1) are SMT siblings. */
function fakeSysfs(): (file: string) => string | null {
  const files: Record<string, string> = {
    '/sys/devices/system/node/online': '0-1\n',
    '/sys/devices/system/node/node0/cpulist': '0-7\n',
    '/sys/devices/system/node/node1/cpulist': '8-15\n',
  };
  for (let cpu = 0; cpu < 16; cpu++) {
    files[`/sys/devices/system/cpu/cpu${cpu}/topology/physical_package_id`] = String(cpu < 8 ? 0 : 1);
    files[`/sys/devices/system/cpu/cpu${cpu}/topology/core_id`] = String(cpu % 4);
  }
  const cache = (i: number, level: number, type: string, size: string, shared: string) => {
    const base = `/sys/devices/system/cpu/cpu0/cache/index${i}`;
    Object.assign(files, { [`${base}/level`]: `${level}\n`, [`${base}/type`]: `${type}\n`, [`${base}/size`]: `${size}\n`, [`${base}/shared_cpu_list`]: `${shared}\n` });
  };
  cache(0, 1, 'Data', '48K', '0,4');
  cache(1, 1, 'Instruction', '32K', '0,4');
  cache(2, 2, 'Unified', '2048K', '0,4');
  cache(3, 3, 'Unified', '105M', '0-7');
  return (file) => files[file] ?? null;
}

test('cores, SMT, sockets, NUMA nodes and caches of the whole node', () => {
  const t = readTopology(expandCpuList('0-15'), fakeSysfs());
  assert.deepEqual(
    { cores: t.physicalCores, tpc: t.threadsPerCore, sockets: t.sockets, numa: t.numaNodes, perSocket: t.coresPerSocket },
    { cores: 8, tpc: 2, sockets: 2, numa: 2, perSocket: 4 },
  );
  assert.deepEqual(t.caches.map((c) => [c.level, c.type, c.sizeKiB, c.sharedByCpus]), [[1, 'Data', 48, 2], [1, 'Instruction', 32, 2], [2, 'Unified', 2048, 2], [3, 'Unified', 107_520, 8]]);
  assert.equal(describeTopology(t), '8 cores x 2 threads, 2 sockets, 2 NUMA nodes; L1d 48 KiB, L2 2 MiB, L3 105 MiB');
});

test('a job bound to one socket sees that socket only', () => {
  const t = readTopology(expandCpuList('0-7'), fakeSysfs());
  assert.deepEqual([t.physicalCores, t.sockets, t.numaNodes], [4, 1, 1]);
});

test('a sweep past the cores warns about SMT; past one socket, about the interconnect and first touch', () => {
  const t = readTopology(expandCpuList('0-15'), fakeSysfs());
  assert.deepEqual(topologyWarnings(t, 4), []);
  const w = topologyWarnings(t, 16);
  assert.equal(w.length, 2);
  assert.match(w[0]!, /^The sweep goes past the 8 physical cores into their SMT siblings \(2 hardware threads per core\)/);
  assert.match(w[1]!, /^The sweep crosses sockets \(2 sockets, 4 cores each, 2 NUMA nodes\): cases with more than 4 workers/);
  assert.deepEqual(topologyWarnings(readTopology([0], () => null), 64), [], 'unknown topology: no warning');
  assert.equal(describeTopology(readTopology([0, 1], () => null)), '2 CPUs (cores, sockets and caches unknown here)');
});

test('cache sizes and CPU lists as sysfs writes them', () => {
  assert.equal(parseCacheSize('32K'), 32);
  assert.equal(parseCacheSize('32M'), 32_768);
  assert.deepEqual(expandCpuList('0-2,5'), [0, 1, 2, 5]);
});
