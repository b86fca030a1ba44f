import { Type } from '@nestjs/common';
import { QuoteRequestDto } from './booking/dto/quote-request.dto';
import { CreateSessionDto } from './checkout/dto/create-session.dto';
import { AddExtrasDto } from './invoices/dto/extras.dto';
import { PaymentMethodDto } from './payments/dto/payment-method.dto';
import { InvoiceItemDto } from './invoices/dto/invoice-item.dto';
import { DomainError, FieldError } from './common/errors/domain-error';
import { createValidationPipe } from './common/http/validation';

const pipe = createValidationPipe();
const year = String(new Date().getUTCFullYear() + 3);

async function validated<T>(metatype: Type<T>, body: unknown): Promise<T> {
  return (await pipe.transform(body, { type: 'body', metatype })) as T;
}

async function refusal(metatype: Type<unknown>, body: unknown): Promise<FieldError[]> {
  const error: unknown = await validated(metatype, body).then(
    () => undefined,
    (refused: unknown) => refused,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a validation refusal, got ${String(error)}`);
  expect(error.code).toBe('validation_failed');
  return error.errors ?? [];
}

function cardBody(card: Record<string, unknown>) {
  return {
    card: { number: '4242424242424242', exp_month: '12', exp_year: year, cvc: '123', ...card },
    billing_details: {
      name: 'Olivia Guest',
      address: { line1: '1 Ocean Drive', city: 'Miami Beach', postal_code: '33139', country: 'US' },
    },
  };
}

const quote = { listingId: 'lst-seaside', checkIn: '2031-07-14', checkOut: '2031-07-17', guestsCount: 2 };
const guest = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

describe('card rules', () => {
  it.each([
    ['an American Express card with a 4-digit CVC', { number: '378282246310005', cvc: '1234' }, '378282246310005'],
    ['a Visa card with a 3-digit CVC', { number: '4242424242424242', cvc: '123' }, '4242424242424242'],
    ['a number typed with spaces', { number: '4242 4242 4242 4242' }, '4242424242424242'],
    ['a number typed with dashes', { number: '4242-4242-4242-4242' }, '4242424242424242'],
    ['an American Express number typed in its groups', { number: '3782 822463 10005', cvc: '1234' }, '378282246310005'],
  ])('accepts %s and sends the digits alone', async (_name, card, digits) => {
    const body = await validated(PaymentMethodDto, cardBody(card));
    expect(body.card?.number).toBe(digits);
  });

  it.each([
    [
      'a 3-digit CVC on an American Express card',
      { number: '378282246310005', cvc: '123' },
      'card.cvc',
      'card.cvc must be 4 digits for an American Express card',
    ],
    ['a 4-digit CVC on a Visa card', { cvc: '1234' }, 'card.cvc', 'card.cvc must be 3 digits for this card (4 only for American Express)'],
    ['a CVC with letters', { cvc: '12a' }, 'card.cvc', 'card.cvc must be 3 digits for this card (4 only for American Express)'],
    [
      'a number with letters',
      { number: '4242abcd42424242' },
      'card.number',
      'card.number must be digits only (spaces and dashes between them are allowed)',
    ],
    ['a number too short', { number: '4242 4242 4242' }, 'card.number', 'card.number must have 13 to 19 digits'],
    ['a number too long', { number: '4242 4242 4242 4242 4242' }, 'card.number', 'card.number must have 13 to 19 digits'],
    ['a mistyped digit', { number: '4242 4242 4242 4241' }, 'card.number', 'card.number is not a valid card number: check its digits'],
  ])('refuses %s, saying which rule failed', async (_name, card, field, message) => {
    expect(await refusal(PaymentMethodDto, cardBody(card))).toEqual([{ field, message }]);
  });

  it('judges the CVC of a number it cannot read by the number alone', async () => {
    expect(await refusal(PaymentMethodDto, cardBody({ number: '4242abcd42424242', cvc: '1234' }))).toEqual([
      { field: 'card.number', message: 'card.number must be digits only (spaces and dashes between them are allowed)' },
    ]);
  });
});

describe('one message per field: the first rule that fails', () => {
  it.each([
    [
      'a quote whose guestsCount is a string',
      QuoteRequestDto,
      { ...quote, guestsCount: '2' },
      [{ field: 'guestsCount', message: 'guestsCount must be a whole number' }],
    ],
    [
      'a quote for no guests',
      QuoteRequestDto,
      { ...quote, guestsCount: 0 },
      [{ field: 'guestsCount', message: 'guestsCount must not be less than 1' }],
    ],
    [
      'a quote without a listing',
      QuoteRequestDto,
      { checkIn: quote.checkIn, checkOut: quote.checkOut, guestsCount: 2 },
      [{ field: 'listingId', message: 'listingId is required' }],
    ],
    [
      'a booking guest without an email',
      CreateSessionDto,
      { quoteId: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', guest: { firstName: 'Ada', lastName: 'Lovelace' } },
      [{ field: 'guest.email', message: 'guest.email is required' }],
    ],
    [
      'a booking guest without names',
      CreateSessionDto,
      { quoteId: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', guest: { email: guest.email } },
      [
        { field: 'guest.firstName', message: 'guest.firstName is required' },
        { field: 'guest.lastName', message: 'guest.lastName is required' },
      ],
    ],
    [
      'a booking guest whose email is a number',
      CreateSessionDto,
      { quoteId: 'q_5Jx2Yb0yq8VbS4m1tWc3dA', guest: { ...guest, email: 42 } },
      [{ field: 'guest.email', message: 'guest.email must be a string' }],
    ],
    ['a card without a CVC', PaymentMethodDto, cardBody({ cvc: undefined }), [{ field: 'card.cvc', message: 'card.cvc is required' }]],
    [
      'a card whose number is a JSON number',
      PaymentMethodDto,
      cardBody({ number: 4242424242424242 }),
      [{ field: 'card.number', message: 'card.number must be a string' }],
    ],
    [
      'an extra whose quantity is a string',
      AddExtrasDto,
      { items: [{ code: 'late-checkout', quantity: '2' }] },
      [{ field: 'items.0.quantity', message: 'items.0.quantity must be a whole number from 1 to 10' }],
    ],
    [
      'an invoice item without a title',
      InvoiceItemDto,
      { normalType: 'CF', amount: 40 },
      [{ field: 'title', message: 'title is required' }],
    ],
    [
      'an invoice item with an empty title',
      InvoiceItemDto,
      { normalType: 'CF', amount: 40, title: '' },
      [{ field: 'title', message: 'title is required' }],
    ],
  ])('%s', async (_name, metatype, body, errors) => {
    expect(await refusal(metatype as Type<unknown>, body)).toEqual(errors);
  });
});
