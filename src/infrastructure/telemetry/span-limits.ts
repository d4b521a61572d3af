type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The longest attribute value a span keeps, in characters, unless OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT
 * or OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT say otherwise. OpenTelemetry's own default is no limit, and a
 * client's `User-Agent` or path would then be kept whole in every span waiting for its export: at
 * 4 KiB a long statement's text still fits (docs/operations.md, "Traces").
 */
export const DEFAULT_ATTRIBUTE_VALUE_LENGTH = 4096;

/**
 * The span limits the SDK is given: the attribute value length, read as OpenTelemetry's SDK reads
 * it (the span's own variable first) but with a default. The SDK reads the other limits (counts of
 * attributes, events, links) from their variables itself; its defaults bound them already.
 */
export function spanLimitsFromEnv(
  env: Environment,
  warn: (message: string) => void,
): { readonly attributeValueLengthLimit: number } {
  for (const name of ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'] as const) {
    const text = env[name]?.trim();
    if (!text) continue;
    const limit = Number(text);
    if (Number.isSafeInteger(limit) && limit > 0) return { attributeValueLengthLimit: limit };
    warn(`${name}=${text} is not a positive whole number of characters; ignored`);
  }
  return { attributeValueLengthLimit: DEFAULT_ATTRIBUTE_VALUE_LENGTH };
}
