/** RFC 6749 §5.2: the characters error_description may hold (%x20-21 / %x23-5B / %x5D-7E), for a character class. */
export const ERROR_DESCRIPTION_CHARACTERS = '\\x20\\x21\\x23-\\x5B\\x5D-\\x7E';
