/** The service's name in traces unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says another. */
export const SERVICE_NAME = 'time-navigation-service';
