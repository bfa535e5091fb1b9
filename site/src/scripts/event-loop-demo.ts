/**
 * Behaviour of <EventLoopDemo />. The ball moves from requestAnimationFrame (not a CSS animation, which the browser
 * could run off the main thread and so hide the freeze). While a run is measured, the time each frame's callback ran
 * (performance.now(), not the callback's timestamp argument) is recorded; the longest gap between consecutive frames
 * is what the learner saw as a freeze. Why not the argument: it is the frame's begin time, which Chromium can set
 * while the main thread is still busy (a frame begun during the task, run after it), so its gaps can be shorter than
 * the freeze (a 717 ms gap for an 838 ms task on a loaded machine).
 */
import { countPrimesBelow } from '../lib/busy-work.ts';
import { droppedFrames, longestGap } from '../lib/frame-gaps.ts';
import { element } from '../lib/dom.ts';
import { formatSignificant } from '@parallel-course/core';

type Where = 'main' | 'worker';

interface RunResult {
  where: Where;
  taskMs: number;
  gapMs: number;
  count: number;
}

/** Resolves at the next frame, with its timestamp (ms). */
function nextFrame(): Promise<number> {
  return new Promise((resolve) => requestAnimationFrame(resolve));
}

const LABELS: Record<Where, string> = { main: 'Main thread', worker: 'Web Worker' };

/** The demo's worker (busy-worker.ts), started on first use; `run` counts primes below `limit` there. */
function busyWorker(): { run: (limit: number) => Promise<{ count: number; taskMs: number }> } {
  let worker: Worker | null = null;
  return {
    run(limit) {
      worker ??= new Worker(new URL('./busy-worker.ts', import.meta.url), { type: 'module' });
      const active = worker;
      return new Promise((resolve, reject) => {
        active.onmessage = (event: MessageEvent<{ count: number; taskMs: number }>) => resolve(event.data);
        active.onerror = (event) => reject(new Error(`the worker failed: ${event.message}`));
        active.postMessage({ limit });
      });
    },
  };
}

/** The ball: one back-and-forth every 2 s across the stage; each frame's time goes to `onFrame`. */
function animateBall(ball: HTMLElement, onFrame: () => void): void {
  const animate = (time: number): void => {
    const phase = (time % 2000) / 1000; // position as a fraction 0..1
    const position = phase <= 1 ? phase : 2 - phase;
    ball.style.transform = `translateX(calc(${position} * (var(--eld-stage-width) - var(--eld-ball-size))))`;
    onFrame();
    requestAnimationFrame(animate);
  };
  requestAnimationFrame(animate);
}

/** One run's line under the buttons and its row at the top of the table. */
function report(status: HTMLElement, table: HTMLTableElement, rows: HTMLElement, result: RunResult): void {
  const label = LABELS[result.where];
  status.textContent =
    `${label}: the task took ${formatSignificant(result.taskMs)} ms; the longest gap between frames was ` +
    `${formatSignificant(result.gapMs)} ms (${droppedFrames(result.gapMs)} frames lost at 60 Hz).`;
  const tr = element('tr');
  tr.dataset['where'] = result.where;
  tr.dataset['gapMs'] = String(result.gapMs);
  for (const text of [label, formatSignificant(result.taskMs), formatSignificant(result.gapMs), String(droppedFrames(result.gapMs)), String(result.count)]) {
    tr.append(element('td', text));
  }
  rows.prepend(tr);
  table.hidden = false;
}

export function mountEventLoopDemo(root: HTMLElement): void {
  const ball = root.querySelector<HTMLElement>('[data-eld-ball]');
  const status = root.querySelector<HTMLElement>('[data-eld-status]');
  const size = root.querySelector<HTMLSelectElement>('[data-eld-size]');
  const table = root.querySelector<HTMLTableElement>('[data-eld-results]');
  const rows = root.querySelector<HTMLElement>('[data-eld-rows]');
  const buttons = [...root.querySelectorAll<HTMLButtonElement>('[data-eld-run]')];
  if (!ball || !status || !size || !table || !rows) return;

  // Frame times (ms, performance.now()) of the run being measured; null when no run is measured.
  let recording: number[] | null = null;
  animateBall(ball, () => recording?.push(performance.now()));
  const worker = busyWorker();

  const measure = async (where: Where): Promise<RunResult> => {
    const limit = Number(size.value);
    recording = [];
    // Start from a painted frame so the gap before the task is counted from a real frame.
    await nextFrame();
    let count: number;
    let taskMs: number;
    if (where === 'main') {
      const started = performance.now();
      count = countPrimesBelow(limit);
      taskMs = performance.now() - started;
    } else {
      ({ count, taskMs } = await worker.run(limit));
    }
    // Two more frames: the first one after the task closes the gap it caused.
    await nextFrame();
    await nextFrame();
    const gapMs = longestGap(recording);
    recording = null;
    return { where, taskMs, gapMs, count };
  };

  for (const button of buttons) {
    button.addEventListener('click', () => {
      const where: Where = button.dataset['eldRun'] === 'worker' ? 'worker' : 'main';
      for (const b of buttons) b.disabled = true;
      status.textContent = where === 'main' ? 'Running on the main thread...' : 'Running in a Web Worker...';
      // Let the status text paint before the main thread is blocked.
      void nextFrame()
        .then(() => nextFrame())
        .then(() => measure(where))
        .then((result) => report(status, table, rows, result))
        .catch((error: unknown) => {
          status.textContent = `The run failed: ${(error as Error).message}`;
        })
        .finally(() => {
          for (const b of buttons) b.disabled = false;
          button.focus();
        });
    });
  }
}
