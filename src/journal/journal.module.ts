import { Module } from '@nestjs/common';
import { JournalSweep } from './journal-sweep';
import { ReservationLeases } from './reservation-leases';
import { WriteJournal } from './write-journal';

/** The one door for upstream writes on reservations (docs/product-spec.md §6): leases, the journal, its sweep. */
@Module({
  providers: [ReservationLeases, WriteJournal, JournalSweep],
  exports: [ReservationLeases, WriteJournal, JournalSweep],
})
export class JournalModule {}
