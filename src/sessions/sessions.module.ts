import { Module } from '@nestjs/common';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { SessionState } from './session-state';

/**
 * Checkout sessions' records and their one owner (SessionState): every room reads and moves sessions
 * through it. Beside them, the card on file of each reservation (one card per reservation, which a
 * session is refused on) and the Swagger shape of a session's answer.
 */
@Module({
  providers: [CheckoutSessionsStore, SessionState],
  exports: [SessionState, CheckoutSessionsStore],
})
export class SessionsModule {}
