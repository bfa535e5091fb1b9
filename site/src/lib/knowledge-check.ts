/**
 * The data of a knowledge check and its rules, shared by KnowledgeCheck.astro (which fails the build on a broken
 * question) and the frame tests (which read the knowledge-check page's questions without a build).
 */
import { outcomeTagProblems } from './learning-outcomes.ts';

export interface KnowledgeOption {
  text: string;
  correct: boolean;
  /** Why this answer is right, or which misconception makes it tempting and what is true instead. */
  feedback: string;
}

export interface KnowledgeQuestion {
  prompt: string;
  /** Ids of the learning outcomes this question checks, e.g. ['LO2', 'LO8'] (src/lib/learning-outcomes.ts). */
  outcomes?: string[];
  options: KnowledgeOption[];
}

export interface QuestionRules {
  /** Every question must name the outcomes it checks (the knowledge-check page); optional inside episodes. */
  requireOutcomes?: boolean;
}

/**
 * What is wrong with a question, in words that name it and the fix: a prompt, at least two options, exactly one
 * correct, text and feedback on every option, and valid outcome ids. Empty when the question is fine.
 */
export function questionProblems(question: KnowledgeQuestion, index: number, rules: QuestionRules = {}): string[] {
  const where = `question ${index + 1} ("${question?.prompt ?? ''}")`;
  if (!question?.prompt) return [`${where} needs a prompt`];
  const problems: string[] = [];
  const options = Array.isArray(question.options) ? question.options : [];
  if (options.length < 2) problems.push(`${where} needs at least two options`);
  if (options.filter((option) => option.correct === true).length !== 1) {
    problems.push(`${where} needs exactly one option with correct: true`);
  }
  options.forEach((option, oi) => {
    if (!option.text || !option.feedback) problems.push(`${where}, option ${oi + 1} needs both text and feedback`);
  });
  if (question.outcomes !== undefined || rules.requireOutcomes === true) {
    for (const problem of outcomeTagProblems(question.outcomes)) problems.push(`${where} ${problem}`);
  }
  return problems;
}
