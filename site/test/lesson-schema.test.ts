/** The episode frontmatter contract, checked at build time through docsSchema({ extend: lessonFields }). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lessonFields } from '../src/lib/lesson-schema.ts';
import { isPage } from '../src/lib/sidebar.ts';

const episode = {
  teaching: 15,
  exercises: 10,
  questions: ['Why?'],
  objectives: ['Measure it.'],
  keypoints: ['Measure first.'],
};

function problems(data: unknown): string[] {
  const parsed = lessonFields.safeParse(data);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('lesson frontmatter', () => {
  it('accepts a complete episode and defaults kind to episode', () => {
    const parsed = lessonFields.parse({ ...episode, lab: 'event-loop' });
    assert.equal(parsed.kind, 'episode');
    assert.equal(parsed.lab, 'event-loop');
  });

  it('names every missing lesson field of an episode and how to opt out', () => {
    assert.deepEqual(problems({ teaching: 5 }), [
      'exercises: every episode needs "exercises" in its frontmatter (or set "kind: page" if this is not an episode)',
      'questions: every episode needs "questions" in its frontmatter (or set "kind: page" if this is not an episode)',
      'objectives: every episode needs "objectives" in its frontmatter (or set "kind: page" if this is not an episode)',
      'keypoints: every episode needs "keypoints" in its frontmatter (or set "kind: page" if this is not an episode)',
    ]);
  });

  it('rejects fractional minutes, empty lists and a lab name that is not a folder name', () => {
    assert.deepEqual(problems({ ...episode, teaching: 7.5 }), ['teaching: must be a whole number of minutes']);
    assert.deepEqual(problems({ ...episode, keypoints: [] }), ['keypoints: needs at least one entry']);
    assert.match(problems({ ...episode, lab: 'Event Loop' })[0] ?? '', /^lab: must be a lab folder name such as "event-loop"/);
  });

  it('accepts deep dives and homework with whole positive minutes, and names what is wrong', () => {
    const parsed = lessonFields.parse({ ...episode, deepDives: [{ title: 'Threads in native code', minutes: 6 }], homework: 120 });
    assert.deepEqual(parsed.deepDives, [{ title: 'Threads in native code', minutes: 6 }]);
    assert.equal(parsed.homework, 120);
    assert.deepEqual(problems({ ...episode, deepDives: [{ title: '', minutes: 0 }] }), [
      'deepDives.0.title: needs the heading of the section, or the title of the optional challenge',
      'deepDives.0.minutes: must be more than 0 minutes',
    ]);
    assert.deepEqual(problems({ ...episode, homework: 0 }), ['homework: must be more than 0 minutes']);
  });

  it('lets pages leave the lesson fields out', () => {
    assert.deepEqual(problems({ kind: 'page' }), []);
  });

  it('tells pages from episodes by their frontmatter for the sidebar', () => {
    assert.equal(isPage('---\ntitle: Viewer\nkind: page\n---\nbody'), true);
    assert.equal(isPage('---\ntitle: An episode\nteaching: 5\n---\nkind: page in the body does not count'), false);
  });
});
