/** Card numbers that choose the outcome on the tokenization host (docs/sandbox.md lists them). */

export type TestCardOutcome =
  'succeeds' | 'three_ds' | 'declined' | 'account_unavailable' | 'insufficient_funds' | 'authentication_required';

export interface SandboxTestCard {
  number: string;
  outcome: TestCardOutcome;
  description: string;
}

export const SANDBOX_TEST_CARDS: readonly SandboxTestCard[] = [
  {
    number: '4242424242424242',
    outcome: 'succeeds',
    description: "Tokenizes without 3DS; each payment succeeds when the listing's policy charges it.",
  },
  {
    number: '4000000000003220',
    outcome: 'three_ds',
    description: '3DS required (threeDS.authURL); the payment succeeds after "Authenticate".',
  },
  {
    number: '4000000000000002',
    outcome: 'declined',
    description: 'Declined by the issuer at tokenization: 400 CARD_DECLINED, decline_code generic_decline.',
  },
  {
    number: '4000000000000119',
    outcome: 'account_unavailable',
    description: '402 ERR_BAD_REQUEST "Request contradicts clearing interface configuration": the payment account is faulty or offline.',
  },
  {
    number: '4000000000000341',
    outcome: 'insufficient_funds',
    description: 'Tokenizes and attaches, but the payment FAILS at the processor (card_declined / insufficient_funds).',
  },
  {
    number: '4000002760003184',
    outcome: 'authentication_required',
    description:
      'Tokenizes and attaches; its charge waits for the guest (PENDING_AUTH, authenticationRequiredData.authenticationUrl: an issuer page to complete or fail it).',
  },
];

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let index = 0; index < number.length; index += 1) {
    let digit = Number(number[number.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function cardBrand(number: string): string {
  const prefix = Number(number.slice(0, 4));
  if (number.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(number) || (prefix >= 2221 && prefix <= 2720)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(number)) return 'discover';
  return 'unknown';
}

/** Any other Luhn-valid number behaves like 4242 4242 4242 4242. */
export function testCardOutcome(number: string): TestCardOutcome {
  return SANDBOX_TEST_CARDS.find((card) => card.number === number)?.outcome ?? 'succeeds';
}
