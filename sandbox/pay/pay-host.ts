/** The tokenization host: /api/tokenize/v2, the issuer's 3DS page and the payment-form SDK. No token checks, no rate limits. */
import { jsonAnswer } from '../http/answer';
import type { HostDefinition } from '../http/host-server';
import { recordChargeAuthentication, showChargeAuthentication } from './charge-authentication';
import { recordIssuerDecision, showIssuerPage } from './issuer-page';
import { tokenizeCard } from './tokenize';
import { sdkForm, sdkScript } from './tokenization-sdk';

export const payHost: HostDefinition = {
  routes: [
    { name: 'tokenize', method: 'POST', path: /^\/api\/tokenize\/v2\/?$/, handle: tokenizeCard },
    { name: 'issuerPage', method: 'GET', path: /^\/3ds\/(?<tokenId>[^/]+)\/?$/, handle: showIssuerPage },
    {
      name: 'issuerAction',
      method: 'POST',
      path: /^\/3ds\/(?<tokenId>[^/]+)\/(?<action>authenticate|fail)\/?$/,
      handle: recordIssuerDecision,
    },
    {
      name: 'chargeAuthPage',
      method: 'GET',
      path: /^\/charges\/(?<paymentId>[^/]+)\/authenticate\/?$/,
      handle: showChargeAuthentication,
    },
    {
      name: 'chargeAuthAction',
      method: 'POST',
      path: /^\/charges\/(?<paymentId>[^/]+)\/(?<action>authenticate|fail)\/?$/,
      handle: recordChargeAuthentication,
    },
    // The payment-form SDK's script and the card form it frames (a stand-in: sandbox/pay/tokenization-sdk.ts).
    { name: 'sdkScript', method: 'GET', path: /^\/tokenization\/v2\/init\.js$/, handle: sdkScript },
    { name: 'sdkForm', method: 'GET', path: /^\/tokenization\/v2\/form\/?$/, handle: sdkForm },
  ],
  unmatched: (_ctx, status) => jsonAnswer(status, { message: status === 404 ? 'Route not found' : 'Method not allowed' }),
};
