/**
 * Run by `npm run doctor` in a child process: which ONNX Runtime execution providers are built in, and whether a
 * session can really be created on CUDA (and on CPU). In a child, because a missing CUDA library makes ONNX Runtime
 * print to stderr from native code and a broken install can crash the process. Prints one JSON line.
 * argv[2]: an .onnx model to try sessions with, or '' for none.
 */
export interface OrtProbe {
  loaded: boolean;
  error: string | null;
  backends: Array<{ name: string; bundled: boolean }>;
  /** null when not tried (no model). */
  sessions: Record<string, { ok: boolean; error: string | null }> | null;
}

const model = process.argv[2] ?? '';
const probe: OrtProbe = { loaded: false, error: null, backends: [], sessions: null };
try {
  const ort = await import('onnxruntime-node');
  probe.loaded = true;
  probe.backends = ort.listSupportedBackends().map((b) => ({ name: b.name, bundled: b.bundled }));
  if (model !== '') {
    probe.sessions = {};
    for (const provider of ['cpu', 'cuda']) {
      try {
        const session = await ort.InferenceSession.create(model, { executionProviders: [provider] });
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
