/**
 * The WebGPU target without Dawn: which adapters count as emulated, which target `auto` and an explicit `webgpu`
 * choose (a probe stands in for the session), the environment that gives the emulated adapter, the labels every
 * number carries, and the refusal of one process per adapter. The real run on SwiftShader is in lab.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyVulkanDriver, icdManifestFiles, listWebGpuAdapters, parseIcdManifest, recordedWebGpuAdapters, SWIFTSHADER_ICD } from '@parallel-course/harness/webgpu-adapters.ts';
import { deviceCounts, deviceSpecs, processesPerDevice, providerLabel, resolveTarget, targetParams, type WebGpuFinder } from '../src/target.ts';
import { findWebGpu } from '../src/webgpu-probe.ts';
import { GiB, largestBatchUnder, MiB } from '../src/memory-plan.ts';
import { emulatedAdapterEnv, vulkanLoaderFound } from '../src/webgpu.ts';

const none = { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] };
const gpu = { index: 0, name: 'G', totalMiB: 1, usedMiB: 0, freeMiB: 1 };
const swiftshader = { backend: 'vulkan' as const, vendor: 'Google SwiftShader (CPU)', driver: 'libvk_swiftshader.so', emulated: true, source: SWIFTSHADER_ICD };
const nvidia = { backend: 'vulkan' as const, vendor: 'NVIDIA', driver: 'libGLX_nvidia.so.0', emulated: false, source: '/usr/share/vulkan/icd.d/nvidia_icd.json' };

/** A finder that has only the given adapter, emulated or real, and records what it was asked. */
function finder(adapter: typeof swiftshader | typeof nvidia | null, asked: string[] = []): WebGpuFinder {
  return (mode) => {
    asked.push(mode);
    const ok = adapter !== null && (mode === 'any' || adapter.emulated === false);
    return ok ? { usable: true, adapter, env: (adapter.emulated ? { VK_ICD_FILENAMES: SWIFTSHADER_ICD } : {}) as Record<string, string>, reason: adapter.vendor } : { usable: false, adapter: null, env: {}, reason: 'no real WebGPU adapter' };
  };
}

test('Vulkan drivers: SwiftShader and lavapipe are emulated, GPU vendors real, an unknown driver unknown', () => {
  assert.equal(classifyVulkanDriver('./libvk_swiftshader.so').emulated, true);
  assert.equal(classifyVulkanDriver('/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so').emulated, true);
  assert.equal(classifyVulkanDriver('libGLX_nvidia.so.0').emulated, false);
  assert.equal(classifyVulkanDriver('/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so').vendor, 'AMD');
  assert.equal(classifyVulkanDriver('libvulkan_intel.so').emulated, false);
  assert.deepEqual(classifyVulkanDriver('libvulkan_newthing.so'), { vendor: 'unknown', emulated: null });
  assert.equal(parseIcdManifest('{"file_format_version": "1.0.0", "ICD": {"library_path": "./libvk_swiftshader.so", "api_version": "1.0.5"}}'), './libvk_swiftshader.so');
  assert.equal(parseIcdManifest('not json'), null);
  assert.equal(parseIcdManifest('{"layer": {}}'), null);
});

test('ICD manifests: VK_ICD_FILENAMES replaces the search; else the standard folders', () => {
  assert.deepEqual(icdManifestFiles({ VK_ICD_FILENAMES: '/a.json:/b.json' }), ['/a.json', '/b.json']);
  assert.deepEqual(icdManifestFiles({ VK_DRIVER_FILES: '/c.json', VK_ICD_FILENAMES: '/a.json' }), ['/c.json']);
  const dirs: string[] = [];
  const files = icdManifestFiles({}, (dir) => (dirs.push(dir), dir === '/usr/share/vulkan/icd.d' ? ['nvidia_icd.json', 'README'] : []));
  assert.deepEqual(files, ['/usr/share/vulkan/icd.d/nvidia_icd.json']);
  assert.ok(dirs.includes('/etc/vulkan/icd.d'));
  const read = (file: string) => (file === '/n.json' ? '{"ICD": {"library_path": "libGLX_nvidia.so.0"}}' : null);
  assert.deepEqual(listWebGpuAdapters({ VK_ICD_FILENAMES: '/n.json:/missing.json' }, 'linux', { read }).map((a) => [a.vendor, a.emulated]), [['NVIDIA', false]]);
  assert.equal(listWebGpuAdapters({}, 'darwin')[0]?.emulated, false, 'Metal has no software device');
  assert.equal(listWebGpuAdapters({}, 'win32')[0]?.emulated, null, 'D3D12 may be WARP: not knowable from onnxruntime-node');
  // Recorded for results.json: SwiftShader installed but not registered is listed as used only on request.
  const recorded = recordedWebGpuAdapters({ VK_ICD_FILENAMES: '/nothing.json' }, 'linux', (f) => f === SWIFTSHADER_ICD);
  assert.deepEqual(recorded.map((a) => a.emulated), [true]);
  assert.match(recorded[0]!.source, /used only on request/);
});

