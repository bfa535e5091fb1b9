/**
 * The course's runs for the results viewer, one JSON file per lab in the built site, fetched when the learner picks a
 * lab (issue 30: embedding every raw sample of every run made the viewer page 1.45 MB):
 *   viewer-runs/<lab>.view.json  the run without its raw samples: all the viewer's charts and tables need
 *   viewer-runs/<lab>.json       the whole run: fetched only to compare a learner's file (the bootstrap needs samples)
 * Written at build time from runs validated there (course-runs.ts); the page parses them as JSON, never as markup.
 */
import type { APIRoute, GetStaticPaths } from 'astro';
import { loadCourseRuns } from '../../lib/course-runs.ts';
import { courseRunLabel, viewerRunFiles, withoutSamples, type ViewerRun } from '../../lib/viewer-runs.ts';

export const getStaticPaths = (() => {
  const paths = [];
  for (const run of loadCourseRuns().labs.values()) {
    const full: ViewerRun = { lab: run.lab, label: courseRunLabel(run), results: run.results };
    const files = viewerRunFiles(run.lab);
    paths.push({ params: { name: files.full.replace(/\.json$/, '') }, props: { run: full } });
    paths.push({ params: { name: files.view.replace(/\.json$/, '') }, props: { run: { ...full, results: withoutSamples(full.results) } } });
  }
  return paths;
}) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) =>
  new Response(JSON.stringify((props as { run: ViewerRun }).run), { headers: { 'content-type': 'application/json' } });
