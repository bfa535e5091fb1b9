/**
 * The browser's facts for a results file: the `environment`, `cpus` and `topology` of the harness's schema, filled
 * with what a page can know (no CPU model, no hostname, no /proc), and the browser's own in `environment.browser`.
 */
import type { BrowserEnvironment, Results } from './core-adapter.ts';

/** The most workers an in-page pool starts, whatever the browser reports (a page should not start 128 threads). */
const MAX_PAGE_WORKERS = 16;

/** P for the in-page labs: navigator.hardwareConcurrency, at least 1, at most MAX_PAGE_WORKERS. */
export function pageParallelism(): number {
  const reported = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 0;
  return Math.min(MAX_PAGE_WORKERS, Math.max(1, Number.isInteger(reported) ? reported : 1));
}

/** The WebGPU adapter, or why there is none. SwiftShader (Chromium's Vulkan on the CPU) is marked emulated. */
export async function webgpuInfo(): Promise<Pick<BrowserEnvironment, 'webgpu' | 'webgpuUnavailable'>> {
  const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: unknown } | null> } }).gpu;
  if (!gpu) {
    return { webgpu: null, webgpuUnavailable: window.isSecureContext ? 'this browser has no WebGPU (navigator.gpu is missing)' : 'WebGPU needs a secure context (https or localhost)' };
  }
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { webgpu: null, webgpuUnavailable: 'the browser offers no WebGPU adapter (no usable GPU or driver)' };
    const info = (adapter.info ?? {}) as Record<string, unknown>;
    const pick = (key: string): string => String(info[key] ?? '').slice(0, 200);
    const text = `${pick('vendor')} ${pick('architecture')} ${pick('device')} ${pick('description')}`.toLowerCase();
    return {
      webgpu: { vendor: pick('vendor'), architecture: pick('architecture'), device: pick('device'), description: pick('description'), emulated: /swiftshader|llvmpipe|lavapipe|software|basic render/.test(text) },
      webgpuUnavailable: null,
    };
  } catch (error) {
    return { webgpu: null, webgpuUnavailable: `requesting a WebGPU adapter failed: ${(error as Error).message}`.slice(0, 500) };
  }
}

/** A short browser name and version from the user agent, for the machine line ("Chrome 156"). */
function browserName(userAgent: string): string {
  const match = /(Firefox|Edg|OPR|Chrome|Chromium|Version)\/(\d+)/.exec(userAgent);
  if (!match) return 'a browser';
  const name = match[1] === 'Edg' ? 'Edge' : match[1] === 'Version' ? 'Safari' : match[1] === 'OPR' ? 'Opera' : match[1];
  return `${name} ${match[2]}`;
}

/** The run's environment, cpus and topology in the harness's schema. */
export function runEnvironment(browser: BrowserEnvironment): Pick<Results, 'environment' | 'cpus' | 'topology'> {
  const p = pageParallelism();
  const reported = Math.max(1, browser.hardwareConcurrency);
  return {
    environment: {
      node: `none: in-page lab in ${browserName(browser.userAgent)}`,
      v8: '',
      uv: '',
      platform: (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform ?? navigator.platform ?? '',
      arch: '',
      osRelease: '',
      cpuModel: '',
      cpuCount: browser.hardwareConcurrency,
      availableParallelism: reported,
      totalMemoryBytes: 0,
      cpuAffinity: null,
      uvThreadpoolSize: null,
      slurm: {},
      git: { commit: null, dirty: null },
      gpus: browser.webgpu ? [{ name: `${browser.webgpu.vendor} ${browser.webgpu.architecture}`.trim() || 'WebGPU adapter', memoryMiB: null }] : [],
      hostname: '',
      browser,
    },
    cpus: { p, limit: 'hardware-concurrency', available: reported, forced: false, affinity: reported, quota: null, nodeReports: reported },
    topology: { logicalCpus: browser.hardwareConcurrency, physicalCores: null, threadsPerCore: null, sockets: null, numaNodes: null, coresPerSocket: null, caches: [] },
  };
}
