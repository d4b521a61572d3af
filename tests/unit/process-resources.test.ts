import { ProcessResources, StartCancelled } from '../../src/process-resources';

describe('ProcessResources', () => {
  it('stops what it started in the reverse order, each told why', async () => {
    const resources = new ProcessResources();
    const stopped: string[] = [];
    for (const name of ['tracing', 'database', 'listener'])
      await resources.start(
        name,
        () => name.toUpperCase(),
        (resource, reason) => stopped.push(`${resource} ${reason}`),
      );

    await resources.stopAll('SIGTERM');

    expect(stopped).toEqual(['LISTENER SIGTERM', 'DATABASE SIGTERM', 'TRACING SIGTERM']);
  });

  it('stops only what started when a start fails, and each once', async () => {
    const resources = new ProcessResources();
    const stopped: string[] = [];
    await resources.start(
      'database',
      () => 'db',
      () => stopped.push('database'),
    );
    const failure = await resources
      .start(
        'listener',
        () => Promise.reject(new Error('listen EADDRINUSE: address already in use 0.0.0.0:3000')),
        () => stopped.push('listener'),
      )
      .catch((error: unknown) => error);
    // Its line names the resource, then what it failed with.
    expect(failure).toMatchObject({
      message: 'starting listener failed: listen EADDRINUSE: address already in use 0.0.0.0:3000',
      cause: { message: 'listen EADDRINUSE: address already in use 0.0.0.0:3000' },
    });

    await resources.stopAll('start failed');
    await resources.stopAll('SIGTERM');

    expect(stopped).toEqual(['database']);
  });

  it('stops the others when one fails to stop, then names each failure', async () => {
    const resources = new ProcessResources();
    const stopped: string[] = [];
    await resources.start(
      'tracing',
      () => 1,
      () => stopped.push('tracing'),
    );
    await resources.start(
      'database',
      () => 2,
      () => Promise.reject(new Error('connection lost')),
    );
    await resources.start(
      'metrics',
      () => 3,
      () => {
        throw new Error('not listening');
      },
    );

    const failure = await resources.stopAll('SIGINT').then(
      () => null,
      (error: unknown) => error,
    );

    expect(stopped).toEqual(['tracing']);
    expect(failure).toBeInstanceOf(AggregateError);
    const errors = (failure as AggregateError).errors as Error[];
    expect(errors.map((error) => error.message)).toEqual(['stopping metrics failed', 'stopping database failed']);
    expect(errors.map((error) => (error.cause as Error).message)).toEqual(['not listening', 'connection lost']);
  });

  it('throws a single failure as itself', async () => {
    const resources = new ProcessResources();
    await resources.start(
      'database',
      () => 1,
      () => Promise.reject(new Error('connection lost')),
    );

    await expect(resources.stopAll('SIGTERM')).rejects.toThrow('stopping database failed');
  });
});

describe('a stop during the start', () => {
  it('lets the resource starting finish, starts no other, and keeps the started ones to stop', async () => {
    const resources = new ProcessResources();
    const stopped: string[] = [];
    await resources.start(
      'tracing',
      () => 1,
      () => stopped.push('tracing'),
    );
    const starting = resources.start(
      'database',
      async () => {
        resources.cancelStarts('SIGINT');
        return 2;
      },
      () => stopped.push('database'),
    );
    await expect(starting).rejects.toEqual(new StartCancelled('SIGINT'));
    let listenerStarted = false;
    const listener = resources.start(
      'listener',
      () => (listenerStarted = true),
      () => stopped.push('listener'),
    );
    await expect(listener).rejects.toBeInstanceOf(StartCancelled);
    expect(listenerStarted).toBe(false);

    await resources.stopAll('SIGINT');
    expect(stopped).toEqual(['database', 'tracing']);
  });

  it('keeps the first reason', async () => {
    const resources = new ProcessResources();
    resources.cancelStarts('SIGINT');
    resources.cancelStarts('SIGTERM');
    await expect(
      resources.start(
        'x',
        () => 1,
        () => undefined,
      ),
    ).rejects.toMatchObject({ reason: 'SIGINT' });
  });
});
