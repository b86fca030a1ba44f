import { Test } from '@nestjs/testing';
import { SILENT_LOGGER } from '../../test/utils/unit-kit';
import { QuoteBookings } from '../sessions/quote-bookings';
import { SessionsController } from './sessions.controller';

/** The create route with every dependency a stand-in but the booking room's QuoteBookings. */
const withoutBookingRoom = () =>
  Test.createTestingModule({ controllers: [SessionsController] })
    .useMocker((token) => (token === QuoteBookings ? undefined : {}))
    .setLogger(SILENT_LOGGER)
    .compile();

describe('POST /checkout/sessions without the booking room', () => {
  it('fails the start, naming what is missing, instead of answering every booking 404', async () => {
    await expect(withoutBookingRoom()).rejects.toThrow(/QuoteBookings/);
  });
});
