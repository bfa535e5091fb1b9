/**
 * Which WebGPU adapters this machine offers to onnxruntime-node's WebGPU execution provider (Dawn), and whether each
 * is a real GPU or a GPU emulated on the CPU. onnxruntime-node 1.30 says nothing about the adapter it takes (no
 * adapter info, no adapter index: the binding forwards no deviceId to WebGPU), so the lab reads what Dawn itself will
 * find: on Linux, the Vulkan drivers (ICD manifests) the Vulkan loader will load, each GPU driver kept only when a
 * device it drives is in sysfs (a manifest is not a device: Mesa's package installs Intel, AMD and lavapipe manifests
 * on every machine); on macOS, Metal (always a real GPU); on Windows, D3D12 (real or the WARP software adapter: not
 * knowable from here, so `emulated: null`).
 *
 * The emulated adapter: Debian's `chromium` package ships SwiftShader (a Vulkan driver on the CPU) with its ICD
 * manifest. Pointing VK_ICD_FILENAMES at it gives Dawn that one adapter. It is chosen only on purpose
 * (GPU_BATCHING_EP=webgpu on a machine without a real adapter), never by `auto`.
 */
import { existsSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readSystemFile } from './cpus.ts';

/** Debian's chromium package: SwiftShader's Vulkan ICD manifest (its library sits beside it). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
/** The words every number measured on an emulated adapter carries (terminal, results, report, viewer, episode). */
export const EMULATED_WARNING = "emulated GPU on the CPU: correct, but its times are not a GPU's";

export type WebGpuBackend = 'vulkan' | 'metal' | 'd3d12';

export interface WebGpuAdapter {
  backend: WebGpuBackend;
  /** Who made the driver or GPU, as far as the driver's name tells ("NVIDIA", "Google SwiftShader", "unknown"). */
  vendor: string;
  /** The driver (Vulkan ICD library, or the platform API where there is no choice of driver). */
  driver: string;
  /** true: a GPU emulated on the CPU (SwiftShader, lavapipe/llvmpipe, WARP); false: a real GPU; null: cannot tell. */
  emulated: boolean | null;
  /** Where this entry came from: an ICD manifest path, or the platform. */
  source: string;
}

/** Debian's SwiftShader as an adapter: what the lab sets up with VK_ICD_FILENAMES when asked for webgpu without a GPU. */
export const SWIFTSHADER_ADAPTER: WebGpuAdapter = { backend: 'vulkan', vendor: 'Google SwiftShader (CPU)', driver: 'libvk_swiftshader.so', emulated: true, source: SWIFTSHADER_ICD };

/**
 * Vulkan drivers by the file name of their library: vendor, whether the "GPU" is the CPU, and for a GPU driver the
 * device it drives: its PCI vendor id and the kernel drivers it runs on (Mesa's RADV and AMDVLK need amdgpu, not the
 * old radeon driver; NVIDIA's own driver needs nvidia, Mesa's NVK nouveau). A GPU driver is an adapter only when such
 * a device is in this machine: Mesa installs its Intel, AMD and lavapipe manifests whatever the hardware.
 */
const KNOWN_DRIVERS: Array<{ pattern: RegExp; vendor: string; emulated: boolean | null; pciVendor?: string; kernelDrivers?: string[] }> = [
  { pattern: /swiftshader/i, vendor: 'Google SwiftShader (CPU)', emulated: true },
  // Dawn refuses lavapipe (it lacks shaderUniform*ArrayDynamicIndexing; TOOLCHAIN.md): listed, never chosen.
  { pattern: /lvp|lavapipe|llvmpipe/i, vendor: 'Mesa lavapipe (CPU rasteriser; Dawn refuses it)', emulated: true },
  { pattern: /nvidia/i, vendor: 'NVIDIA', emulated: false, pciVendor: '0x10de', kernelDrivers: ['nvidia'] },
  { pattern: /radeon|amdvlk|amdgpu/i, vendor: 'AMD', emulated: false, pciVendor: '0x1002', kernelDrivers: ['amdgpu'] },
  { pattern: /intel/i, vendor: 'Intel', emulated: false, pciVendor: '0x8086', kernelDrivers: ['i915', 'xe'] },
  { pattern: /nouveau/i, vendor: 'NVIDIA (Mesa NVK)', emulated: false, pciVendor: '0x10de', kernelDrivers: ['nouveau'] },
  {
    pattern: /freedreno|panfrost|broadcom|asahi|powervr|imagination|mali/i,
    vendor: 'mobile GPU (Mesa)',
    emulated: false,
    kernelDrivers: ['msm', 'msm_drm', 'panfrost', 'panthor', 'v3d', 'vc4', 'asahi', 'powervr', 'mali', 'mali_kbase'],
  },
  { pattern: /dzn/i, vendor: 'D3D12 through Mesa dozen (WSL)', emulated: null },
];

