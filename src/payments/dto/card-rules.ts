import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/** A card number as guests type it, with the spaces and dashes of its printed groups removed. */
export function cardDigits(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/[\s-]/g, '') : value;
}

export function isLuhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Which rule a card number (already stripped of spaces and dashes) breaks, or null: the tokenization host refuses anything else. */
export function cardNumberProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (!/^\d+$/.test(value)) return 'must be digits only (spaces and dashes between them are allowed)';
  if (value.length < 13 || value.length > 19) return 'must have 13 to 19 digits';
  if (!isLuhnValid(value)) return 'is not a valid card number: check its digits';
  return null;
}

export function isLuhnCardNumber(value: unknown): boolean {
  return cardNumberProblem(value) === null;
}

export function cardBrand(number: string): string | undefined {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^6(011|5)/.test(number)) return 'discover';
  return undefined;
}

/** American Express prints a 4-digit security code on the front; the other brands 3 on the back. */
function cvcProblem(value: unknown, number: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  // A number that cannot be read is reported on its own field; its code is judged by its form alone.
  if (!isLuhnCardNumber(number)) return /^\d{3,4}$/.test(value) ? null : 'must be 3 digits (4 for American Express)';
  if (cardBrand(number as string) === 'amex') return /^\d{4}$/.test(value) ? null : 'must be 4 digits for an American Express card';
  return /^\d{3}$/.test(value) ? null : 'must be 3 digits for this card (4 only for American Express)';
}

function fieldRule(
  name: string,
  problem: (value: unknown, args: ValidationArguments) => string | null,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => problem(value, args) === null,
        defaultMessage: (args: ValidationArguments) => `card.${args.property} ${problem(args.value, args) ?? 'is not valid'}`,
      },
    });
}

export function IsCardNumber(options?: ValidationOptions): PropertyDecorator {
  return fieldRule('isCardNumber', (value) => cardNumberProblem(value), options);
}

/** cvc with the sibling number: its length follows the card's brand. */
export function IsCardCvc(options?: ValidationOptions): PropertyDecorator {
  return fieldRule('isCardCvc', (value, args) => cvcProblem(value, (args.object as { number?: unknown }).number), options);
}

/** exp_year with the sibling exp_month: the card's last valid month must not be behind us. */
export function IsNotExpired(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotExpired',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'the card has expired', ...options },
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          if (typeof value !== 'string' || !/^\d{4}$/.test(value)) return true;
          const month = Number((args.object as { exp_month?: unknown }).exp_month);
          const now = new Date();
          const year = Number(value);
          if (year !== now.getUTCFullYear()) return year > now.getUTCFullYear();
          return !Number.isInteger(month) || month >= now.getUTCMonth() + 1;
        },
      },
    });
}
