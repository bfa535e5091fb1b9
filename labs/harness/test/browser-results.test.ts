/**
 * A results file from an in-page lab (site/src/browser-lab/, `runtime: "browser"`): the fixture is a real quick run of
 * episode 07's lab in chromium (not cross-origin isolated). The validator recomputes every number of it as it does for
 * the harness's files, and the browser's own facts are checked by the schema like any other field.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateFile, validateSubmission } from '../src/tools/validate.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/results-browser-native-kernel.json', import.meta.url));

describe('browser results files', () => {
  it('a browser run validates: schema, checks and every recomputed number', () => {
    const check = validateFile(FIXTURE);
    assert.deepEqual(check.problems, []);
    assert.equal(check.results?.runtime, 'browser');
    assert.equal(check.results?.cpus.limit, 'hardware-concurrency');
    assert.ok((check.results?.environment.browser?.timerResolutionMs ?? 0) > 0);
  });

  it('an edited number in a browser run is caught like any other', () => {
    const data = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    data.cases[0].summary.median *= 2;
    const check = validateSubmission(data, 'edited');
    assert.ok(check.problems.some((p) => p.startsWith('cases[0].summary.median')), check.problems.join('\n'));
  });

  it('a browser environment without its timer resolution is refused by the schema, naming the field', () => {
    const data = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    delete data.environment.browser.timerResolutionMs;
    const check = validateSubmission(data, 'no timer');
    assert.ok(check.problems.some((p) => p.includes('environment.browser.timerResolutionMs')), check.problems.join('\n'));
  });
});
