import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { UpstreamModule } from '../upstream/upstream.module';
import { FollowUps } from './follow-ups';
import { JournalSweep } from './journal-sweep';
import { ReservationLeases } from './reservation-leases';
import { StoreGeneration } from './store-generation';
import { WriteKinds } from './write-kinds';
import { WriteJournal } from './write-journal';

/**
 * The one door for upstream writes (docs/product-spec.md §6): leases, the journal, its sweep and
 * the writes that must follow landed ones. Each write kind lives with its feature and is found here
 * by name (WriteKinds); the app refuses to start when one is missing.
 */
@Module({
  imports: [UpstreamModule, DiscoveryModule],
  providers: [ReservationLeases, StoreGeneration, WriteJournal, JournalSweep, FollowUps, WriteKinds],
  exports: [ReservationLeases, WriteJournal, JournalSweep, FollowUps, WriteKinds],
})
export class JournalModule {}
