/** Lengths every free-text and identifier field is held to (docs/decisions.md explains them). */
export const MAX_TEXT_LENGTH = 1_000;
export const MAX_NAME_LENGTH = 200;
export const MAX_ID_LENGTH = 100;
export const MAX_LIST_LENGTH = 100;
/**
 * A parameter in the path: an identifier, held to what no identifier exceeds before it reaches a
 * query (one longer than MAX_ID_LENGTH is simply not found).
 */
export const MAX_PATH_PARAMETER_LENGTH = 200;
