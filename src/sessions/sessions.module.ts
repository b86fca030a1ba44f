import { Module } from '@nestjs/common';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { SessionState } from './session-state';

/** Checkout sessions' records and their one owner (SessionState): every room reads and moves sessions through it. */
@Module({
  providers: [CheckoutSessionsStore, SessionState],
  exports: [SessionState, CheckoutSessionsStore],
})
export class SessionsModule {}
