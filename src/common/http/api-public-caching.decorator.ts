import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';

/** Documents a public read a browser or CDN may keep: its ETag, its Cache-Control, and 304 for a matching If-None-Match. */
export function ApiPublicCaching(setting: string): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'the ETag of an answer kept earlier: 304 with no body while it is still the answer',
    }),
    ApiResponse({
      status: 304,
      description: `Not modified: the answer named by If-None-Match is still the answer. 200 and 304 carry a strong ETag and Cache-Control: public, max-age, stale-while-revalidate (bounded by ${setting}).`,
    }),
  );
}
