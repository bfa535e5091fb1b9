/**
 * The WebGPU target without Dawn: which adapters count as emulated, which target `auto` and an explicit `webgpu`
 * choose (a probe stands in for the session), the environment that gives the emulated adapter, the labels every
 * number carries, and the refusal of one process per adapter. The real run on SwiftShader is in lab.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { classifyVulkanDriver, describeAdapter, describeIgnored, icdManifestFiles, listWebGpuAdapters, lookUpWebGpuAdapters, parseIcdManifest, recordedWebGpuAdapters, SWIFTSHADER_ICD } from '@parallel-course/harness';
import { deviceCounts, deviceSpecs, processesPerDevice, providerLabel, resolveTarget, targetParams, type WebGpuFinder } from '../src/target.ts';
import { findWebGpu } from '../src/webgpu-probe.ts';
import { GiB, largestBatchUnder, MiB } from '../src/memory-plan.ts';
import { emulatedAdapterEnv, SWIFTSHADER_ENV, vulkanLoaderFound } from '../src/webgpu.ts';

const none = { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] };
const gpu = { index: 0, name: 'G', totalMiB: 1, usedMiB: 0, freeMiB: 1 };
const swiftshader = { backend: 'vulkan' as const, vendor: 'Google SwiftShader (CPU)', driver: 'libvk_swiftshader.so', emulated: true, source: SWIFTSHADER_ICD };
const nvidia = { backend: 'vulkan' as const, vendor: 'NVIDIA', driver: 'libGLX_nvidia.so.0', emulated: false, source: '/usr/share/vulkan/icd.d/nvidia_icd.json' };

/** A finder that has only the given adapter, emulated or real, and records what it was asked. */
function finder(adapter: typeof swiftshader | typeof nvidia | null, asked: string[] = []): WebGpuFinder {
  return (mode) => {
    asked.push(mode);
    const ok = adapter !== null && (mode === 'any' || adapter.emulated === false);
    return ok ? { usable: true, adapter, env: (adapter.emulated ? { ...SWIFTSHADER_ENV } : {}) as Record<string, string>, reason: adapter.vendor } : { usable: false, adapter: null, env: {}, reason: 'no real WebGPU adapter' };
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
  const root = fakeMachine({ icds: { 'n.json': 'libGLX_nvidia.so.0' }, pci: [datacentreNvidia] });
  assert.deepEqual(listWebGpuAdapters({ VK_ICD_FILENAMES: '/usr/share/vulkan/icd.d/n.json:/missing.json' }, 'linux', { root }).map((a) => [a.vendor, a.emulated]), [['NVIDIA', false]]);
  assert.equal(listWebGpuAdapters({}, 'darwin')[0]?.emulated, false, 'Metal has no software device');
  assert.equal(listWebGpuAdapters({}, 'win32')[0]?.emulated, null, 'D3D12 may be WARP: not knowable from onnxruntime-node');
  // Recorded for results.json: SwiftShader installed but not registered is listed as used only on request.
  const recorded = recordedWebGpuAdapters({}, 'linux', (f) => f === SWIFTSHADER_ICD, { root: fakeMachine({}) });
  assert.deepEqual(recorded.map((a) => a.emulated), [true]);
  assert.match(recorded[0]!.source, /used only on request/);
});

/** Mesa's mesa-vulkan-drivers on Debian 12: these four manifests, whatever the hardware. */
const MESA_ICDS = {
  'intel_icd.x86_64.json': '/usr/lib/x86_64-linux-gnu/libvulkan_intel.so',
  'intel_hasvk_icd.x86_64.json': '/usr/lib/x86_64-linux-gnu/libvulkan_intel_hasvk.so',
  'radeon_icd.x86_64.json': '/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so',
  'lvp_icd.x86_64.json': '/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so',
};
/** A VM's PCI bus as on this course's machines: an Intel host bridge (class 0x06, not a display) and virtio devices. */
const VM_PCI: FakePci[] = [
  { slot: '0000:00:00.0', class: '0x060000', vendor: '0x8086', device: '0x0d57', driver: null },
  { slot: '0000:00:03.0', class: '0x020000', vendor: '0x1af4', device: '0x1041', driver: 'virtio-pci' },
];
const datacentreNvidia: FakePci = { slot: '0000:17:00.0', class: '0x030200', vendor: '0x10de', device: '0x2330', driver: 'nvidia' };

