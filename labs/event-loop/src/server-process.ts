/**
 * The harness's side of a server process: fork it, wait until it listens, ask it for event-loop delay, close it.
 * A server that fails to start reports why (its error, or its last stderr lines); none is ever left running.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerMessage, ServerRequest, VariantName } from './protocol.ts';

const SERVER_MAIN = fileURLToPath(new URL('./server-main.ts', import.meta.url));
/** Start-up includes loading TypeScript, starting pool threads and a warm-up request per worker. */
const START_TIMEOUT_MS = 60_000;
const CLOSE_TIMEOUT_MS = 10_000;

export interface ServerProcess {
  port: number;
  pid: number;
  request<T extends ServerMessage['type']>(message: ServerRequest, reply: T): Promise<Extract<ServerMessage, { type: T }>>;
  close(): Promise<void>;
}

export async function startServerProcess(variant: VariantName, workers: number, implDir: string): Promise<ServerProcess> {
  const child: ChildProcess = fork(SERVER_MAIN, [variant, String(workers), implDir], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // The server's own libuv threadpool size is whatever the learner's environment says (default 4).
    env: process.env,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${variant} server did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.port);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(message.message));
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const tail = stderr.trim().split('\n').slice(-6).join('\n');
      reject(new Error(`the ${variant} server exited during start-up (code ${code}, signal ${signal})${tail ? `:\n${tail}` : ''}`));
    });
  });

  let closed = false;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    port,
    pid: child.pid ?? -1,
    request(message, reply) {
      return new Promise((resolve, reject) => {
        const onMessage = (m: ServerMessage) => {
          if (m.type !== reply) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(m as never);
        };
        const onExit = () => reject(new Error(`the ${variant} server exited (code ${child.exitCode})`));
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(message);
      });
    },
    async close() {
      if (closed) return exited;
      closed = true;
      if (child.connected) child.send({ type: 'close' } satisfies ServerRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
