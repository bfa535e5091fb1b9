// @ts-check
import { defineConfig } from 'astro/config';
import starlight from '@astrojs/starlight';
import { fileURLToPath } from 'node:url';
import { resolveBase } from './src/lib/base-path.ts';
import { sidebarFromEpisodes } from './src/lib/sidebar.ts';
import { loadCourseRuns } from './src/lib/course-runs.ts';
import { episodesDir } from './src/lib/episodes-dir.ts';
import { satteri } from '@astrojs/markdown-satteri';
import { numberCheckPlugin } from './src/lib/number-check-plugin.ts';
import { browserLabAssets } from './src/lib/browser-lab-assets.ts';

/**
 * The course site. Episodes live in the repository's top-level episodes/ folder (see src/content.config.ts).
 * SITE_BASE sets the path the static build is served under (e.g. "/course/" on a shared host); default "/".
 */
const base = resolveBase(process.env.SITE_BASE);

/**
 * No telemetry: Astro sends anonymous usage data from build, dev and preview unless ASTRO_TELEMETRY_DISABLED is set.
 * The site's scripts set it (scripts/astro-command.ts); this covers an `npx astro build` typed by hand, whose usage
 * event is recorded only after this file is loaded (node_modules/astro/dist/core/build/index.js).
 */
process.env.ASTRO_TELEMETRY_DISABLED ??= '1';
const siteUrl = process.env.SITE_URL || undefined;

/**
 * The numbers the episodes quote come from runs (issue 20, src/lib/course-runs.ts): the committed reference/ runs, or
 * an instructor's own with COURSE_RUNS=<folder> (results/, or a bundle results/all/<time>/). Resolved here first so
 * a COURSE_RUNS that names a missing folder, or one with no valid run, stops the build at once with the reason.
 */
process.env.COURSE_REPO_ROOT ??= fileURLToPath(new URL('..', import.meta.url));
loadCourseRuns();

/** The episodes folder: the repository's episodes/, or COURSE_EPISODES (the build-check test builds a small copy). */
const episodes = episodesDir();

/**
 * Starlight 0.42 adds @astrojs/sitemap itself unless an integration of that name is already registered
 * (node_modules/@astrojs/starlight/dist/index.js), and the sitemap integration can only be built with a public
 * address (`site`); without one it skips and prints a warning on every build. A course built for offline use or a
 * not-yet-known host has no address, so in that case this empty stand-in takes the name and no sitemap is made.
 * With SITE_URL set it is left out and Starlight's own sitemap is built.
 * @type {import('astro').AstroIntegration}
 */
const noSitemapWithoutSite = { name: '@astrojs/sitemap', hooks: {} };

export default defineConfig({
  // A build of a temporary episodes folder (the tests) writes elsewhere, so it never touches dist/ or the cache of
  // the real build: COURSE_BUILD_OUT and COURSE_BUILD_CACHE name the folders.
  ...(process.env.COURSE_BUILD_OUT ? { outDir: process.env.COURSE_BUILD_OUT } : {}),
  ...(process.env.COURSE_BUILD_CACHE ? { cacheDir: process.env.COURSE_BUILD_CACHE } : {}),
  // The public address (e.g. https://example.org), when known: enables canonical links and the sitemap.
  site: siteUrl,
  base,
  // Keeps the built URLs "folder/" style so they work on any static host, including plain file servers.
  trailingSlash: 'always',
  // Astro's telemetry and font downloads would reach the network; the course builds and runs offline.
  devToolbar: { enabled: false },
  vite: {
    resolve: {
      // `import Measured from '@course-site/components/Measured.astro'` works from an episodes folder anywhere
      // (COURSE_EPISODES, used by the tests); the course's own episodes import by relative path.
      alias: { '@course-site': fileURLToPath(new URL('./src', import.meta.url)) },
    },
    // The episodes folder and the harness package are outside site/: let the dev server read them.
    server: { fs: { allow: ['..'] } },
    build: {
      rolldownOptions: {
        // Astro's MDX pipeline marks episodes with a "use astro:head-inject" directive that the bundler warns about
        // for every file outside src/ (upstream noise, harmless): drop that one message so real warnings stand out.
        onLog(level, log, handler) {
          if (log.code === 'MODULE_LEVEL_DIRECTIVE' && log.message.includes('astro:head-inject')) return;
          handler(level, log);
        },
      },
    },
  },
  markdown: {
    // Fails the build on a measured number typed by hand into an episode (a number with a unit of time, rate or
    // size, or a speedup factor, outside code and outside <Measured>/<Given>): src/lib/number-check-plugin.ts.
    // Astro 7 compiles MDX with Sätteri, whose mdast plugins take the place of remark plugins.
    processor: satteri({ mdastPlugins: [numberCheckPlugin(fileURLToPath(new URL('.', import.meta.url)))] }),
  },
  integrations: [
    // onnxruntime-web's files and the gpu-batching model, into the built site (episode 08's in-page lab).
    browserLabAssets(),
    ...(siteUrl === undefined ? [noSitemapWithoutSite] : []),
    starlight({
      title: 'Parallel Node.js',
      description:
        'Single-node parallelism and optimisation for TypeScript on Node.js: a course with runnable benchmarking labs.',
      // Read before first paint so the instructor view never flashes learner content (see InstructorToggle.astro).
      head: [
        {
          tag: 'script',
          content:
            "try{var q=new URLSearchParams(location.search).get('instructor');if(q==='1')localStorage.setItem('course-instructor','1');if(q==='0')localStorage.removeItem('course-instructor');if(localStorage.getItem('course-instructor')==='1')document.documentElement.classList.add('instructor-view')}catch(e){}",
        },
      ],
      // Teaching order is file order (episodes/NN-slug.mdx).
      sidebar: [
        { label: 'About the course', link: '/' },
        ...sidebarFromEpisodes(episodes),
      ],
      customCss: ['./src/styles/course.css'],
      components: {
        // Questions, objectives and timings above every episode; keypoints below it.
        MarkdownContent: './src/components/LessonContent.astro',
        // The instructor-view switch sits next to the theme switch (header on desktop, menu footer on phones).
        ThemeSelect: './src/components/ThemeSelectWithInstructor.astro',
      },
      // Starlight's 404 route would look for a "404" entry among the episodes; src/pages/404.astro is the course's own.
      disable404Route: true,
      lastUpdated: false,
      pagination: true,
    }),
  ],
});