interface FakePci { slot: string; class: string; vendor: string; device: string; driver: string | null }

/**
 * A fake machine under a temporary folder: ICD manifests in usr/share/vulkan/icd.d (name -> library), PCI functions
 * in sys/bus/pci/devices with their kernel driver linked as Linux does, DRM cards in sys/class/drm, or no sys at all.
 */
function fakeMachine(spec: { icds?: Record<string, string>; pci?: FakePci[]; drm?: Array<{ card: string; driver: string }>; noSys?: boolean }): string {
  const root = mkdtempSync(path.join(tmpdir(), 'fake-machine-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const icdDir = path.join(root, 'usr/share/vulkan/icd.d');
  mkdirSync(icdDir, { recursive: true });
  for (const [name, library] of Object.entries(spec.icds ?? {})) {
    writeFileSync(path.join(icdDir, name), JSON.stringify({ file_format_version: '1.0.0', ICD: { library_path: library, api_version: '1.3.230' } }));
  }
  if (spec.noSys) return root;
  const bus = path.join(root, 'sys/bus/pci');
  mkdirSync(path.join(bus, 'devices'), { recursive: true });
  mkdirSync(path.join(root, 'sys/class/drm'), { recursive: true });
  const linkDriver = (deviceDir: string, driver: string | null, busDir: string) => {
    if (driver === null) return;
    mkdirSync(path.join(busDir, 'drivers', driver), { recursive: true });
    symlinkSync(path.join(busDir, 'drivers', driver), path.join(deviceDir, 'driver'));
  };
  for (const d of spec.pci ?? []) {
    const dir = path.join(root, 'sys/devices/pci0000:00', d.slot);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'class'), `${d.class}\n`);
    writeFileSync(path.join(dir, 'vendor'), `${d.vendor}\n`);
    writeFileSync(path.join(dir, 'device'), `${d.device}\n`);
    linkDriver(dir, d.driver, bus);
    symlinkSync(dir, path.join(bus, 'devices', d.slot));
  }
  for (const c of spec.drm ?? []) {
    // A GPU that is not on PCI (a phone's, a board's): its DRM card's device has no vendor file.
    const dir = path.join(root, 'sys/devices/platform', `gpu-${c.card}`);
    mkdirSync(path.join(dir, 'drm', c.card), { recursive: true });
    linkDriver(dir, c.driver, path.join(root, 'sys/bus/platform'));
    symlinkSync(path.join(dir, 'drm', c.card), path.join(root, 'sys/class/drm', c.card));
    symlinkSync(dir, path.join(dir, 'drm', c.card, 'device'));
  }
  return root;
}

