/**
 * Progress on stderr, so stdout stays the summary. A bar (cli-progress) on a terminal; plain lines elsewhere
 * (CI logs, Slurm output files), at most one every few seconds.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  stage(message: string): void;
  update(done: number, total: number, label: string): void;
  stop(): void;
}

const LINE_INTERVAL_MS = 5000;

export function createProgress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled) return { stage() {}, update() {}, stop() {} };
  if (stream.isTTY) {
    let bar: cliProgress.SingleBar | null = null;
    return {
      stage(message) {
        bar?.stop();
        bar = null;
        stream.write(`${message}\n`);
      },
      update(done, total, label) {
        if (!bar) {
          bar = new cliProgress.SingleBar(
            { stream, format: '  {bar} {value}/{total} rounds | {label}', hideCursor: true, clearOnComplete: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, done, { label });
        }
        bar.update(done, { label });
      },
      stop() {
        bar?.stop();
        bar = null;
      },
    };
  }
  let last = 0;
  return {
    stage(message) {
      stream.write(`${message}\n`);
    },
    update(done, total, label) {
      const now = Date.now();
      if (now - last < LINE_INTERVAL_MS && done < total) return;
      last = now;
      stream.write(`  ${done}/${total} rounds${label ? ` (${label})` : ''}\n`);
    },
    stop() {},
  };
}
