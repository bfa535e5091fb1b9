import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { docsSchema } from '@astrojs/starlight/schema';
import { lessonFields } from './lib/lesson-schema.ts';

/** The repository's top-level episodes/ folder is Starlight's docs collection; file order is teaching order. */
export const collections = {
  docs: defineCollection({
    loader: glob({ pattern: '**/*.mdx', base: '../episodes' }),
    schema: docsSchema({ extend: lessonFields }),
  }),
};