/** A Vulkan ICD manifest's library, classified; `emulated: null` for a driver this lab does not know. */
export function classifyVulkanDriver(library: string): { vendor: string; emulated: boolean | null } {
  const known = knownDriver(library);
  return known ? { vendor: known.vendor, emulated: known.emulated } : { vendor: 'unknown', emulated: null };
}

function knownDriver(library: string) {
  const base = path.basename(library);
  return KNOWN_DRIVERS.find((known) => known.pattern.test(base)) ?? null;
}

/** The library a manifest names, or null when the file is not an ICD manifest. */
export function parseIcdManifest(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as { ICD?: { library_path?: unknown } };
    const library = parsed.ICD?.library_path;
    return typeof library === 'string' && library.length > 0 ? library : null;
  } catch {
    return null;
  }
}

/**
 * The ICD manifests the Vulkan loader will read: VK_DRIVER_FILES or VK_ICD_FILENAMES when set (they replace the
 * search), else the standard folders (XDG dirs, /etc, /usr/local/share, /usr/share). `root` is where the machine's
 * file system starts ('/'; a test's fake tree); paths returned are as the loader sees them.
 */
export function icdManifestFiles(env: NodeJS.ProcessEnv, listDir: (dir: string) => string[] = safeList, root = '/'): string[] {
  const override = env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES;
  if (override) return override.split(':').filter(Boolean);
  const home = env.HOME ?? '';
  const dirs = [
    ...(env.XDG_CONFIG_HOME ? [env.XDG_CONFIG_HOME] : home ? [path.join(home, '.config')] : []),
    ...(env.XDG_CONFIG_DIRS ?? '/etc/xdg').split(':').filter(Boolean),
    '/etc',
    ...(env.XDG_DATA_HOME ? [env.XDG_DATA_HOME] : home ? [path.join(home, '.local', 'share')] : []),
    ...(env.XDG_DATA_DIRS ?? '/usr/local/share:/usr/share').split(':').filter(Boolean),
  ].map((d) => path.join(d, 'vulkan', 'icd.d'));
  return [...new Set(dirs)].flatMap((dir) => listDir(path.join(root, dir)).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f)));
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Does the folder exist and may this process read it? (Under Node's permission model existsSync throws.) */
function canRead(dir: string): boolean {
  try {
    readdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** A display device the kernel knows: a PCI display controller or a DRM card. */
export interface DisplayDevice {
  /** PCI vendor id, lower case ('0x8086'), or null for a device that is not on PCI (a phone's or a Mac's GPU). */
  vendorId: string | null;
  deviceId: string | null;
  /** The kernel driver bound to it ('i915', 'amdgpu', 'nvidia', 'nouveau', 'vfio-pci'), or null when none is. */
  driver: string | null;
  /** Its sysfs folder, as the machine names it. */
  path: string;
}

/**
 * The display devices in sysfs: PCI functions of class 0x03 (VGA, XGA, 3D controllers: a data-centre GPU without a
 * display is 0x0302 and may have no DRM card) and every /sys/class/drm/cardN (GPUs that are not on PCI). Not the
 * other PCI devices: a VM's Intel host bridge (class 0x06) is vendor 0x8086 too. null when sysfs is not readable
 * (no /sys/bus/pci and no /sys/class/drm, or a sandbox that forbids them: a lab declares /sys/bus/pci, /sys/class/drm
 * and /sys/devices in its sandbox reads): then nothing can be said about devices.
 */
function listDisplayDevices(root = '/'): DisplayDevice[] | null {
  const pciDir = path.join(root, 'sys', 'bus', 'pci', 'devices');
  const drmDir = path.join(root, 'sys', 'class', 'drm');
  if (!canRead(pciDir) && !canRead(drmDir)) return null;
  const read = (file: string) => readSystemFile(file)?.trim().toLowerCase() || null;
  const seen = new Set<string>();
  const devices: DisplayDevice[] = [];
  const add = (dir: string, shown: string) => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let driver: string | null = null;
    try {
      driver = path.basename(readlinkSync(path.join(dir, 'driver')));
    } catch {
      driver = null;
    }
    devices.push({ vendorId: read(path.join(dir, 'vendor')), deviceId: read(path.join(dir, 'device')), driver, path: shown });
  };
  for (const name of safeList(pciDir)) {
    if (read(path.join(pciDir, name, 'class'))?.startsWith('0x03')) add(path.join(pciDir, name), `/sys/bus/pci/devices/${name}`);
  }
  for (const name of safeList(drmDir)) {
    if (/^card\d+$/.test(name)) add(path.join(drmDir, name, 'device'), `/sys/class/drm/${name}/device`);
  }
  return devices;
}

/** A manifest left out because no device of its kind is here, and why. */
export interface IgnoredDriver {
  vendor: string;
  driver: string;
  source: string;
  reason: string;
}

/** What the lookup found: the adapters Dawn can open, and the GPU drivers installed without their device. */
export interface WebGpuLookup {
  adapters: WebGpuAdapter[];
  ignored: IgnoredDriver[];
}

/**
 * The adapters Dawn can find here, as far as this process can tell without creating one, and the drivers left out.
 * A GPU driver's manifest counts only when a device it drives is in this machine (listDisplayDevices); where sysfs
 * cannot be read, a GPU driver is kept as unknown (`emulated: null`: auto never takes it). Never throws.
 * `io.root` is where the machine's file system starts ('/'; tests pass a fake tree with sys/ and usr/share/vulkan/).
 */
export function lookUpWebGpuAdapters(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  io: { root?: string } = {},
): WebGpuLookup {
  if (platform === 'darwin') return { adapters: [{ backend: 'metal', vendor: 'Apple Metal', driver: 'Metal', emulated: false, source: 'platform (macOS has no software Metal device)' }], ignored: [] };
  if (platform === 'win32') return { adapters: [{ backend: 'd3d12', vendor: 'unknown', driver: 'D3D12', emulated: null, source: 'platform (a hardware adapter or WARP, the software one: onnxruntime-node does not say which)' }], ignored: [] };
  const root = io.root ?? '/';
  const devices = listDisplayDevices(root);
  const adapters: WebGpuAdapter[] = [];
  const ignored: IgnoredDriver[] = [];
  for (const file of icdManifestFiles(env, safeList, root)) {
    const text = readSystemFile(path.join(root, file));
    const library = text === null ? null : parseIcdManifest(text);
    if (library === null) continue;
    const driver = path.basename(library);
    const known = knownDriver(library);
    const entry: WebGpuAdapter = { backend: 'vulkan', vendor: known?.vendor ?? 'unknown', driver, emulated: known?.emulated ?? null, source: file };
    const kernelDrivers = known?.kernelDrivers;
    if (!known || !kernelDrivers) {
      adapters.push(entry);
      continue;
    }
    if (devices === null) {
      adapters.push({ ...entry, emulated: null, source: `${file} (devices not readable: /sys/bus/pci and /sys/class/drm are missing)` });
      continue;
    }
    const ofVendor = devices.filter((d) => (known.pciVendor ? d.vendorId === known.pciVendor : d.driver !== null && kernelDrivers.includes(d.driver)));
    const driven = ofVendor.filter((d) => d.driver !== null && kernelDrivers.includes(d.driver));
    if (driven.length > 0) {
      const shown = driven.map((d) => `${d.vendorId ?? 'device'}${d.deviceId ? `:${d.deviceId}` : ''} (${d.driver}) at ${d.path}`).join(', ');
      adapters.push({ ...entry, source: `${file}; ${shown}` });
      continue;
    }
    const wants = kernelDrivers.join(' or ');
    const reason =
      ofVendor.length === 0
        ? `no ${known.vendor} display device in this machine (driver installed, device absent)`
        : `the ${known.vendor} device ${ofVendor.map((d) => `${d.vendorId}:${d.deviceId} at ${d.path}`).join(', ')} runs on ${ofVendor.map((d) => d.driver ?? 'no kernel driver').join(', ')}, not ${wants}`;
    ignored.push({ vendor: known.vendor, driver, source: file, reason });
  }
  return { adapters, ignored };
}

/** The adapters of lookUpWebGpuAdapters alone. Never throws. */
export function listWebGpuAdapters(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  io: { root?: string } = {},
): WebGpuAdapter[] {
  return lookUpWebGpuAdapters(env, platform, io).adapters;
}

/** One line per driver left out, for notes and the doctor. */
export function describeIgnored(i: IgnoredDriver): string {
  return `${i.vendor} (${i.driver}): left out, ${i.reason}`;
}

/** One line per adapter, for notes and the doctor. */
export function describeAdapter(a: WebGpuAdapter): string {
  const kind = a.emulated === true ? 'emulated on the CPU' : a.emulated === false ? 'real GPU' : 'real or emulated: unknown';
  return `${a.vendor} (${a.backend}, ${a.driver}; ${kind})`;
}

/**
 * What results.json and the doctor record: the adapters Dawn finds as the machine is set up, plus Debian's
 * SwiftShader when it is installed but not registered (the gpu-batching lab uses it only when asked for webgpu and
 * no real adapter exists). Fields only, no probe: cheap enough for every run. Never throws.
 */
export function recordedWebGpuAdapters(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = existsSync,
  io: { root?: string } = {},
): WebGpuAdapter[] {
  const adapters = listWebGpuAdapters(env, platform, io);
  if (platform === 'linux' && !adapters.some((a) => a.source === SWIFTSHADER_ICD) && exists(SWIFTSHADER_ICD)) {
    adapters.push({ ...SWIFTSHADER_ADAPTER, source: `${SWIFTSHADER_ICD} (installed, not registered: used only on request)` });
  }
  return adapters;
}
