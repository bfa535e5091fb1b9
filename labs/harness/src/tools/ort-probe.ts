/**
 * Run by `npm run doctor` in a child process: which ONNX Runtime execution providers are built in, and whether a
 * session can really be created on CUDA, on WebGPU as this machine is set up (no emulated adapter is set up here),
 * and on CPU. In a child, because a missing CUDA library makes ONNX Runtime
 * print to stderr from native code and a broken install can crash the process. Prints one JSON line.
 * The sessions use a hand-encoded one-node model (tiny-onnx.ts) and really run it once.
 */
import { identityModel } from './tiny-onnx.ts';

export interface OrtProbe {
  loaded: boolean;
  error: string | null;
  backends: Array<{ name: string; bundled: boolean }>;
  /** Per provider: could a session be created and run on it. */
  sessions: Record<string, { ok: boolean; error: string | null }> | null;
}

const probe: OrtProbe = { loaded: false, error: null, backends: [], sessions: null };
try {
  const ort = await import('onnxruntime-node');
  probe.loaded = true;
  probe.backends = ort.listSupportedBackends().map((b) => ({ name: b.name, bundled: b.bundled }));
  {
    probe.sessions = {};
    for (const provider of ['cpu', 'cuda', 'webgpu']) {
      try {
        const session = await ort.InferenceSession.create(identityModel(), { executionProviders: [provider] });
        const out = await session.run({ x: new ort.Tensor('float32', Float32Array.of(42), [1]) });
        if (out['y']?.data[0] !== 42) throw new Error(`the test model answered ${String(out['y']?.data[0])} instead of 42`);
        await session.release();
        probe.sessions[provider] = { ok: true, error: null };
      } catch (error) {
        probe.sessions[provider] = { ok: false, error: (error as Error).message.split('\n')[0] ?? 'failed' };
      }
    }
  }
} catch (error) {
  probe.error = (error as Error).message.split('\n')[0] ?? 'failed';
}
process.stdout.write(`${JSON.stringify(probe)}\n`);
process.exit(0);
