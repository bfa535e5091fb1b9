/**
 * Planting a change into a copy of a fixture's source: `text` with `from` replaced by `to`, where `from` must occur
 * exactly once. A plain `String.replace` whose text is no longer in the fixture changes nothing, and the test then runs
 * the unplanted code: one that expects nothing to go wrong passes without testing anything. This throws instead.
 */
export function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  const count = at < 0 ? 0 : text.split(from).length - 1;
  if (count !== 1) {
    throw new Error(`the planted change expects ${JSON.stringify(from.slice(0, 80))} exactly once in the fixture, found it ${count} times: update the test to the fixture`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}
