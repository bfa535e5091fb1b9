import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { docsSchema, i18nSchema } from '@astrojs/starlight/schema';
import { i18nLoader } from '@astrojs/starlight/loaders';
import { episodesDir } from './lib/episodes-dir.ts';
import { lessonFields } from './lib/lesson-schema.ts';

/**
 * The repository's top-level episodes/ folder is Starlight's docs collection; file order is teaching order.
 * COURSE_EPISODES names another folder (the build-check test builds a small temporary one).
 */
export const collections = {
  docs: defineCollection({
    loader: glob({ pattern: '**/*.mdx', base: episodesDir() }),
    schema: docsSchema({ extend: lessonFields }),
  }),
  // The course's own wording of a few interface strings (src/content/i18n/en.json).
  i18n: defineCollection({ loader: i18nLoader(), schema: i18nSchema() }),
};
