/**
 * Frontmatter every episode carries on top of Starlight's own fields (title, description, template...).
 * Validated at build time: a missing or mistyped field stops the build with the file and field named.
 *
 * `kind: page` marks pages that are not episodes (the landing page, tools, reference); they need none of the
 * lesson fields. Everything else is an episode and must declare all of them.
 */
import { z } from 'astro/zod';

const minutes = z.number().int('must be a whole number of minutes').nonnegative('must be >= 0 minutes');
const nonEmptyList = z.array(z.string().min(1)).min(1, 'needs at least one entry');

export const lessonFields = z
  .object({
    kind: z.enum(['episode', 'page']).default('episode'),
    /** Minutes of teaching (instructor talking and live coding). */
    teaching: minutes.optional(),
    /** Minutes learners spend on the exercises. */
    exercises: minutes.optional(),
    /**
     * Optional parts outside the core path, each with its minutes: a section marked <DeepDive minutes={N} /> (by its
     * heading) or a <Challenge optional minutes={N}> (by its title). Shown on the landing page's schedule.
     */
    deepDives: z
      .array(
        z.object({
          title: z.string().min(1, 'needs the heading of the section, or the title of the optional challenge'),
          minutes: minutes.positive('must be more than 0 minutes'),
        }),
      )
      .optional(),
    /** Minutes of homework after class (sections marked <Homework minutes={N} />), e.g. the capstone's steps. */
    homework: minutes.positive('must be more than 0 minutes').optional(),
    questions: nonEmptyList.optional(),
    objectives: nonEmptyList.optional(),
    /**
     * Objectives that only a deep dive meets (issue 45): shown apart from the core path's objectives, so every
     * objective in the first list is met on the core path.
     */
    deepDiveObjectives: nonEmptyList.optional(),
    keypoints: nonEmptyList.optional(),
    /** The lab this episode runs with `npm run lab -- <lab>`, e.g. "event-loop". */
    lab: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'must be a lab folder name such as "event-loop" (lower case, digits, dashes)')
      .optional(),
  })
  .superRefine((data, ctx) => {
    if (data.kind !== 'episode') return;
    for (const field of ['teaching', 'exercises', 'questions', 'objectives', 'keypoints'] as const) {
      if (data[field] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `every episode needs "${field}" in its frontmatter (or set "kind: page" if this is not an episode)`,
        });
      }
    }
  });

