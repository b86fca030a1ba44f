import { ValidateIf } from 'class-validator';

/**
 * An optional body field: it may be left out, but a JSON `null` is validated like any other value
 * and refused as the wrong type (class-validator's IsOptional would let null through to the code).
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}
