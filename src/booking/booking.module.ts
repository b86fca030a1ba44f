import { Module } from '@nestjs/common';
import { AbuseModule } from '../common/abuse/abuse.module';
import { CheckoutModule } from '../checkout/checkout.module';
import { JournalModule } from '../journal/journal.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { Bookings } from './bookings.service';
import { CalendarController } from './calendar.controller';
import { CalendarCache } from './calendar.service';
import { QuotesController } from './quotes.controller';
import { Quotes } from './quotes.service';

/** Booking from dates (docs/product-spec.md §3.1): the calendar, quotes, and reservations made from quotes. */
@Module({
  imports: [UpstreamModule, AbuseModule, JournalModule, CheckoutModule, SessionsModule],
  controllers: [CalendarController, QuotesController],
  providers: [CalendarCache, Quotes, Bookings],
  exports: [CalendarCache],
})
export class BookingModule {}
