import { Module } from '@nestjs/common';
import { CheckoutSessionsStore } from './checkout-sessions.store';
import { SessionState } from './session-state';
import { CardsOnFile } from './cards-on-file';

/** What SessionState is built from; a unit spec lists these beside the services under test. */
export const SESSION_PROVIDERS = [CheckoutSessionsStore, SessionState];

/**
 * Checkout sessions' records and their one owner (SessionState): every room reads and moves sessions
 * through it, and only SessionState is given to them (the store stays inside the room).
 */
@Module({
  providers: [...SESSION_PROVIDERS, CardsOnFile],
  exports: [SessionState, CardsOnFile],
})
export class SessionsModule {}
