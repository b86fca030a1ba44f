import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, FieldError } from '../errors/domain-error';

/** Flattens class-validator's tree into one entry per failing field, with dotted paths (card.number). */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message: unknownFieldMessage(message, field) }));
    return [...own, ...fieldErrors(error.children ?? [], field)];
  });
}

// class-validator says "property x should not exist"; the field is named already.
function unknownFieldMessage(message: string, field: string): string {
  return /should not exist$/.test(message) ? `${field} is not an accepted field` : message;
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // Values are never echoed back: a rejected card field must not reappear in an error body.
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => DomainError.validation(fieldErrors(errors)),
  });
}
