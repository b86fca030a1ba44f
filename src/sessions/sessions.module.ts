import { Module } from '@nestjs/common';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { SessionState } from './session-state';

/** What SessionState is built from; a unit spec lists these beside the services under test. */
export const SESSION_PROVIDERS = [CheckoutSessionsStore, SessionState];

/**
 * Checkout sessions' records and their one owner (SessionState): every room reads and moves sessions
 * through it. Beside them, the card on file of each reservation (one card per reservation, which a
 * session is refused on) and the Swagger shape of a session's answer.
 */
@Module({
  providers: SESSION_PROVIDERS,
  exports: [SessionState, CheckoutSessionsStore],
})
export class SessionsModule {}
