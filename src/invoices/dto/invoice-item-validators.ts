import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { INVOICE_ITEM_SECOND_IDENTIFIERS, isCalendarDate, secondIdentifierProblem } from '../../config/invoice-item-rules';

const SECOND_IDENTIFIER_MAX = 50;

function secondIdentifierMessage(value: unknown): string | null {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || value.length > SECOND_IDENTIFIER_MAX)) {
    return `secondIdentifier must be a non-empty string of at most ${SECOND_IDENTIFIER_MAX} characters`;
  }
  if (typeof value === 'string' && !(INVOICE_ITEM_SECOND_IDENTIFIERS as readonly string[]).includes(value))
    return secondIdentifierProblem('AFE', value);
  return null;
}

/**
 * `secondIdentifier`'s shape and the platform's values. Whether it is required or refused for the
 * item's `normalType` depends on the endpoint the service uses (INVOICE_ITEMS_ENDPOINT), so
 * InvoiceItemsService.assertSendable checks that, before the Idempotency-Key is claimed.
 */
export function MatchesNormalType(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'secondIdentifierMatchesNormalType',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => secondIdentifierMessage(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          secondIdentifierMessage(args.value) ?? `secondIdentifier is not one of the platform's values`,
      },
    });
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => isCalendarDate(value),
        defaultMessage: (args: ValidationArguments) => `${args.property} must be a real calendar date written YYYY-MM-DD`,
      },
    });
}
