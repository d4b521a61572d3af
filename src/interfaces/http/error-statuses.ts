/**
 * The one table from error code to HTTP status, shared by every family. docs/errors.md lists the
 * same codes with their meaning; a test keeps the two in step.
 */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  // request shape
  malformed_json: 400,
  validation_failed: 400,
  malformed_request: 400,
  time_out_of_range: 400,
  invalid_window: 400,
  invalid_duration: 400,
  invalid_time_range: 400,
  // a webhook endpoint's URL whose host is, or resolves to, an address deliveries may not reach
  webhook_url_not_allowed: 400,
  password_blank: 400,
  password_too_short: 400,
  password_too_common: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  // dashboard (answered as HTML pages with these statuses)
  invalid_credentials: 401,
  session_required: 401,
  // the dashboard's password change: the current password given is not the account's
  current_password_wrong: 403,
  // a restricted key without the permission the operation needs (docs/api.md, "Permissions")
  insufficient_permissions: 403,
  api_key_not_found: 404,
  console_key_not_rollable: 409,
  api_key_not_restricted: 409,
  too_many_api_keys: 409,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  // resources
  timeline_not_found: 404,
  anchor_not_found: 404,
  event_not_found: 404,
  destination_not_found: 404,
  webhook_endpoint_not_found: 404,
  webhook_message_not_found: 404,
  // state conflicts
  email_taken: 409,
  timeline_window_expired: 409,
  timeline_closed: 409,
  journey_in_progress: 409,
  items_already_home: 409,
  items_stranded: 409,
  items_not_on_journey: 409,
  clock_already_paused: 409,
  clock_already_running: 409,
  // at most MAX_WEBHOOK_ENDPOINTS per account
  too_many_webhook_endpoints: 409,
  // a resend or a test of a disabled endpoint, which is sent nothing until it is enabled
  webhook_endpoint_disabled: 409,
  // Idempotency-Key (docs/decisions.md)
  idempotency_key_reused: 422,
  idempotency_answer_not_kept: 409,
  idempotency_quota_exceeded: 429,
  // references the request makes that do not hold
  unknown_items: 422,
  unknown_event: 422,
  // too many requests per account or client address
  rate_limited: 429,
  // event streams held at once (docs/decisions.md, "Event streams")
  too_many_streams: 429,
  // an account's requests running and waiting at once (docs/decisions.md, "Requests in flight")
  too_many_requests_in_flight: 429,
  // unknown, revoked or expired API keys from one client address (docs/decisions.md, "Failed API keys")
  too_many_failed_attempts: 429,
  internal_error: 500,
  service_unavailable: 503,
  // the database gave up on the request's statement at its bound (docs/decisions.md, "A statement past its bound")
  operation_timed_out: 503,
  stream_capacity_reached: 503,
  // more requests waiting for the instance than it takes (docs/decisions.md, "Fair share of the instance")
  server_busy: 503,
  // too much password work waits in its pool (docs/decisions.md, "Password work")
  password_checks_busy: 503,
};

export const TITLE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