test('auto never takes an emulated adapter; an explicit webgpu does, and says so everywhere', () => {
  const asked: string[] = [];
  const auto = resolveTarget({}, none, finder(swiftshader, asked));
  assert.equal(auto.ep, 'cpu');
  assert.deepEqual(asked, ['real']);
  assert.match(auto.reason, /no real WebGPU adapter/);
  // A real adapter and no CUDA GPU: auto takes WebGPU; with a CUDA GPU, CUDA first, and WebGPU is not even looked for.
  assert.equal(resolveTarget({}, none, finder(nvidia)).ep, 'webgpu');
  const cudaAsked: string[] = [];
  assert.equal(resolveTarget({}, { gpus: [gpu], problems: [] }, finder(nvidia, cudaAsked)).ep, 'cuda');
  assert.deepEqual(cudaAsked, []);
  const emulated = resolveTarget({ GPU_BATCHING_EP: 'webgpu' }, none, finder(swiftshader));
  assert.equal(emulated.error, null);
  assert.deepEqual(targetParams(emulated), { ep: 'webgpu', adapter: 'emulated' });
  assert.equal(providerLabel(emulated), "WebGPU, emulated GPU on the CPU: correct, but its times are not a GPU's");
  assert.deepEqual(emulated.env, { VK_ICD_FILENAMES: SWIFTSHADER_ICD });
  assert.deepEqual(targetParams(resolveTarget({}, none, finder(nvidia))), { ep: 'webgpu', adapter: 'real' });
  // No adapter at all: setup fails with the reason, never a silent CPU run.
  const missing = resolveTarget({ GPU_BATCHING_EP: 'webgpu' }, none, finder(null));
  assert.match(missing.error ?? '', /^GPU_BATCHING_EP=webgpu but no real WebGPU adapter/);
});

test('one process per WebGPU adapter is refused with the reason; processes per device share one', () => {
  const target = resolveTarget({ GPU_BATCHING_EP: 'webgpu' }, none, finder(swiftshader));
  assert.deepEqual(deviceCounts(target, 64), [1]);
  assert.throws(() => deviceSpecs(target, 2, 1), /2 WebGPU devices asked for: one process per WebGPU adapter is not possible: onnxruntime-node 1\.30 cannot choose/);
  assert.deepEqual(deviceSpecs(target, 1, 1, 3).map((d) => d.device), [0, 1, 2]);
  const cuda = resolveTarget({}, { gpus: [{ ...gpu, index: 4 }], problems: [] }, finder(null));
  assert.deepEqual(deviceSpecs(cuda, 1, 1, 2).map((d) => d.visibleDevices), ['4', '4'], 'both processes on the same GPU');
  assert.deepEqual(processesPerDevice(2), [1, 2]);
  assert.deepEqual(processesPerDevice(64), [1, 2, 3, 4]);
  assert.deepEqual(processesPerDevice(1), [1]);
});

test('the emulated adapter: SwiftShader ICD and the Vulkan loader, or the fix', () => {
  const has = (files: string[]) => (f: string) => files.includes(f);
  assert.deepEqual(emulatedAdapterEnv({}, 'linux', has([SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1'])), { env: { VK_ICD_FILENAMES: SWIFTSHADER_ICD } });
  assert.match((emulatedAdapterEnv({}, 'linux', has([])) as { error: string }).error, /SwiftShader's Vulkan ICD .* is not installed: .*apt-get install chromium libvulkan1/);
  assert.match((emulatedAdapterEnv({}, 'linux', has([SWIFTSHADER_ICD])) as { error: string }).error, /libvulkan\.so\.1\) is not installed: apt-get install libvulkan1, or start with LD_LIBRARY_PATH=\/usr\/lib\/chromium/);
  assert.equal(vulkanLoaderFound({ LD_LIBRARY_PATH: '/usr/lib/chromium' }, has(['/usr/lib/chromium/libvulkan.so.1'])), true);
  assert.match((emulatedAdapterEnv({}, 'darwin') as { error: string }).error, /no emulated WebGPU adapter is set up on darwin/);
  // findWebGpu with a stand-in probe: the emulated adapter is set up only for an explicit request.
  const probed: NodeJS.ProcessEnv[] = [];
  const probe = (env: NodeJS.ProcessEnv) => (probed.push(env), { usable: true, reason: null });
  const exists = has([SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1']);
  const empty = { XDG_CONFIG_HOME: '/nonexistent', XDG_CONFIG_DIRS: '/nonexistent-a', XDG_DATA_HOME: '/nonexistent', XDG_DATA_DIRS: '/nonexistent-b' };
  assert.equal(findWebGpu('real', empty, 'linux', probe, exists).usable, false);
  assert.equal(probed.length, 0, 'auto probes nothing when no real adapter is listed');
  const any = findWebGpu('any', empty, 'linux', probe, exists);
  assert.equal(any.usable, true);
  assert.equal(probed[0]?.VK_ICD_FILENAMES, SWIFTSHADER_ICD);
  assert.deepEqual(any.env, { VK_ICD_FILENAMES: SWIFTSHADER_ICD });
  // A session that cannot be created: not usable, the provider's words, then the fix.
  const broken = findWebGpu('any', empty, 'linux', () => ({ usable: false, reason: 'Failed to get a WebGPU adapter: No supported adapters' }), exists);
  assert.equal(broken.usable, false);
  assert.match(broken.reason, /failed \(Failed to get a WebGPU adapter: No supported adapters\)\. Fix: install a Vulkan driver for your GPU/);
  // Without the Vulkan loader nothing is probed: the fix names libvulkan1.
  assert.match(findWebGpu('any', empty, 'linux', probe, has([SWIFTSHADER_ICD])).reason, /apt-get install libvulkan1/);
});

test("the memory plan's WebGPU limit: the largest batch whose buffers fit under the adapter's largest buffer", () => {
  assert.equal(largestBatchUnder(GiB), 512, "SwiftShader's 1 GiB holds every swept batch");
  assert.equal(largestBatchUnder(7 * MiB), 0, 'the second layer (2048 x 1024 floats, 8 MiB) does not fit in 7 MiB');
  assert.equal(largestBatchUnder(8 * MiB), 512, 'once the weights fit, so does a batch of 512 (512 x 2048 floats is 4 MiB)');
});
