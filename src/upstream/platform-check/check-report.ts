/** What `npm run platform:check` reports: one line per operation, in the product's words. */

export type Verdict = 'confirmed' | 'contradicted' | 'unreadable';

/** The switch an operation answers to: reservation reads, payment methods, or neither (the listing's provider). */
export type CheckedResource = 'reservations' | 'paymentMethods' | 'listing';

export interface CheckedOperation {
  operation: string;
  /** The call as sent: method, path and query, with the ids it names (never a token). */
  path: string;
  verdict: Verdict;
  expected: string;
  found: string;
  /** What the service does at runtime with this answer. */
  productWill: string;
  resource: CheckedResource;
  surface: 'current' | 'legacy';
  /** On the surface the environment configures: only these decide the exit code. */
  configured: boolean;
  /** What the check learned beside the verdict (the overview's totals compared). */
  note?: string;
}

export interface SurfaceChoice {
  resource: 'reservations' | 'paymentMethods';
  /** The variable to set, and its value; `undefined` when neither surface answers usably. */
  variable: string;
  choose: 'current' | 'legacy' | undefined;
  why: string;
}

export interface ReadCheckReport {
  ok: boolean;
  operations: CheckedOperation[];
  choices: SurfaceChoice[];
  /** Open API calls spent (the token's mint is not one). */
  calls: number;
}

/** The configured surface of each resource (one accessor until each has its own variable). */
export interface ConfiguredSurfaces {
  reservations: 'current' | 'legacy';
  paymentMethods: 'current' | 'legacy';
}
