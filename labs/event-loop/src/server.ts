/**
 * The lab's HTTP server: a real `node:http` server on loopback with a cheap endpoint and a CPU-bound one.
 *   GET /ping               -> "pong"  (cheap: its latency shows whether the event loop is free)
 *   GET /derive?account=N   -> the account's key ring (CPU-bound: see work.ts)
 * Errors are answered, never thrown: 400 for a bad account, 501 for an exercise that is not written yet
 * (the body starts with "not implemented: ", which the harness reports as such), 500 for anything else.
 */
import http from 'node:http';
import { parseAccount, type RingHandler } from './work.ts';

function reply(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function createLabServer(handler: RingHandler): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET') return reply(res, 405, 'only GET\n');
    if (url.pathname === '/ping') return reply(res, 200, 'pong\n');
    if (url.pathname !== '/derive') return reply(res, 404, `no route ${url.pathname}\n`);
    const account = parseAccount(url.searchParams.get('account'));
    if (account === null) return reply(res, 400, 'account must be an integer from 0 to 1000000000\n');
    handler.derive(account).then(
      (body) => reply(res, 200, body),
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        reply(res, message.startsWith('not implemented: ') ? 501 : 500, `${message}\n`);
      },
    );
  });
}
