/**
 * The sidebar, built from the files in episodes/: episodes in file order (NN-slug.mdx = teaching order), then the
 * other pages (`kind: page`, e.g. the results viewer). Listed by slug so Starlight takes each label from the page.
 * (Starlight's `autogenerate` only looks inside src/content/docs, so it finds nothing in the top-level episodes/.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SidebarSlug {
  slug: string;
}
export interface SidebarGroup {
  label: string;
  items: SidebarSlug[];
}

/** True when the file's frontmatter says `kind: page`. */
export function isPage(source: string): boolean {
  const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source)?.[1] ?? '';
  return /^kind:\s*['"]?page['"]?\s*$/m.test(frontmatter);
}

export function sidebarFromEpisodes(dir: string): SidebarGroup[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.mdx') && !['index.mdx', '404.mdx'].includes(name) && !name.startsWith('_'))
    .sort();
  const episodes: SidebarSlug[] = [];
  const pages: SidebarSlug[] = [];
  for (const name of files) {
    const slug = name.slice(0, -'.mdx'.length);
    (isPage(readFileSync(join(dir, name), 'utf8')) ? pages : episodes).push({ slug });
  }
  const groups: SidebarGroup[] = [{ label: 'Episodes', items: episodes }];
  if (pages.length > 0) groups.push({ label: 'Tools and reference', items: pages });
  return groups;
}
