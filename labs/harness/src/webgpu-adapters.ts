/**
 * Which WebGPU adapters this machine offers to onnxruntime-node's WebGPU execution provider (Dawn), and whether each
 * is a real GPU or a GPU emulated on the CPU. onnxruntime-node 1.30 says nothing about the adapter it takes (no
 * adapter info, no adapter index: the binding forwards no deviceId to WebGPU), so the lab reads what Dawn itself will
 * find: on Linux, the Vulkan drivers (ICD manifests) the Vulkan loader will load; on macOS, Metal (always a real GPU);
 * on Windows, D3D12 (real or the WARP software adapter: not knowable from here, so `emulated: null`).
 *
 * The emulated adapter: Debian's `chromium` package ships SwiftShader (a Vulkan driver on the CPU) with its ICD
 * manifest. Pointing VK_ICD_FILENAMES at it gives Dawn that one adapter. It is chosen only on purpose
 * (GPU_BATCHING_EP=webgpu on a machine without a real adapter), never by `auto`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

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

/** Vulkan drivers by the file name of their library: vendor, and whether the "GPU" is the CPU. */
const KNOWN_DRIVERS: Array<{ pattern: RegExp; vendor: string; emulated: boolean | null }> = [
  { pattern: /swiftshader/i, vendor: 'Google SwiftShader (CPU)', emulated: true },
  { pattern: /lvp|lavapipe|llvmpipe/i, vendor: 'Mesa lavapipe (CPU)', emulated: true },
  { pattern: /nvidia/i, vendor: 'NVIDIA', emulated: false },
  { pattern: /radeon|amdvlk|amdgpu/i, vendor: 'AMD', emulated: false },
  { pattern: /intel/i, vendor: 'Intel', emulated: false },
  { pattern: /nouveau/i, vendor: 'NVIDIA (Mesa NVK)', emulated: false },
  { pattern: /freedreno|panfrost|broadcom|asahi|powervr|imagination|mali/i, vendor: 'mobile GPU (Mesa)', emulated: false },
  { pattern: /dzn/i, vendor: 'D3D12 through Mesa dozen (WSL)', emulated: null },
];

/** A Vulkan ICD manifest's library, classified; `emulated: null` for a driver this lab does not know. */
export function classifyVulkanDriver(library: string): { vendor: string; emulated: boolean | null } {
  const base = path.basename(library);
  for (const known of KNOWN_DRIVERS) if (known.pattern.test(base)) return { vendor: known.vendor, emulated: known.emulated };
  return { vendor: 'unknown', emulated: null };
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
 * search), else the standard folders (XDG dirs, /etc, /usr/local/share, /usr/share).
 */
export function icdManifestFiles(env: NodeJS.ProcessEnv, listDir: (dir: string) => string[] = safeList): string[] {
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
  return [...new Set(dirs)].flatMap((dir) => listDir(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f)));
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function safeRead(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The adapters Dawn can find here, as far as this process can tell without creating one. Never throws. */
export function listWebGpuAdapters(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  io: { listDir?: (dir: string) => string[]; read?: (file: string) => string | null } = {},
): WebGpuAdapter[] {
  if (platform === 'darwin') return [{ backend: 'metal', vendor: 'Apple Metal', driver: 'Metal', emulated: false, source: 'platform (macOS has no software Metal device)' }];
  if (platform === 'win32') return [{ backend: 'd3d12', vendor: 'unknown', driver: 'D3D12', emulated: null, source: 'platform (a hardware adapter or WARP, the software one: onnxruntime-node does not say which)' }];
  const read = io.read ?? safeRead;
  const adapters: WebGpuAdapter[] = [];
  for (const file of icdManifestFiles(env, io.listDir)) {
    const text = read(file);
    const library = text === null ? null : parseIcdManifest(text);
    if (library === null) continue;
    adapters.push({ backend: 'vulkan', ...classifyVulkanDriver(library), driver: path.basename(library), source: file });
  }
  return adapters;
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
): WebGpuAdapter[] {
  const adapters = listWebGpuAdapters(env, platform);
  if (platform === 'linux' && !adapters.some((a) => a.source === SWIFTSHADER_ICD) && exists(SWIFTSHADER_ICD)) {
    adapters.push({ backend: 'vulkan', vendor: 'Google SwiftShader (CPU)', driver: 'libvk_swiftshader.so', emulated: true, source: `${SWIFTSHADER_ICD} (installed, not registered: used only on request)` });
  }
  return adapters;
}
