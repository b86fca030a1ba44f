import { IDEMPOTENCY_KEY_FORMAT } from './idempotency-key-format';

/** The OpenAPI description of the Idempotency-Key header of write routes (docs/product-spec.md §3). */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: true,
  description: `${IDEMPOTENCY_KEY_FORMAT}; reused, with the same body, only to retry that very request. A missing key answers 400 "is required", a key of another form 400 naming this format.`,
  schema: {
    type: 'string' as const,
    minLength: 8,
    maxLength: 128,
    pattern: '^[A-Za-z0-9_-]{8,128}$',
    example: '0c1f6a52-3d4e-4b8a-9f2e-7d1c5b6a4e21',
  },
};
