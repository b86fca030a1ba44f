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
type WithViolations = typeof globalThis & { [VIOLATIONS]?: ContractViolation[] };

export function recordViolation(violation: ContractViolation): void {
  const holder = globalThis as WithViolations;
  (holder[VIOLATIONS] ??= []).push(violation);
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
