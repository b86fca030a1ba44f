import { DomainError } from './domain-error';
import { problemDetails } from './problem-details';

describe('problem details of a stay’s length', () => {
  it('carries the reason and the limit as a number beside the code, for a site to word', () => {
    const short = new DomainError('stay_not_allowed', 'needs 3 nights', { limit: { reason: 'stay_too_short', minNights: 3 } });
    expect(problemDetails(short.code, short.detail, 'r1', { limit: short.limit })).toMatchObject({
      code: 'stay_not_allowed',
      status: 422,
      reason: 'stay_too_short',
      minNights: 3,
    });
    const long = problemDetails('stay_not_allowed', 'too long', 'r2', { limit: { reason: 'stay_too_long', maxNights: 31 } });
    expect(long).toMatchObject({ reason: 'stay_too_long', maxNights: 31 });
    expect(long).not.toHaveProperty('minNights');
  });

  it('adds no such field to any other problem', () => {
    expect(Object.keys(problemDetails('dates_unavailable', 'taken', 'r3'))).toEqual([
      'type',
      'title',
      'status',
      'detail',
      'code',
      'requestId',
    ]);
  });
});
