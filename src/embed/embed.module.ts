import { Module } from '@nestjs/common';
import { EmbedController } from './embed.controller';
import { EmbedService } from './embed.service';

/** The drop-in checkout a site adds with one script tag: its script, its framed page and who may frame it. */
@Module({ controllers: [EmbedController], providers: [EmbedService] })
export class EmbedModule {}
