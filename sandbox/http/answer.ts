/** An answer is computed first and written afterwards, so that a fault can still lose it. */
export interface SandboxAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): SandboxAnswer {
  return {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

export function htmlAnswer(status: number, html: string): SandboxAnswer {
  return { status, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: html };
}

export function redirectAnswer(location: string): SandboxAnswer {
  return { status: 303, headers: { Location: location, 'Content-Type': 'text/plain; charset=utf-8' }, body: '' };
}

export function withHeaders(answer: SandboxAnswer, headers: Record<string, string>): SandboxAnswer {
  return { ...answer, headers: { ...answer.headers, ...headers } };
}
