/** Lengths every free-text and identifier field is held to (docs/decisions.md explains them). */
export const MAX_TEXT_LENGTH = 1_000;
export const MAX_NAME_LENGTH = 200;
export const MAX_ID_LENGTH = 100;
export const MAX_LIST_LENGTH = 100;
