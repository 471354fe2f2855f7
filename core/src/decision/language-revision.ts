/** The policy-language revisions this build evaluates (SPEC 3.4 language gate). */
export const LANGUAGE_REVISION = 2;
