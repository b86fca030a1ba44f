import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const FEATURES = ['checkout', 'payments', 'reservations', 'invoices', 'booking', 'webhooks'];

/** The names a file imports from journal/ (a write kind's own file is the journal's plug, not a feature's use of it). */
function journalNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/import (?:type )?\{([^}]*)\} from '\.\.\/journal\/[^']+'/g)].flatMap(([, names]) =>
    names
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

const featureFiles = FEATURES.flatMap((room) =>
  readdirSync(path.join(__dirname, room), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.write-kind.ts'))
    .map((name) => path.join(__dirname, room, name)),
);

describe('the journal is one door (docs/architecture.md rule 4)', () => {
  it('lets a feature import at most four of its names', () => {
    const over = featureFiles
      .map((file) => ({ file: path.relative(__dirname, file), names: journalNames(file) }))
      .filter(({ names }) => names.length > 4);
    expect(over).toEqual([]);
  });

  it('counts the names a file imports from journal/, whatever its import lines', () => {
    expect(featureFiles.length).toBeGreaterThan(20);
    const payments = featureFiles.find((file) => file.endsWith('card-payments.service.ts'))!;
    expect(journalNames(payments)).toEqual(expect.arrayContaining(['WriteJournal']));
  });
});
