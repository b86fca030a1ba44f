/** The field is refused with exactly one message: the first of its rules that fails. */
export function expectOneMessageFor(errors: unknown, field: string): void {
  const messages = (errors as { field: string; message: string }[]).filter((error) => error.field === field);
  expect(messages).toEqual([{ field, message: expect.stringMatching(/\S/) }]);
}
