import { isLuhnCardNumber } from './card-rules';

describe('isLuhnCardNumber', () => {
  it.each(['4242424242424242', '4000000000003220', '5555555555554444', '378282246310005'])('accepts %s', (number) => {
    expect(isLuhnCardNumber(number)).toBe(true);
  });

  it.each(['4242424242424241', '1234', '4242 4242 4242 4242', '42424242424242424242', ''])('refuses %j', (number) => {
    expect(isLuhnCardNumber(number)).toBe(false);
  });
});
