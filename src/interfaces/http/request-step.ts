import type { Request, RequestHandler, Response } from 'express';

/**
 * One thing done to a request before its operation: set the answer's first headers, check the key,
 * count the request, parse the body. A step refuses by throwing (a `Problem`) and otherwise returns.
 *
 * A route's steps run in one Express handler, not as one middleware each: every layer Express
 * walks allocates its own closures and matching state, and with six layers a request that was a
 * fifth of what the service allocated per request (docs/performance.md, "One layer per route").
 */
export type RequestStep = (req: Request, res: Response) => void | Promise<void>;

/** Runs `steps` in order; a step that answers synchronously costs no turn of the event loop. */
export async function runSteps(steps: readonly RequestStep[], req: Request, res: Response): Promise<void> {
  for (const step of steps) {
    const pending = step(req, res);
    if (pending) await pending;
  }
}

/** `steps` as one Express middleware, for what runs ahead of the routes (app.ts). */
export function middlewareOf(steps: readonly RequestStep[]): RequestHandler {
  return (req, res, next) => {
    runSteps(steps, req, res).then(() => next(), next);
  };
}
