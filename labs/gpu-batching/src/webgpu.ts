/**
 * The lab's side of WebGPU: where the emulated adapter comes from and what a process needs to load it. The listing
 * of adapters (real or emulated) is the harness's (webgpu-adapters.ts), shared with the doctor and results.json.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SWIFTSHADER_ICD } from '@parallel-course/harness';

export { describeAdapter, describeIgnored, EMULATED_WARNING, listWebGpuAdapters, lookUpWebGpuAdapters, SWIFTSHADER_ADAPTER, SWIFTSHADER_ICD, type WebGpuAdapter } from '@parallel-course/harness';

/** Folders where the dynamic linker finds libvulkan.so.1 without LD_LIBRARY_PATH (Debian multiarch and others). */
const SYSTEM_LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/usr/local/lib'];

/**
 * Is the Vulkan loader findable by this process? Dawn opens `libvulkan.so.1` by name, and glibc reads
 * LD_LIBRARY_PATH only when a process starts, so a process cannot fix this for itself after the fact.
 */
export function vulkanLoaderFound(env: NodeJS.ProcessEnv = process.env, exists: (file: string) => boolean = existsSync): boolean {
  const dirs = [...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean), ...SYSTEM_LIB_DIRS];
  return dirs.some((dir) => exists(path.join(dir, 'libvulkan.so.1')));
}

/** How to get an emulated adapter on Debian, and how to avoid needing one. */
export const WEBGPU_FIX =
  'install a Vulkan driver for your GPU (NVIDIA: the driver\'s Vulkan ICD; AMD/Intel: mesa-vulkan-drivers), or, for the emulated adapter, ' +
  "Debian's chromium and libvulkan1 (apt-get install chromium libvulkan1; .ci/run does); or run on the CPU with GPU_BATCHING_EP=cpu";

/**
 * What gives Dawn SwiftShader alone: the loader reads only its manifest, and Mesa's implicit device-select layer
 * (installed with mesa-vulkan-drivers, loaded whatever VK_ICD_FILENAMES says) stays out: with one driver there is no
 * device to select, and without a desktop session it prints "error: XDG_RUNTIME_DIR is invalid" twice per process.
 * NODEVICE_SELECT=1 is the disable_environment in its manifest (VkLayer_MESA_device_select.json).
 */
export const SWIFTSHADER_ENV = { VK_ICD_FILENAMES: SWIFTSHADER_ICD, NODEVICE_SELECT: '1' } as const;

/**
 * The environment additions that give Dawn the emulated SwiftShader adapter, or why they cannot: the ICD must exist
 * and the Vulkan loader must be findable (libvulkan1, or LD_LIBRARY_PATH set before the process started).
 */
export function emulatedAdapterEnv(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = existsSync,
): { env: Record<string, string> } | { error: string } {
  if (platform !== 'linux') return { error: `no emulated WebGPU adapter is set up on ${platform}: the lab knows only Debian's SwiftShader (Linux)` };
  if (!exists(SWIFTSHADER_ICD)) return { error: `SwiftShader's Vulkan ICD (${SWIFTSHADER_ICD}) is not installed: ${WEBGPU_FIX}` };
  if (!vulkanLoaderFound(env, exists)) {
    return { error: `the Vulkan loader (libvulkan.so.1) is not installed: apt-get install libvulkan1, or start with LD_LIBRARY_PATH=${path.dirname(SWIFTSHADER_ICD)}` };
  }
  return { env: { ...SWIFTSHADER_ENV } };
}
