/**
 * The page's own responsiveness while a case runs: the browser's counterpart of the event-loop lab's /ping. A message
 * is posted to the page's main thread and the time until it is handled recorded, again and again (1 ms apart), for
 * as long as the sample runs. That wait is what a click or a key press would wait: one long wait per sample when the
 * handler runs inline, about one chunk when it yields, next to nothing when workers do the work.
 */
import type { SampleObserver } from './lab-types.ts';

export function pingProbe(): SampleObserver {
  const channel = new MessageChannel();
  let running = false;
  let delays: number[] = [];
  let answered: Promise<void> = Promise.resolve();
  const send = (): void => {
    if (!running) return;
    const sent = performance.now();
    answered = new Promise<void>((resolve) => {
      channel.port1.onmessage = () => {
        delays.push(performance.now() - sent);
        resolve();
        setTimeout(send, 1);
      };
    });
    channel.port2.postMessage(0);
  };
  return {
    name: 'pingDelay',
    unit: 'ms',
    description: 'wait of a message posted to the page\'s main thread while the case ran (the browser\'s /ping): how long a click or key press would wait',
    start() {
      delays = [];
      running = true;
      send();
    },
    async stop() {
      running = false;
      await answered;
      return delays;
    },
  };
}
