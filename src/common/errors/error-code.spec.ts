import { ERROR_CODES, ErrorCodeEntry, retryAfterOf } from './error-code';

describe('the error table: every answer says whether to try again', () => {
  it('gives Retry-After only to the codes it marks retryable: a refusal never invites a retry', () => {
    expect(retryAfterOf('step_in_progress', 1)).toBe(1);
    expect(retryAfterOf('outcome_pending', 2)).toBe(2);
    expect(retryAfterOf('invalid_state', 1)).toBeUndefined();
    expect(retryAfterOf('already_paid', 1)).toBeUndefined();
    expect(retryAfterOf('card_declined', 5)).toBeUndefined();
  });

  it('marks "another step is running" retryable and keeps it apart from the refusal of a step', () => {
    const table = ERROR_CODES as Record<string, ErrorCodeEntry>;
    expect(table.step_in_progress).toMatchObject({ status: 409, retryAfter: true });
    expect(table.invalid_state.retryAfter).toBeUndefined();
    expect(table.invalid_state.meaning).not.toMatch(/Retry-After/);
  });
});
