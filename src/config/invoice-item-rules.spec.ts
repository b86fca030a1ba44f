import { readFileSync } from 'node:fs';
import path from 'node:path';
import { INVOICE_ITEM_SECOND_IDENTIFIERS, isCalendarDate, isInvoiceItemNormalType, secondIdentifierProblem } from './invoice-item-rules';

/** The current endpoint's secondIdentifier enum in the published reference kept in the repository. */
function referenceSecondIdentifiers(): string[] {
  const reference = JSON.parse(readFileSync(path.join(__dirname, '../../docs/upstream-reference/open-api-subset.json'), 'utf8')) as {
    paths: Record<
      string,
      { post: { requestBody: { content: { 'application/json': { schema: { properties: { secondIdentifier: { enum: string[] } } } } } } } }
    >;
  };
  return reference.paths['/invoice-items/reservation/{reservationId}'].post.requestBody.content['application/json'].schema.properties
    .secondIdentifier.enum;
}

describe('invoice-item rules', () => {
  it.each(['2026-01-01', '2028-02-29', '2026-12-31'])('takes the calendar date %s', (date) => {
    expect(isCalendarDate(date)).toBe(true);
  });

  it.each(['2026-02-30', '2027-02-29', '2026-13-01', '2026-00-10', '2026/01/01', '2026-1-01', '20260101', '', 20260101])(
    'refuses %p as a date',
    (date) => {
      expect(isCalendarDate(date)).toBe(false);
    },
  );

  it('knows the documented normalTypes, without the accommodation fare', () => {
    expect(isInvoiceItemNormalType('CF')).toBe(true);
    expect(isInvoiceItemNormalType('AFE')).toBe(true);
    expect(isInvoiceItemNormalType('AF')).toBe(false);
  });

  it('requires secondIdentifier for AFE only', () => {
    expect(secondIdentifierProblem('AFE', 'PET')).toBeNull();
    expect(secondIdentifierProblem('AFE', undefined)).toMatch(/required/);
    expect(secondIdentifierProblem('CF', 'PET')).toMatch(/only allowed/);
    expect(secondIdentifierProblem('CF', undefined)).toBeNull();
  });

  it("knows exactly the reference's secondIdentifier values (68 since the 2026-04-27 changelog), and refuses any other", () => {
    expect([...INVOICE_ITEM_SECOND_IDENTIFIERS]).toEqual(referenceSecondIdentifiers());
    expect(INVOICE_ITEM_SECOND_IDENTIFIERS).toHaveLength(68);
    for (const added of [
      'DIRECT_SERVICE',
      'GUESTY_BASIC_TRAVEL_COVERAGE',
      'GUESTY_EXTENDED_TRAVEL_COVERAGE',
      'GUESTY_SHIELD',
      'PROPERTY_INSURANCE',
      'TOTAL_PAYOUT_BASED',
    ]) {
      expect(secondIdentifierProblem('AFE', added)).toBeNull();
    }
    expect(secondIdentifierProblem('AFE', 'TOWELS')).toBeNull();
    expect(secondIdentifierProblem('AFE', 'TOWELS_EXTRA')).toMatch(
      /^secondIdentifier "TOWELS_EXTRA" is not one of the platform's values \(ADDITIONAL_BED, .*TOTAL_PAYOUT_BASED\)$/,
    );
  });

  it('with the deprecated endpoint, requires secondIdentifier on every item (any normalType), from the same values', () => {
    expect(secondIdentifierProblem('CF', undefined, 'deprecated')).toMatch(/required on every item.*INVOICE_ITEMS_ENDPOINT=deprecated/);
    expect(secondIdentifierProblem('AFE', '', 'deprecated')).toMatch(/required on every item/);
    expect(secondIdentifierProblem('CF', 'LATE_CHECKOUT', 'deprecated')).toBeNull();
    expect(secondIdentifierProblem('CF', 'LATE', 'deprecated')).toMatch(/not one of the platform's values/);
  });
});
