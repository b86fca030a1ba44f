/** Upstream-style refusals thrown from handlers and turned into answers by the dispatcher. */

export interface FieldProblem {
  field: string;
  message: string;
}

export class UpstreamRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
  }
}

export function notFound(message: string): UpstreamRefusal {
  return new UpstreamRefusal(404, { message, code: 'NOT_FOUND' });
}

export function badRequest(message: string, code = 'BAD_REQUEST'): UpstreamRefusal {
  return new UpstreamRefusal(400, { message, code });
}

/** The Open API's parameter validation answer. */
export function invalidParameters(details: FieldProblem[]): UpstreamRefusal {
  return new UpstreamRefusal(400, { message: 'Some of the request parameters are invalid', details });
}
