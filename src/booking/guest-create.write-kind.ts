import { Injectable } from '@nestjs/common';
import { AtRestCipher, AtRestCiphers, SealedValue } from '../redis/at-rest-cipher';
import { GuestyClient } from '../upstream/guesty-client';
import { GuestRequest } from '../upstream/platform-results';
import { forSession, Reconciliation, WriteIntent, WriteTarget } from '../journal/write-intent';
import { JournaledWrite } from '../journal/write-kind';
import { BEFORE_A_CARD } from './reservation-create.write-kind';
import { JournaledWriteKind } from '../journal/write-kinds';

export interface GuestCreatePayload {
  guest: GuestRequest;
  /** The session the booking will open: its id names the booking's unpaid hold, kept across retries. */
  sessionId: string;
  /** The same id sealed (never in the clear at rest), kept in the intent so a retry opens the same session. */
  sealedSessionId: SealedValue;
}

/**
 * A guest create as the journal records it: the email it is found by, sealed (a guest's address is
 * personal data: never in the clear at rest). `email` in the clear is what intents written before
 * the seal carry; they are still found by it.
 */
export interface GuestCreateRequest {
  sealedEmail?: SealedValue;
  email?: string;
  sealedSessionId?: SealedValue;
}

/** What a sealed email is bound to: it opens only as a guest create's. */
const SEALED_EMAIL_BINDING = 'guest-create';

export interface CreatedGuest {
  guestId: string;
}

/**
 * The guest a booking is made for, created on the quote's lease before its reservation, so a
 * retried booking never makes a second guest record. Found among the platform's guests by the email
 * sent (docs/upstream.md): that guest is the booking's whether this create made it or the platform
 * merged it into one it had.
 */
@JournaledWriteKind()
@Injectable()
export class GuestCreateWrite extends JournaledWrite<GuestCreatePayload, GuestCreateRequest, CreatedGuest> {
  readonly name = 'guest-create';
  private readonly emailSeal: AtRestCipher;

  constructor(guesty: GuestyClient, ciphers: AtRestCiphers) {
    super(guesty);
    this.emailSeal = ciphers.for('guest-email');
  }

  describe(_target: WriteTarget, { guest, sessionId, sealedSessionId }: GuestCreatePayload) {
    return {
      request: { sealedEmail: this.emailSeal.seal(guest.email, SEALED_EMAIL_BINDING), sealedSessionId },
      context: forSession(sessionId),
    };
  }

  async send(_target: WriteTarget, { guest }: GuestCreatePayload): Promise<CreatedGuest> {
    return { guestId: (await this.guesty.createGuest(guest, BEFORE_A_CARD)).id };
  }

  async find(intent: WriteIntent<GuestCreateRequest, CreatedGuest>): Promise<Reconciliation<CreatedGuest>> {
    const { sealedEmail, email: earlierEmail } = intent.request;
    const email = sealedEmail ? this.emailSeal.open(sealedEmail, SEALED_EMAIL_BINDING) : (earlierEmail ?? null);
    // Unreadable (the client secret was rotated): nothing to look for, so the horizon settles it.
    if (email === null) return { notLanded: 'the guest create names no email this service can read' };
    const guests = await this.guesty.findGuestsByEmail(email, BEFORE_A_CARD);
    const found = guests[guests.length - 1];
    return found ? { landed: { guestId: found.id } } : { notLanded: 'the platform has no guest with this email' };
  }
}
