import { Global, Module } from '@nestjs/common';
import { QuoteBookings } from '../sessions/quote-bookings';
import { AbuseModule } from '../common/abuse/abuse.module';
import { JournalModule } from '../journal/journal.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { BookingsService } from './bookings.service';
import { GuestCreateWrite } from './guest-create.write-kind';
import { ReservationCreateWrite } from './reservation-create.write-kind';
import { ReservationStatusWrite } from './reservation-status.write-kind';
import { CalendarController } from './calendar.controller';
import { CalendarService } from './calendar.service';
import { QuotesController } from './quotes.controller';
import { QuotesService } from './quotes.service';

/**
 * Booking from dates (docs/product-spec.md §3.1): the calendar, quotes, and reservations made from quotes.
 * Global: the checkout's create route asks for `QuoteBookings` (declared in sessions/) without importing this room.
 */
@Global()
@Module({
  imports: [UpstreamModule, AbuseModule, JournalModule, SessionsModule],
  controllers: [CalendarController, QuotesController],
  providers: [
    CalendarService,
    QuotesService,
    BookingsService,
    ReservationCreateWrite,
    GuestCreateWrite,
    ReservationStatusWrite,
    { provide: QuoteBookings, useExisting: BookingsService },
  ],
  exports: [CalendarService, QuoteBookings],
})
export class BookingModule {}
