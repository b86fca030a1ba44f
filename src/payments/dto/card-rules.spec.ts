import { cardDigits, cardNumberProblem } from './card-rules';

describe('card number rules', () => {
  it.each(['4242424242424242', '4000000000003220', '5555555555554444', '378282246310005'])('accepts %s', (number) => {
    expect(cardNumberProblem(number)).toBeNull();
  });

  it.each([
    ['4242424242424241', 'is not a valid card number: check its digits'],
    ['1234', 'must have 13 to 19 digits'],
    ['42424242424242424242', 'must have 13 to 19 digits'],
    ['4242 4242 4242 4242', 'must be digits only (spaces and dashes between them are allowed)'],
    ['', 'must be digits only (spaces and dashes between them are allowed)'],
  ])('refuses %j: %s', (number, problem) => {
    expect(cardNumberProblem(number)).toBe(problem);
  });

  it('removes the spaces and dashes a guest types between groups, and nothing else', () => {
    expect(cardDigits(' 3782-822463 10005 ')).toBe('378282246310005');
    expect(cardDigits('4242abcd')).toBe('4242abcd');
    expect(cardDigits(4242)).toBe(4242);
  });
});
