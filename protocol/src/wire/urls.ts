/** At most this many characters in a URL the service is given to reach (SPEC 6.4). */
export const MAX_URL_LENGTH = 2048;
