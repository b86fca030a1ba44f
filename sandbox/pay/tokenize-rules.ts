/** Seed §2.2: the tokenization request's fields and formats. Messages never repeat a card number or CVC. */
import type { FieldProblem } from '../http/errors';
import type { SandboxStore } from '../state/store';
import { cardBrand, luhnValid } from './test-cards';

export interface TokenizeInput {
  paymentProviderId: string;
  listingId: string;
  card: { number: string; exp_month: string; exp_year: string };
  threeDS: { amount: number; currency: string; successURL?: string; failureURL?: string };
}

type Json = Record<string, unknown>;

function objectAt(parent: Json, key: string, path: string, problems: FieldProblem[]): Json {
  const value = parent[key];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  problems.push({ field: path, message: 'is required and must be an object' });
  return {};
}

function stringAt(
  parent: Json,
  key: string,
  path: string,
  problems: FieldProblem[],
  rule?: { pattern?: RegExp; maxLength?: number; message?: string },
): string {
  const value = parent[key];
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push({ field: path, message: 'is required and must be a string' });
    return '';
  }
  if (rule?.maxLength !== undefined && value.length > rule.maxLength) {
    problems.push({ field: path, message: `must be at most ${rule.maxLength} characters` });
  } else if (rule?.pattern && !rule.pattern.test(value)) {
    problems.push({ field: path, message: rule.message ?? 'has an invalid format' });
  }
  return value;
}

function redirectUrlAt(parent: Json, key: string, problems: FieldProblem[]): string | undefined {
  const value = parent[key];
  if (value === undefined) return undefined;
  const usable = typeof value === 'string' && /^[\x21-\x7e]+$/.test(value) && URL.canParse(value);
  if (!usable || !/^https?:$/.test(new URL(value).protocol)) {
    problems.push({ field: `threeDS.${key}`, message: 'must be an absolute http(s) URL' });
    return undefined;
  }
  return value;
}

function checkCard(card: Json, now: number, problems: FieldProblem[]): TokenizeInput['card'] {
  const number = stringAt(card, 'number', 'card.number', problems, {
    pattern: /^\d{12,19}$/,
    message: 'must be 12 to 19 digits',
  });
  if (/^\d{12,19}$/.test(number) && !luhnValid(number)) {
    problems.push({ field: 'card.number', message: 'is not a valid card number' });
  }
  const expMonth = stringAt(card, 'exp_month', 'card.exp_month', problems, {
    pattern: /^(0[1-9]|1[0-2])$/,
    message: 'must be 2 digits from 01 to 12, as a string',
  });
  const expYear = stringAt(card, 'exp_year', 'card.exp_year', problems, {
    pattern: /^\d{4}$/,
    message: 'must be 4 digits, as a string',
  });
  // American Express prints a 4-digit code; the reference's "three digits" is the other brands'.
  const amex = cardBrand(number) === 'amex';
  stringAt(
    card,
    'cvc',
    'card.cvc',
    problems,
    amex
      ? { pattern: /^\d{4}$/, message: 'must be 4 digits for American Express, as a string' }
      : { pattern: /^\d{3}$/, message: 'must be 3 digits, as a string' },
  );
  const today = new Date(now);
  const expired =
    /^\d{4}$/.test(expYear) &&
    /^(0[1-9]|1[0-2])$/.test(expMonth) &&
    Number(expYear) * 12 + Number(expMonth) < today.getUTCFullYear() * 12 + today.getUTCMonth() + 1;
  if (expired) problems.push({ field: 'card.exp_year', message: 'the card has expired' });
  return { number, exp_month: expMonth, exp_year: expYear };
}

function checkBilling(billing: Json, problems: FieldProblem[]): void {
  stringAt(billing, 'name', 'billing_details.name', problems);
  const address = objectAt(billing, 'address', 'billing_details.address', problems);
  stringAt(address, 'line1', 'billing_details.address.line1', problems, { maxLength: 50 });
  stringAt(address, 'city', 'billing_details.address.city', problems, { maxLength: 50 });
  stringAt(address, 'postal_code', 'billing_details.address.postal_code', problems, { maxLength: 20 });
  stringAt(address, 'country', 'billing_details.address.country', problems, {
    pattern: /^[A-Z]{2}$/,
    message: 'must be an ISO 3166 alpha-2 code such as US',
  });
}

function checkThreeDs(threeDS: Json, problems: FieldProblem[]): TokenizeInput['threeDS'] {
  const { amount } = threeDS;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
    problems.push({ field: 'threeDS.amount', message: 'is required and must be a non-negative number' });
  }
  const currency = stringAt(threeDS, 'currency', 'threeDS.currency', problems, {
    pattern: /^[A-Za-z]{3}$/,
    message: 'must be a three-letter currency code',
  });
  return {
    amount: Number(amount),
    currency: currency.toUpperCase(),
    successURL: redirectUrlAt(threeDS, 'successURL', problems),
    failureURL: redirectUrlAt(threeDS, 'failureURL', problems),
  };
}

function checkReferences(store: SandboxStore, body: Json, problems: FieldProblem[]): { paymentProviderId: string; listingId: string } {
  const paymentProviderId = stringAt(body, 'paymentProviderId', 'paymentProviderId', problems);
  const listingId = stringAt(body, 'listingId', 'listingId', problems);
  if (paymentProviderId !== '') {
    const provider = store.providerByPaymentProviderId(paymentProviderId);
    if (!provider) {
      problems.push({ field: 'paymentProviderId', message: 'is not a known payment provider' });
    } else if (provider.status !== 'ACTIVE') {
      problems.push({ field: 'paymentProviderId', message: 'the payment provider is not active' });
    }
  }
  if (listingId !== '' && !store.listings.has(listingId)) {
    problems.push({ field: 'listingId', message: 'is not a known listing' });
  }
  return { paymentProviderId, listingId };
}

export function validateTokenizeRequest(store: SandboxStore, body: Json, now: number): { input: TokenizeInput; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const references = checkReferences(store, body, problems);
  const card = checkCard(objectAt(body, 'card', 'card', problems), now, problems);
  checkBilling(objectAt(body, 'billing_details', 'billing_details', problems), problems);
  const threeDS = checkThreeDs(objectAt(body, 'threeDS', 'threeDS', problems), problems);
  if (body.merchantData !== undefined && (typeof body.merchantData !== 'object' || body.merchantData === null)) {
    problems.push({ field: 'merchantData', message: 'must be an object' });
  }
  return { input: { ...references, card, threeDS }, problems };
}
