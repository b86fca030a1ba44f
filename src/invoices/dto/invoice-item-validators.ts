import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isCalendarDate, NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER, secondIdentifierProblem } from '../../config/invoice-item-rules';

const SECOND_IDENTIFIER_MAX = 50;

function secondIdentifierMessage(value: unknown, normalType: unknown): string | null {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || value.length > SECOND_IDENTIFIER_MAX)) {
    return `secondIdentifier must be a non-empty string of at most ${SECOND_IDENTIFIER_MAX} characters`;
  }
  return typeof normalType === 'string' ? secondIdentifierProblem(normalType, value) : null;
}

/**
 * `secondIdentifier` against its item's `normalType`: required for AFE, refused otherwise. Runs
 * when the field is absent too (no @IsOptional): absence is exactly what AFE must refuse.
 */
export function MatchesNormalType(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'secondIdentifierMatchesNormalType',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => secondIdentifierMessage(value, (args.object as { normalType?: unknown }).normalType) === null,
        defaultMessage: (args: ValidationArguments) =>
          secondIdentifierMessage(args.value, (args.object as { normalType?: unknown }).normalType) ??
          `secondIdentifier does not fit normalType (required only for ${NORMAL_TYPE_NEEDING_SECOND_IDENTIFIER})`,
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
