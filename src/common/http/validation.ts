import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, FieldError } from '../errors/domain-error';

/**
 * Flattens class-validator's tree into one entry per failing field, with dotted paths (card.number).
 * A field answers the first of its rules that fails, in the order the DTO writes them: decorators
 * run bottom-up, so class-validator records a field's failures last rule first.
 */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    const own = messages.length > 0 ? [{ field, message: firstRuleMessage(error, messages[messages.length - 1], field) }] : [];
    return [...own, ...fieldErrors(error.children ?? [], field)];
  });
}

function firstRuleMessage(error: ValidationError, message: string, field: string): string {
  if (error.value === undefined) return `${field} is required`;
  // class-validator says "property x should not exist"; the field is named already.
  if (/should not exist$/.test(message)) return `${field} is not an accepted field`;
  // Its own messages name the property alone (email); the site needs the path (guest.email).
  return message.startsWith(`${error.property} `) ? `${field}${message.slice(error.property.length)}` : message;
}

/** Deeper than any body of the contract (a card's billing address is 3 levels; an item's dates 3). */
export const MAX_BODY_DEPTH = 6;

/** How deep a parsed JSON value nests, counted without recursion (a hostile body may nest thousands deep). */
export function nestingDepth(value: unknown, stopAt: number): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(current)) pending.push({ value: child, depth: level });
  }
  return deepest;
}

/**
 * The global validation, with a depth check first: class-transformer and class-validator recurse
 * through a body, so one nested thousands deep must be refused before they see it.
 */
class DepthCheckedValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      throw DomainError.validation([
        { field: 'body', message: `the body nests deeper than ${MAX_BODY_DEPTH} levels, deeper than any request of this API` },
      ]);
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new DepthCheckedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // The value tells a missing field from a wrong one; it never leaves fieldErrors, so a rejected
    // card field cannot reappear in an error body.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => DomainError.validation(fieldErrors(errors)),
  });
}