test("Mesa's drivers on a machine with no GPU: Intel and AMD left out (no device), lavapipe a CPU rasteriser, SwiftShader chosen", () => {
  const root = fakeMachine({ icds: MESA_ICDS, pci: VM_PCI });
  const { adapters, ignored } = lookUpWebGpuAdapters({}, 'linux', { root });
  assert.deepEqual(adapters.map((a) => [a.driver, a.emulated]), [['libvulkan_lvp.so', true]]);
  assert.match(describeAdapter(adapters[0]!), /^Mesa lavapipe \(CPU rasteriser; Dawn refuses it\) \(vulkan, libvulkan_lvp\.so; emulated on the CPU\)$/);
  assert.deepEqual(ignored.map((i) => i.driver).sort(), ['libvulkan_intel.so', 'libvulkan_intel_hasvk.so', 'libvulkan_radeon.so']);
  assert.equal(describeIgnored(ignored.find((i) => i.driver === 'libvulkan_intel.so')!), 'Intel (libvulkan_intel.so): left out, no Intel display device in this machine (driver installed, device absent)');
  // auto: no real adapter, nothing probed; an explicit webgpu: SwiftShader, alone in VK_ICD_FILENAMES.
  const probed: NodeJS.ProcessEnv[] = [];
  const probe = (env: NodeJS.ProcessEnv) => (probed.push(env), { usable: true, reason: null });
  const exists = (f: string) => [SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1'].includes(f);
  const auto = findWebGpu('real', {}, 'linux', probe, exists, { root });
  assert.equal(auto.usable, false);
  assert.match(auto.reason, /^no real WebGPU adapter \(found: Mesa lavapipe .*?; drivers left out, their device absent: Intel \(libvulkan_intel_hasvk\.so\), Intel \(libvulkan_intel\.so\), AMD \(libvulkan_radeon\.so\); an emulated/);
  assert.equal(probed.length, 0);
  const any = findWebGpu('any', {}, 'linux', probe, exists, { root });
  assert.equal(any.usable, true, any.reason);
  assert.deepEqual(probed.map((e) => e.VK_ICD_FILENAMES), [SWIFTSHADER_ICD], 'one probe, on SwiftShader');
  assert.deepEqual(any.env, SWIFTSHADER_ENV);
  assert.doesNotMatch(any.reason, /real GPU/);
});

test('a GPU driver is an adapter when its device is here and runs on its kernel driver; otherwise left out with the reason', () => {
  const intelGpu: FakePci = { slot: '0000:00:02.0', class: '0x030000', vendor: '0x8086', device: '0x9a49', driver: 'i915' };
  const laptop = lookUpWebGpuAdapters({}, 'linux', { root: fakeMachine({ icds: MESA_ICDS, pci: [...VM_PCI, intelGpu] }) });
  assert.deepEqual(laptop.adapters.map((a) => [a.driver, a.emulated]), [['libvulkan_intel_hasvk.so', false], ['libvulkan_intel.so', false], ['libvulkan_lvp.so', true]]);
  assert.match(laptop.adapters.find((a) => a.driver === 'libvulkan_intel.so')!.source, /intel_icd\.x86_64\.json; 0x8086:0x9a49 \(i915\) at \/sys\/bus\/pci\/devices\/0000:00:02\.0$/);
  assert.deepEqual(laptop.ignored.map((i) => i.driver), ['libvulkan_radeon.so']);
  // A data-centre GPU (class 0x0302, no DRM card): NVIDIA's driver kept; Mesa's NVK needs nouveau, so left out.
  const node = lookUpWebGpuAdapters({}, 'linux', { root: fakeMachine({ icds: { 'nvidia_icd.json': 'libGLX_nvidia.so.0', 'nouveau_icd.x86_64.json': 'libvulkan_nouveau.so' }, pci: [datacentreNvidia] }) });
  assert.deepEqual(node.adapters.map((a) => a.vendor), ['NVIDIA']);
  assert.match(describeIgnored(node.ignored[0]!), /^NVIDIA \(Mesa NVK\) \(libvulkan_nouveau\.so\): left out, the NVIDIA \(Mesa NVK\) device 0x10de:0x2330 at \/sys\/bus\/pci\/devices\/0000:17:00\.0 runs on nvidia, not nouveau$/);
  // Passed through to a VM (vfio-pci): no Vulkan driver can open it here.
  const passthrough = lookUpWebGpuAdapters({}, 'linux', { root: fakeMachine({ icds: { 'nvidia_icd.json': 'libGLX_nvidia.so.0' }, pci: [{ ...datacentreNvidia, driver: 'vfio-pci' }] }) });
  assert.deepEqual(passthrough.adapters, []);
  assert.match(passthrough.ignored[0]!.reason, /runs on vfio-pci, not nvidia$/);
  // A GPU that is not on PCI, found through its DRM card and kernel driver.
  const board = lookUpWebGpuAdapters({}, 'linux', { root: fakeMachine({ icds: { 'panfrost_icd.aarch64.json': 'libvulkan_panfrost.so', ...MESA_ICDS }, drm: [{ card: 'card0', driver: 'panfrost' }] }) });
  assert.deepEqual(board.adapters.filter((a) => a.emulated === false).map((a) => a.driver), ['libvulkan_panfrost.so']);
  assert.match(board.adapters.find((a) => a.driver === 'libvulkan_panfrost.so')!.source, /\(panfrost\) at \/sys\/class\/drm\/card0\/device$/);
  // No sysfs to read (a container without /sys): a GPU driver is kept, but as unknown, which auto never takes.
  const blind = lookUpWebGpuAdapters({}, 'linux', { root: fakeMachine({ icds: { 'nvidia_icd.json': 'libGLX_nvidia.so.0' }, noSys: true }) });
  assert.deepEqual(blind.adapters.map((a) => [a.vendor, a.emulated]), [['NVIDIA', null]]);
  assert.match(blind.adapters[0]!.source, /devices not readable/);
});

test('an explicit webgpu whose real adapter fails its session takes SwiftShader, and says why', () => {
  const root = fakeMachine({ icds: { 'nvidia_icd.json': 'libGLX_nvidia.so.0' }, pci: [datacentreNvidia] });
  const exists = (f: string) => [SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1'].includes(f);
  const probe = (env: NodeJS.ProcessEnv) => (env.VK_ICD_FILENAMES === SWIFTSHADER_ICD ? { usable: true, reason: null } : { usable: false, reason: 'No supported adapters' });
  const any = findWebGpu('any', {}, 'linux', probe, exists, { root });
  assert.equal(any.usable, true);
  assert.deepEqual(any.env, SWIFTSHADER_ENV);
  assert.match(any.reason, /^Google SwiftShader \(CPU\) .*emulated on the CPU\), chosen because a WebGPU session on NVIDIA \(vulkan, libGLX_nvidia\.so\.0; real GPU\) failed \(No supported adapters\)$/);
  // auto asks for a real adapter only: the failure is the answer, with the fix.
  const auto = findWebGpu('real', {}, 'linux', probe, exists, { root });
  assert.equal(auto.usable, false);
  assert.match(auto.reason, /^a WebGPU session on NVIDIA .* failed \(No supported adapters\)\. Fix: install a Vulkan driver/);
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
  assert.deepEqual(emulated.env, SWIFTSHADER_ENV);
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
  assert.deepEqual(emulatedAdapterEnv({}, 'linux', has([SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1'])), { env: { ...SWIFTSHADER_ENV } });
  assert.match((emulatedAdapterEnv({}, 'linux', has([])) as { error: string }).error, /SwiftShader's Vulkan ICD .* is not installed: .*apt-get install chromium libvulkan1/);
  assert.match((emulatedAdapterEnv({}, 'linux', has([SWIFTSHADER_ICD])) as { error: string }).error, /libvulkan\.so\.1\) is not installed: apt-get install libvulkan1, or start with LD_LIBRARY_PATH=\/usr\/lib\/chromium/);
  assert.equal(vulkanLoaderFound({ LD_LIBRARY_PATH: '/usr/lib/chromium' }, has(['/usr/lib/chromium/libvulkan.so.1'])), true);
  assert.match((emulatedAdapterEnv({}, 'darwin') as { error: string }).error, /no emulated WebGPU adapter is set up on darwin/);
  // findWebGpu with a stand-in probe: the emulated adapter is set up only for an explicit request.
  const probed: NodeJS.ProcessEnv[] = [];
  const probe = (env: NodeJS.ProcessEnv) => (probed.push(env), { usable: true, reason: null });
  const exists = has([SWIFTSHADER_ICD, '/usr/lib/x86_64-linux-gnu/libvulkan.so.1']);
  const empty = {};
  const io = { root: fakeMachine({ pci: VM_PCI }) };
  assert.equal(findWebGpu('real', empty, 'linux', probe, exists, io).usable, false);
  assert.equal(probed.length, 0, 'auto probes nothing when no real adapter is listed');
  const any = findWebGpu('any', empty, 'linux', probe, exists, io);
  assert.equal(any.usable, true);
  assert.equal(probed[0]?.VK_ICD_FILENAMES, SWIFTSHADER_ICD);
  assert.deepEqual(any.env, SWIFTSHADER_ENV);
  // A session that cannot be created: not usable, the provider's words, then the fix.
  const broken = findWebGpu('any', empty, 'linux', () => ({ usable: false, reason: 'Failed to get a WebGPU adapter: No supported adapters' }), exists, io);
  assert.equal(broken.usable, false);
  assert.match(broken.reason, /failed \(Failed to get a WebGPU adapter: No supported adapters\)\. Fix: install a Vulkan driver for your GPU/);
  // Without the Vulkan loader nothing is probed: the fix names libvulkan1.
  assert.match(findWebGpu('any', empty, 'linux', probe, has([SWIFTSHADER_ICD]), io).reason, /apt-get install libvulkan1/);
});

test("the memory plan's WebGPU limit: the largest batch whose buffers fit under the adapter's largest buffer", () => {
  assert.equal(largestBatchUnder(GiB), 512, "SwiftShader's 1 GiB holds every swept batch");
  assert.equal(largestBatchUnder(7 * MiB), 0, 'the second layer (2048 x 1024 floats, 8 MiB) does not fit in 7 MiB');
  assert.equal(largestBatchUnder(8 * MiB), 512, 'once the weights fit, so does a batch of 512 (512 x 2048 floats is 4 MiB)');
});
