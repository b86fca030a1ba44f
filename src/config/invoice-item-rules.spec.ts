import { isCalendarDate, isInvoiceItemNormalType, secondIdentifierProblem } from './invoice-item-rules';

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
});
