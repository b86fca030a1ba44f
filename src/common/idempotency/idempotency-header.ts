/** The OpenAPI description of the Idempotency-Key header of write routes (docs/product-spec.md §3). */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: true,
  description: '8-128 letters, digits, "-" or "_"; one per attempt, reused on retries',
};
