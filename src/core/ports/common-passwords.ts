/** A list of passwords that attackers try first: the most used ones, from breached password lists. */
export interface CommonPasswords {
  /** Whether the list holds this password, compared in lower case as the lists record them. */
  includes(password: string): boolean;
}
