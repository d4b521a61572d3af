import { formatDateTime } from './date-time-format';

/**
 * Expected failures of the core. Each class carries a stable machine-readable `code`; the HTTP
 * layer maps codes to statuses in one table, so every family reports a rule the same way.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  /** Extra machine-readable facts a client can act on (for example the offending ids). */
  readonly details: Readonly<Record<string, unknown>>;

  protected constructor(message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

export class TimelineNotFound extends DomainError {
  readonly code = 'timeline_not_found';
  constructor(timelineId: string) {
    super(`No timeline '${timelineId}' exists for this account.`, { timeline_id: timelineId });
  }
}

export class AnchorNotFound extends DomainError {
  readonly code = 'anchor_not_found';
  constructor(anchorId: string) {
    super(`No anchor '${anchorId}' exists for this account.`, { anchor_id: anchorId });
  }
}

export class EventNotFound extends DomainError {
  readonly code = 'event_not_found';
  constructor(eventId: string) {
    super(`No event '${eventId}' exists for this account.`, { event_id: eventId });
  }
}

export class UnknownEvent extends DomainError {
  readonly code = 'unknown_event';
  constructor(timelineId: string, event: string) {
    super(
      `No event '${event}' (by id or name) is recorded on timeline '${timelineId}': a check cannot be meaningful ` +
        'for an event that does not exist.',
      {
        timeline_id: timelineId,
        significant_event: event,
      },
    );
  }
}

export class DestinationNotFound extends DomainError {
  readonly code = 'destination_not_found';
  constructor(destination: string) {
    super(`No timeline or anchor '${destination}' exists for this account.`, { destination });
  }
}

export class TimelineWindowExpired extends DomainError {
  readonly code = 'timeline_window_expired';
  constructor(
    readonly timelineId: string,
    deadline: Date,
  ) {
    super(`The travel window of timeline '${timelineId}' closed at ${formatDateTime(deadline)}.`, {
      timeline_id: timelineId,
    });
  }
}

export class TimelineClosed extends DomainError {
  readonly code = 'timeline_closed';
  constructor(timelineId: string) {
    super(`The journey to timeline '${timelineId}' is already completed; create a new timeline to travel again.`, {
      timeline_id: timelineId,
    });
  }
}

export class JourneyInProgress extends DomainError {
  readonly code = 'journey_in_progress';
  constructor(currentTimelineId: string) {
    super(
      `The traveller is on timeline '${currentTimelineId}'; return home (an anchor on 'primary', or 'primary') ` +
        'before travelling to another timeline.',
      {
        current_timeline_id: currentTimelineId,
      },
    );
  }
}

export class UnknownItems extends DomainError {
  readonly code = 'unknown_items';
  constructor(itemIds: readonly string[]) {
    super(
      `These items are not registered for this account: ${itemIds.join(', ')}. ` +
        'Register items with POST /v1/items first.',
      {
        item_ids: itemIds,
      },
    );
  }
}

export class ItemsAlreadyHome extends DomainError {
  readonly code = 'items_already_home';
  constructor(itemIds: readonly string[]) {
    super(`These items were already carried home: ${itemIds.join(', ')}.`, { item_ids: itemIds });
  }
}

export class ItemsNotOnJourney extends DomainError {
  readonly code = 'items_not_on_journey';
  constructor(itemIds: readonly string[]) {
    super(
      'Items are carried home from the timeline of the journey where they were found, on the travel home; ' +
        `these are not: ${itemIds.join(', ')}.`,
      {
        item_ids: itemIds,
      },
    );
  }
}

export class ItemsStrandedByExpiredWindow extends DomainError {
  readonly code = 'items_stranded';
  constructor(timelineId: string, deadline: Date) {
    super(
      `The travel window of timeline '${timelineId}' closed at ${formatDateTime(deadline)}; ` +
        'items can no longer be carried home from it. Return without items_transported.',
      {
        timeline_id: timelineId,
      },
    );
  }
}

export class InvalidWindow extends DomainError {
  readonly code = 'invalid_window';
  constructor(minutes: number, max: number) {
    super(`A travel window must be a whole number of minutes from 1 to ${max}, not ${minutes}.`);
  }
}

export class TimeOutOfRange extends DomainError {
  readonly code = 'time_out_of_range';
  constructor(attempted: string) {
    super(
      `The resulting time ${attempted} is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.`,
    );
  }
}

export class EmailAlreadyRegistered extends DomainError {
  readonly code = 'email_taken';
  constructor() {
    super('An account with this email already exists.');
  }
}

export class InvalidApiKey extends DomainError {
  readonly code = 'invalid_api_key';
  constructor() {
    super('The API key is unknown or revoked.');
  }
}

export class InvalidDuration extends DomainError {
  readonly code = 'invalid_duration';
  constructor(text: string) {
    super(
      `'${text}' is not a duration: use '<n>m' (minutes), '<n>h' (hours) or '<n>d' (days), n a whole ` +
        "number from 1, like '90m'.",
      {
        accepted_forms: ['<n>m', '<n>h', '<n>d'],
      },
    );
  }
}

export class ClockAlreadyPaused extends DomainError {
  readonly code = 'clock_already_paused';
  constructor() {
    super('Time is already paused; resume it first.');
  }
}

export class ClockAlreadyRunning extends DomainError {
  readonly code = 'clock_already_running';
  constructor() {
    super('Time is already running; there is nothing to resume.');
  }
}

export class InvalidTimeRange extends DomainError {
  readonly code = 'invalid_time_range';
  constructor(text: string, reason: string) {
    super(
      `'${text}' is not a usable time_range: ${reason}. Write '<start>/<end>', like ` +
        '2024-01-01T00:00:00Z/2024-01-02T00:00:00Z.',
    );
  }
}

/**
 * One answer for a wrong password, an unknown email and a locked sign-in alike, so the answer
 * never tells whether an account exists.
 */
export class InvalidCredentials extends DomainError {
  readonly code = 'invalid_credentials';
  constructor() {
    super(
      'The email or password is not right, or sign-in is paused after repeated failures. ' +
        'Check both and try again in 15 minutes.',
    );
  }
}

/**
 * The client failed with too many API keys lately: refused before its key is even looked up, so
 * guessing costs the service nothing (docs/decisions.md, "Failed API keys").
 */
export class TooManyFailedAttempts extends DomainError {
  readonly code = 'too_many_failed_attempts';
  constructor(readonly retryAfterSeconds: number) {
    super(
      `Too many requests from this address presented an unknown, revoked or expired API key. ` +
        `Check the key, and retry after ${retryAfterSeconds} s.`,
      { retry_after_seconds: retryAfterSeconds },
    );
  }
}

/**
 * Too much password work waits in the pool that runs it (hashing and the strength check): the
 * request is refused before its password is looked at, and may be sent again after
 * `retryAfterSeconds` (docs/decisions.md, "Password work").
 */
export class PasswordChecksBusy extends DomainError {
  readonly code = 'password_checks_busy';
  constructor(readonly retryAfterSeconds: number) {
    super(
      `Too many password checks are waiting on this server right now; nothing was done. ` +
        `Try again in ${retryAfterSeconds} s.`,
      { retry_after_seconds: retryAfterSeconds },
    );
  }
}

/** The dashboard's password change, when the current password given is not the account's. */
export class WrongCurrentPassword extends DomainError {
  readonly code = 'current_password_wrong';
  constructor() {
    super(
      'The current password is not right, or changing it is paused after repeated failures: ' +
        'check it and try again in 15 minutes.',
    );
  }
}

export class SessionRequired extends DomainError {
  readonly code = 'session_required';
  constructor() {
    super('Sign in to continue: there is no session, or it has ended.');
  }
}

export class ApiKeyNotFound extends DomainError {
  readonly code = 'api_key_not_found';
  constructor(keyId: string) {
    super(`No active API key '${keyId}' exists for this account.`, { key_id: keyId });
  }
}

export class ConsoleKeyNotRollable extends DomainError {
  readonly code = 'console_key_not_rollable';
  constructor(keyId: string) {
    super(`API key '${keyId}' belongs to a browser session's try-it console and ends with it; revoke it instead.`, {
      key_id: keyId,
    });
  }
}

export class TooManyApiKeys extends DomainError {
  readonly code = 'too_many_api_keys';
  constructor(limit: number) {
    super(`An account keeps at most ${limit} active API keys; revoke one first.`, { limit });
  }
}

/**
 * The request's key is restricted and lacks the one permission the operation needs (or the
 * operation manages keys, which only a full key may).
 */
export class InsufficientPermissions extends DomainError {
  readonly code = 'insufficient_permissions';
  constructor(
    readonly requiredPermission: string,
    readonly keyId: string,
  ) {
    super(`This API key lacks the permission ${requiredPermission}, which this operation needs.`, {
      required_permission: requiredPermission,
      key_id: keyId,
    });
  }
}

/** Permissions belong to restricted keys: a full key cannot be given some, nor become restricted. */
export class ApiKeyNotRestricted extends DomainError {
  readonly code = 'api_key_not_restricted';
  constructor(keyId: string) {
    super(
      `API key '${keyId}' is a full key, which may do everything its account may; create a restricted key instead.`,
      { key_id: keyId },
    );
  }
}

/** A new password that the account rules refuse; the dashboard shows its message on the form. */
export abstract class UnacceptablePassword extends DomainError {}

export class BlankPassword extends UnacceptablePassword {
  readonly code = 'password_blank';
  constructor() {
    super('The password is only white space; choose one with other characters too.');
  }
}

export class ShortPassword extends UnacceptablePassword {
  readonly code = 'password_too_short';
  constructor(minimum: number) {
    super(`The password has fewer than ${minimum} characters besides the white space around it; choose a longer one.`);
  }
}

export class CommonPassword extends UnacceptablePassword {
  readonly code = 'password_too_common';
  constructor() {
    super(
      'This password is one attackers try first: a breached password, or made from common words, names, ' +
        'repeats, sequences, keyboard runs, dates or your email. Choose another, for example a few unrelated words.',
    );
  }
}

/**
 * A field that breaks a rule only the core can check, as it depends on the service's settings (an
 * endpoint's URL scheme under WEBHOOK_ALLOW_PRIVATE_URLS), or the core's own guard of one the edge
 * checks first: answered as the edge answers a field at fault.
 */
export class InvalidField extends DomainError {
  readonly code = 'validation_failed';
  constructor(field: string, fault: string) {
    super(`The request is invalid: check ${field}.`, { errors: [{ field, message: `${field} ${fault}` }] });
  }
}

export class WebhookEndpointNotFound extends DomainError {
  readonly code = 'webhook_endpoint_not_found';
  constructor(endpointId: string) {
    super(`No webhook endpoint '${endpointId}' exists for this account.`, { endpoint_id: endpointId });
  }
}

export class TooManyWebhookEndpoints extends DomainError {
  readonly code = 'too_many_webhook_endpoints';
  constructor(limit: number) {
    super(`An account keeps at most ${limit} webhook endpoints; delete one first.`, { limit });
  }
}

export class WebhookMessageNotFound extends DomainError {
  readonly code = 'webhook_message_not_found';
  constructor(messageId: string) {
    super(`No webhook message '${messageId}' exists for this endpoint.`, { message_id: messageId });
  }
}

/** A resend or a test asked of a disabled endpoint: nothing would be sent to it until it is enabled. */
export class WebhookEndpointDisabled extends DomainError {
  readonly code = 'webhook_endpoint_disabled';
  constructor(endpointId: string) {
    super(`The webhook endpoint '${endpointId}' is disabled: enable it first, then send again.`, {
      endpoint_id: endpointId,
    });
  }
}

/**
 * An endpoint's URL whose host is, or resolves only to, addresses deliveries may not reach, or to
 * none. The addresses are not named: the answer must not map the service's network for a caller.
 */
export class WebhookUrlNotAllowed extends DomainError {
  readonly code = 'webhook_url_not_allowed';
  constructor(reason: 'address_not_allowed' | 'dns') {
    super(
      reason === 'dns'
        ? "The URL's host resolves to no address: check its name."
        : "The URL's host is, or resolves to, an address webhooks may not reach: loopback, private, link-local, " +
            'unique-local, shared (CGNAT), multicast or reserved. Point it at a public address.',
      { reason },
    );
  }
}
