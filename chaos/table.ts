import type { CampaignReport } from './campaign';
import { INVARIANTS } from './invariants';
import { FAULT_KINDS, type FaultKind, OPERATION_KINDS } from './schedule';

const GUEST_FAULTS: FaultKind[] = ['duplicate_submission', 'duplicate_3ds_return', 'two_sessions'];

/** The campaign's table (Markdown, as README keeps it): operations, faults injected by kind, violations per invariant, the seed. */
export function campaignTable(report: CampaignReport): string {
  const rows: [string, string | number][] = [
    ['seed', report.seed],
    ['operations', `${report.operations} (${report.abandoned.length} ended before their write: a read that never answered)`],
    ...OPERATION_KINDS.map((kind): [string, number] => [`  ${kind}`, report.operationsByKind[kind] ?? 0]),
    ...[...FAULT_KINDS, ...GUEST_FAULTS].map((kind): [string, number] => [`fault: ${kind}`, report.faults[kind] ?? 0]),
    ...INVARIANTS.map((invariant): [string, number] => [
      `violations: ${invariant}`,
      report.violations.filter((violation) => violation.invariant === invariant).length,
    ]),
    ['duration', `${Math.round(report.durationMs / 1000)} s`],
  ];
  return ['| | |', '|---|---|', ...rows.map(([what, value]) => `| ${what} | ${value} |`)].join('\n');
}

/** Each violation in a line: the invariant, the operation (replayable from the seed) and what the platform holds. */
export function violationLines(report: CampaignReport, limit = 30): string[] {
  const lines = report.violations
    .slice(0, limit)
    .map((violation) => `- ${violation.invariant} (operation #${violation.operation}): ${violation.detail}`);
  if (report.violations.length > limit) lines.push(`- … and ${report.violations.length - limit} more`);
  return lines;
}

/** Why operations ended before their write (the first few): a schedule too harsh for reads shows here. */
export function abandonedLines(report: CampaignReport, limit = 5): string[] {
  return report.abandoned.slice(0, limit).map((entry) => `- operation #${entry.operation} ended before its write: ${entry.why}`);
}
