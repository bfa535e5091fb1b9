/**
 * Normalises the SITE_BASE environment variable into an Astro `base`: always starts and ends with "/".
 * Examples: undefined -> "/", "course" -> "/course/", "/a/b" -> "/a/b/".
 */
export function resolveBase(raw: string | undefined): string {
  const trimmed = (raw ?? '').trim();
  if (trimmed === '' || trimmed === '/') return '/';
  if (/[?#\s]/.test(trimmed) || trimmed.includes('://')) {
    throw new Error(
      `SITE_BASE must be a URL path such as "/course/", got ${JSON.stringify(raw)}: drop the scheme, host, query and spaces`,
    );
  }
  const parts = trimmed.split('/').filter((part) => part !== '');
  return `/${parts.join('/')}/`;
}
