import type { Logger } from 'pino';
import type { Config } from '../config';
import type { NotificationListener } from '../infrastructure/database/driver/notification-listener';
import { type EventChanges, onConnectAll, prepareEventChanges } from './event-changes';
import { prepareVerifiedKeyCaching, type VerifiedKeyCaching } from './verified-key-cache';

/** What hears the changes other connections make: the verified-key cache's and the event streams'. */
export interface ChangeListening {
  readonly keyCaching: VerifiedKeyCaching;
  readonly eventChanges: EventChanges;
  /** For the database pool, when its connections listen (none behind a pooler). */
  readonly onConnect: ((client: Parameters<EventChanges['onConnect']>[0]) => Promise<void>) | undefined;
}

/**
 * Each process its own cache of verified keys and its own event streams, told of changes by the
 * database's notifications. Behind a pooler a LISTEN would stay on whichever server connection ran
 * it, and that connection would hear notifications while no client holds it: only the dedicated
 * connections listen then.
 */
export function prepareChangeListening(config: Config): ChangeListening {
  const keyCaching = prepareVerifiedKeyCaching({ maxEntries: config.apiKeyCacheSize });
  const eventChanges = prepareEventChanges();
  const pooled = config.databaseDirectUrl !== undefined;
  return {
    keyCaching,
    eventChanges,
    onConnect: pooled ? undefined : onConnectAll(keyCaching.onConnect, eventChanges.onConnect),
  };
}

/** Once the database is open: listens for key and event changes, their outages logged. */
export function startListeningForChanges(
  { keyCaching, eventChanges }: ChangeListening,
  database: Parameters<VerifiedKeyCaching['start']>[0],
  logger: Logger,
): void {
  logListenerOutages(keyCaching.listener, logger, {
    lost:
      'API key cache off, and revoked keys end their event streams only at their next lease renewal: ' +
      'the connection listening for key changes was lost; reconnecting',
    back: 'API key cache on again: listening for key changes',
  });
  logListenerOutages(eventChanges.listener, logger, {
    lost: 'Event streams ended and refused: the connection listening for event changes was lost; reconnecting',
    back: 'Event streams open again: listening for event changes',
  });
  keyCaching.start(database);
  eventChanges.start(database);
}

/** Closes both listening connections; before the database closes. */
export async function stopListeningForChanges({ keyCaching, eventChanges }: ChangeListening): Promise<void> {
  await Promise.all([keyCaching.close(), eventChanges.close()]);
}

/**
 * A lost listening connection means every request reads its key again, and event streams end and
 * are refused: worth a warning, once per outage rather than per failed reconnection, and its end a note.
 */
function logListenerOutages(
  listener: NotificationListener,
  logger: Logger,
  lines: { readonly lost: string; readonly back: string },
): void {
  let lost = false;
  listener.on('lost', (error) => {
    if (!lost) logger.warn({ err: error }, lines.lost);
    lost = true;
  });
  listener.on('subscribed', () => {
    if (lost) logger.info(lines.back);
    lost = false;
  });
}
