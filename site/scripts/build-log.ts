/**
 * Reading Astro's build output: the warnings it printed, and whether the build reached its end. Pure functions,
 * unit-tested in test/frame-lib.test.ts on real lines of Astro 7 output.
 */

// Colour codes Astro adds when it writes to a terminal (CSI ... m).
const ANSI = /\u001b\[[0-9;]*m/g;

/** The line Astro 7 prints when a static build has finished. */
export const BUILD_COMPLETE = '[build] Complete!';

/**
 * Every warning in the output, from its "[WARN]" tag to the end of its line. The tag is searched anywhere in a
 * line, not only at its start: Astro's progress lines are not always ended before a warning is logged
 * (seen: "├─ /404.html15:34:35 [WARN] [content] Entry docs → 404 was not found.").
 */
export function findWarnings(output: string): string[] {
  const warnings: string[] = [];
  for (const line of output.replace(ANSI, '').split(/\r?\n/)) {
    const at = line.indexOf('[WARN]');
    if (at !== -1) warnings.push(line.slice(at).trim());
  }
  return warnings;
}

/** True when the output shows a finished build (so an empty warning list means something). */
export function buildCompleted(output: string): boolean {
  return output.replace(ANSI, '').includes(BUILD_COMPLETE);
}
