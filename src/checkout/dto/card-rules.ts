import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/** 13–19 digits passing the Luhn check: the tokenization host refuses anything else. */
export function isLuhnCardNumber(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{13,19}$/.test(value)) return false;
  let sum = 0;
  for (let i = 0; i < value.length; i += 1) {
    let digit = Number(value[value.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function IsLuhnCardNumber(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isLuhnCardNumber',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'card.number must be a valid card number (13-19 digits)', ...options },
      validator: { validate: isLuhnCardNumber },
    });
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
