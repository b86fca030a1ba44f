/**
 * After every e2e file: the file fails when the product sent the sandbox a request the platform's
 * reference refuses (sandbox/open-api/reference-gate.ts refused it 400 and recorded it), whichever
 * test sent it. Reads the record only: the validator is not loaded for files that start no sandbox.
 */
import { productViolationReport, takeViolations } from '../../sandbox/open-api/contract-violations';

afterAll(() => {
  const report = productViolationReport(takeViolations());
  if (report) throw new Error(report);
});
