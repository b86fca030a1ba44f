import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { UpstreamModule } from '../upstream/upstream.module';
import { FollowUps } from './follow-ups';
import { JournalSweep } from './journal-sweep';
import { GuestCreateWrite } from './kinds/guest-create.write-kind';
import { InvoiceItemWrite } from './kinds/invoice-item.write-kind';
import { CardsOnFile, PaymentMethodWrite } from './kinds/payment-method.write-kind';
import { ReservationCreateWrite } from './kinds/reservation-create.write-kind';
import { ReservationStatusWrite } from './kinds/reservation-status.write-kind';
import { ReservationLeases } from './reservation-leases';
import { StoreGeneration } from './store-generation';
import { WriteKinds } from './write-kinds';
import { WriteJournal } from './write-journal';

const KINDS = [ReservationCreateWrite, GuestCreateWrite, ReservationStatusWrite, PaymentMethodWrite, InvoiceItemWrite] as const;

/**
 * The one door for upstream writes (docs/product-spec.md §6): leases, the journal, its sweep, the
 * writes that must follow landed ones, and the write kinds it reconciles, all here: the sweep finds every kind by name, and a kind left out of
 * `writeKindsByName` fails the type check, never an intent at run time.
 */
@Module({
  imports: [UpstreamModule, DiscoveryModule],
  providers: [ReservationLeases, StoreGeneration, WriteJournal, JournalSweep, FollowUps, CardsOnFile, ...KINDS, WriteKinds],
  exports: [ReservationLeases, WriteJournal, JournalSweep, FollowUps, WriteKinds, CardsOnFile, ...KINDS],
})
export class JournalModule {}
