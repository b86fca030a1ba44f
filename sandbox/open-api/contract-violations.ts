/**
 * Requests the sandbox refused because the platform's reference would (open-api/reference-gate.ts).
 * Kept process-wide and free of imports, so the check after every e2e file (test/utils/contract-gate.ts)
 * reads every sandbox the file started without loading the validator itself.
 */
import type { FieldProblem } from '../http/errors';

export interface ContractViolation {
  /** The operation as the reference names it: POST /quotes. */
  operation: string;
  /** The path as requested. */
  path: string;
  problems: FieldProblem[];
  /** Whether the product sent it (by its User-Agent), or a test probing the sandbox directly. */
  byProduct: boolean;
}

const VIOLATIONS = Symbol.for('sandbox.contractViolations');
const FORWARD = Symbol.for('sandbox.contractViolationForward');
type WithViolations = typeof globalThis & {
  [VIOLATIONS]?: ContractViolation[];
  [FORWARD]?: (violation: ContractViolation) => void;
};

export function recordViolation(violation: ContractViolation): void {
  const holder = globalThis as WithViolations;
  const forward = holder[FORWARD];
  if (forward) forward(violation);
  else (holder[VIOLATIONS] ??= []).push(violation);
}

/**
 * A sandbox in a process of its own (own-process.ts) hands each violation to the process that
 * started it, whose check after the file reads them: its own record would die with it unread.
 */
export function forwardViolations(forward: (violation: ContractViolation) => void): void {
  (globalThis as WithViolations)[FORWARD] = forward;
}

/** The violations recorded so far in this process, which are then forgotten. */
export function takeViolations(): ContractViolation[] {
  const holder = globalThis as WithViolations;
  const taken = holder[VIOLATIONS] ?? [];
  holder[VIOLATIONS] = [];
  return taken;
}

/** Why the file fails: each request the product sent that the reference refuses, with what it refuses; null when none. */
export function productViolationReport(violations: ContractViolation[]): string | null {
  const byProduct = violations.filter((violation) => violation.byProduct);
  if (byProduct.length === 0) return null;
  const lines = byProduct.map(
    ({ operation, path, problems }) =>
      `  ${operation} (${path}): ${problems.map(({ field, message }) => `${field} ${message}`).join('; ')}`,
  );
  return `The product sent ${byProduct.length} request(s) the platform's reference refuses (docs/upstream-reference/):\n${lines.join('\n')}`;
}
