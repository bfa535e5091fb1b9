/**
 * Reading a variant's property evidence in the judge's process (LabDefinition's CaseDefinition.judgeProperty): the
 * evidence was made in the lab process, beside the learner's code, and crossed the channel as plain data, so every
 * field is checked before a judge reads it. A field of the wrong kind throws PropertyEvidenceError naming it; the case
 * then fails its check (measure/check-verdicts.ts CheckVerdicts).
 * Input: the evidence as it arrived and the shape the judge expects. Output: the same values, typed.
 */
import { PropertyEvidenceError } from './errors.ts';

export { PropertyEvidenceError };

/**
 * What one field of the evidence must be: 'count' a whole number >= 0 (a safe integer), 'ms' a finite time >= 0,
 * 'flag' a boolean, 'text' a string, 'text or null' a string or null. Strings are at most MAX_EVIDENCE_TEXT long.
 */
export type EvidenceField = 'count' | 'ms' | 'flag' | 'text' | 'text or null';

type FieldValue<F extends EvidenceField> = F extends 'count' | 'ms' ? number : F extends 'flag' ? boolean : F extends 'text' ? string : string | null;

/** The evidence as read: each field of the shape, of its kind. */
export type Evidence<S extends Record<string, EvidenceField>> = { [K in keyof S]: FieldValue<S[K]> };

/**
 * The most bytes a property evidence may take as it crosses to the judge (its structured-clone serialization): raw
 * observations (a report, counts, a few dozen calls) are under a kilobyte; more fails the case before any judge reads it.
 */
export const MAX_EVIDENCE_BYTES = 64 * 1024;

/** The longest string a field may hold (an error message, a ring of keys), in characters. */
export const MAX_EVIDENCE_TEXT = 4_000;

/** A value as a message shows it: its type, and the value itself when short. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

function fieldOk(kind: EvidenceField, value: unknown): boolean {
  switch (kind) {
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= 0;
    case 'ms':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0;
    case 'flag':
      return typeof value === 'boolean';
    case 'text':
      return typeof value === 'string' && value.length <= MAX_EVIDENCE_TEXT;
    case 'text or null':
      return value === null || (typeof value === 'string' && value.length <= MAX_EVIDENCE_TEXT);
  }
}

const KIND_TEXT: Record<EvidenceField, string> = {
  count: 'a whole number >= 0',
  ms: 'a finite number of ms >= 0',
  flag: 'true or false',
  text: `a string of at most ${MAX_EVIDENCE_TEXT} characters`,
  'text or null': `null or a string of at most ${MAX_EVIDENCE_TEXT} characters`,
};

/**
 * The fields of `shape` read from `evidence` (`what` names it in a message, e.g. "the probe's report"). Throws
 * PropertyEvidenceError when it is not an object or a field is not of its kind; fields the shape does not name are
 * left out.
 */
export function readEvidence<S extends Record<string, EvidenceField>>(evidence: unknown, shape: S, what = 'the property evidence'): Evidence<S> {
  if (typeof evidence !== 'object' || evidence === null || Array.isArray(evidence)) {
    throw new PropertyEvidenceError(`${what} is not an object of ${Object.keys(shape).join(', ')}: got ${shown(evidence)}`);
  }
  const read: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(shape)) {
    const value = Object.hasOwn(evidence, key) ? (evidence as Record<string, unknown>)[key] : undefined;
    if (!fieldOk(kind, value)) throw new PropertyEvidenceError(`${what}'s ${key} is not ${KIND_TEXT[kind]}: got ${value === undefined ? 'none' : shown(value)}`);
    read[key] = value;
  }
  return read as Evidence<S>;
}

/** A list of at most `max` entries of `shape` (`what` names it), read as readEvidence reads one. */
export function readEvidenceList<S extends Record<string, EvidenceField>>(evidence: unknown, shape: S, max: number, what = 'the property evidence'): Evidence<S>[] {
  if (!Array.isArray(evidence)) throw new PropertyEvidenceError(`${what} is not a list: got ${shown(evidence)}`);
  if (evidence.length > max) throw new PropertyEvidenceError(`${what} has ${evidence.length} entries, over the ${max} its judge reads`);
  return evidence.map((entry, i) => readEvidence(entry, shape, `${what} #${i}`));
}
