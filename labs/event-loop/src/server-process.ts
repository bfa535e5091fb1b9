/**
 * The harness's side of a server process: fork it, wait until it listens, ask it for event-loop delay, close it.
 * A server that fails to start reports why (its error, or its last stderr lines); none is ever left running.
 */
import { ChildCrashedError, startChild } from '@parallel-course/harness';
import { fileURLToPath } from 'node:url';
import type { ServerMessage, ServerRequest, VariantName } from './protocol.ts';

const SERVER_MAIN = fileURLToPath(new URL('./server-main.ts', import.meta.url));

export interface ServerProcess {
  port: number;
  /** The Unix socket the server also listens on, in the run's temp folder (the judge's probe from outside). */
  socketPath: string;
  pid: number;
  request<T extends ServerMessage['type']>(message: ServerRequest, reply: T): Promise<Extract<ServerMessage, { type: T }>>;
  close(): Promise<void>;
}

export async function startServerProcess(variant: VariantName, workers: number, implDir: string): Promise<ServerProcess> {
  const server = await startChild<ServerMessage, Extract<ServerMessage, { type: 'ready' }>>({
    script: SERVER_MAIN,
    args: [variant, String(workers), implDir],
    name: `the ${variant} server`,
    // Start-up (loading TypeScript, starting pool threads, a warm-up request per worker) within startChild's default.
    isReady: (m): m is Extract<ServerMessage, { type: 'ready' }> => m.type === 'ready',
    startFailure: (m) => (m.type === 'failed' ? m.message : null),
    // The server's own libuv threadpool size is whatever the learner's environment says (default 4).
    env: process.env,
  });
  const { child } = server;
  return {
    port: server.ready.port,
    socketPath: server.ready.socketPath,
    pid: child.pid ?? -1,
    request(message, reply) {
      return new Promise((resolve, reject) => {
        const onMessage = (m: ServerMessage) => {
          if (m.type !== reply) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(m as never);
        };
        const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
          reject(new ChildCrashedError(`the ${variant} server`, code, signal, server.stderrTail()));
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(message);
      });
    },
    close() {
      return server.close({ type: 'close' } satisfies ServerRequest);
    },
  };
}
