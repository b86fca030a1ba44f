import { acceptableAuthenticationUrl } from './authentication-url';

describe('the authentication address sent to the guest', () => {
  it('takes only an https issuer address in production, http too outside it', () => {
    expect(acceptableAuthenticationUrl('https://issuer.example/charges/pay_1/authenticate', true)).toBe(true);
    expect(acceptableAuthenticationUrl('http://127.0.0.1:4000/charges/pay_1/authenticate', true)).toBe(false);
    expect(acceptableAuthenticationUrl('http://127.0.0.1:4000/charges/pay_1/authenticate', false)).toBe(true);
  });

  it('refuses what a browser would run, credentials in the address, and what is no address', () => {
    expect(acceptableAuthenticationUrl('javascript:alert(1)', false)).toBe(false);
    expect(acceptableAuthenticationUrl('data:text/html,<script>1</script>', false)).toBe(false);
    expect(acceptableAuthenticationUrl('https://user:pass@issuer.example/a', true)).toBe(false);
    expect(acceptableAuthenticationUrl('/charges/pay_1/authenticate', false)).toBe(false);
  });
});
